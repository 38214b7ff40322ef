"""The tests run most `arena` commands inside their own process (arena_helpers.IN_PROCESS): each such
command gives the same exit code, stdout and stderr there as a real `python -m arena` process."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from arena.submissions.accounts import ensure_author
from arena_helpers import ARENA, IN_PROCESS, command_of, db_url, fix_seed_key, run_arena, run_in_process
from forked_arena import FORKED, arena_run

#: one command of each group of IN_PROCESS (a real process costs ~1 s of CPU): what differs between the two ways
#: is the harness (exit codes, standard output and error, the files it writes), not the command; ok, usage
#: errors (2) and the commands' own errors (1) are all here
COMMANDS = [
    ("leaderboard", "--variant", "nope"), ("bots",), ("game", "show", "x"), ("season", "list"),
    ("season", "show", "ghost"), ("season", "close", "ghost"), ("season", "run", "--games", "2"), ("audit", "--json"),
    ("test", "resume", "9"), ("replay", "missing.json"), ("backup", "/nonexistent/dir/copy.sqlite"),
    ("submit", "/no/such/bot.py"), ("play", "nobody", "greedy"), ("authors", "add", "  "),
    ("ladder", "set", "bots-per-author", "0"), ("competition", "create", "x", "--deadline", "never"),
    ("site", "build", "--out", "/sys/site"),  # /sys refuses new files even to root
]
BOTS = Path(__file__).parents[2] / "bots"


def test_every_in_process_command_is_compared_here() -> None:
    assert {command_of(c)[:2] for c in COMMANDS} | {command_of(c)[:1] for c in COMMANDS} >= IN_PROCESS


@pytest.mark.slow  # a real `python -m arena` for each of the 17 commands: the harness's check, not a user's path
# (a forked command, arena_helpers.ForkedArena, each the third way)
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_in_process_gives_what_the_real_command_gives(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "here").mkdir()
    real = subprocess.run([*ARENA, "--db", db_url(tmp_path / "real" / "l.sqlite"), *args], capture_output=True,
                          text=True, timeout=120)
    here = run_in_process(["--db", db_url(tmp_path / "here" / "l.sqlite"), *args])
    (tmp_path / "fork").mkdir()
    forked = arena_run(["--db", db_url(tmp_path / "fork" / "l.sqlite"), *args], capture_output=True, text=True,
                       timeout=120)
    shown = (real.returncode, real.stdout, real.stderr.replace(str(tmp_path / "real"), "DIR"))
    assert (here.returncode, here.stdout, here.stderr.replace(str(tmp_path / "here"), "DIR")) == shown
    assert forked.args[0] == FORKED
    assert (forked.returncode, forked.stdout, forked.stderr.replace(str(tmp_path / "fork"), "DIR")) == shown


def test_other_commands_run_as_a_fork_and_with_a_changed_environment_in_a_real_interpreter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert command_of(("--db", "x", "-q", "season", "run", "--games", "2")) == ("season", "run")
    result = run_arena("demo", "--bogus", db=tmp_path / "l.sqlite")
    assert isinstance(result.args, list) and result.args[0] == FORKED
    assert result.returncode == 2 and "No such option '--bogus'" in result.stderr
    assert run_arena("season", "run", "--games", "x", db=tmp_path / "l.sqlite").args[0] == "arena"
    monkeypatch.setenv("PYTHONHASHSEED", "6640")  # what importing Dask's nanny leaves behind: no matter
    assert run_arena("season", "run", "--games", "x", db=tmp_path / "l.sqlite").args[0] == "arena"
    monkeypatch.setenv("ARENA_FORMATS", "no_such_format_module")  # a registry the worker must not keep
    result = run_arena("season", "run", "--games", "x", db=tmp_path / "l.sqlite")
    assert result.args[:len(ARENA)] == ARENA
    assert result.returncode == 2 and "cannot load format module 'no_such_format_module'" in result.stderr


def test_a_played_game_is_the_same_in_process(tmp_path: Path) -> None:
    """The same seed on databases with the same key plays the same game either way (times aside), and
    writes to the same tables."""
    (tmp_path / "real").mkdir()
    (tmp_path / "here").mkdir()
    runs = []
    for where, run in (("real", None), ("here", run_in_process)):
        db = tmp_path / where / "l.sqlite"
        fix_seed_key(db)
        args = ["--db", db_url(db), "play", "--seed", "42", "greedy", "trader", "greedy"]
        result = run(args) if run else subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        runs.append((lines[0].rsplit("  ", 1)[0], [line.split()[:6] for line in lines[1:]], result.stderr))
    assert runs[0] == runs[1]
    assert runs[0][1][0] == ["seat", "bot", "coins", "rank", "status", "decisions"]


def test_a_forked_workers_output_reaches_the_commands_stderr(tmp_path: Path) -> None:
    """A process the command starts writes to the same standard error as the command (file descriptor 2),
    so what a worker prints is checked as it would be in a real process."""
    import click

    from arena.cli import cli

    @cli.command("echo-from-child", hidden=True)
    def echo_from_child() -> None:
        pid = os.fork()
        if pid == 0:
            os.write(2, b"from the child\n")
            os._exit(0)
        os.waitpid(pid, 0)
        click.echo("from the parent", err=True)

    try:
        result = run_in_process(["echo-from-child"])
    finally:
        cli.commands.pop("echo-from-child")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "from the child\nfrom the parent\n")


def test_an_escaping_exception_shows_its_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.cli.season

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug in the board")

    monkeypatch.setattr(arena.cli.season, "leaderboard", broken)
    result = run_in_process(["--db", db_url(tmp_path / "l.sqlite"), "leaderboard"])
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in result.stderr and "RuntimeError: a bug in the board" in result.stderr


def test_a_command_leaves_its_writes_in_the_database_file(tmp_path: Path) -> None:
    """The command closes its database when it ends, as a process that exits does: a plain copy of the
    file then holds what it wrote (SQLite keeps a write in its log file until the last connection closes;
    a copy without it once lost an audit's stored flag)."""
    import shutil
    import sqlite3

    from arena.db import make_engine
    from arena.submissions.versions import register
    from sqlmodel import Session

    db = tmp_path / "l.sqlite"
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        register(session, "mybot", (Path(__file__).parents[2] / "bots" / "greedy_bot.py").read_text(),
                 ensure_author(session, "me"),
                 variants=("classic",))
    engine.dispose()
    assert run_arena("bots", "retire", "mybot", "--author", "me", db=db).returncode == 0
    copy = tmp_path / "copy.sqlite"
    shutil.copy(db, copy)  # the file alone, without its -wal
    with sqlite3.connect(copy) as con:
        active = con.execute("SELECT botversion.active FROM botversion JOIN bot ON bot.id = botversion.bot_id "
                             "WHERE bot.name = 'mybot'").fetchall()
    assert active == [(0,)]


def test_a_forked_command_sees_the_end_of_its_input(tmp_path: Path) -> None:
    """A forked command holds none of its own pipes' other ends, as a real process holds none: a person's seat
    whose input closes abandons the game at once (130), as `arena play greedy human random < /dev/null` does."""
    played = arena_run(["--db", db_url(tmp_path / "l.sqlite"), "play", "greedy", "human", "random"], input="",
                       capture_output=True, text=True, timeout=60)
    assert played.args[0] == FORKED
    assert played.returncode == 130, played.stderr
    assert played.stderr.strip().splitlines()[-1] == ("arena: game abandoned (Ctrl-C, the input closed or a stop "
                                                      "signal): no result")

