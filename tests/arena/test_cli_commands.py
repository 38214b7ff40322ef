"""The command group imports a command's module only when that command is run or asked for its help, and lists
them all without importing any (arena/cli/base.py LazyGroup)."""
from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import arena.cli
from arena.cli.base import COMMANDS, cli


def test_every_command_is_defined_in_the_module_the_group_names_and_none_is_missing() -> None:
    for info in pkgutil.iter_modules(arena.cli.__path__):
        importlib.import_module(f"arena.cli.{info.name}")
    defined = {name: command.callback.__module__ for name, command in cli.commands.items() if command.callback}
    assert defined == {name: f"arena.cli.{listed.module}" for name, listed in COMMANDS.items()}


def test_running_a_command_imports_its_own_module_and_not_the_others(tmp_path: Path) -> None:
    script = ("import sys\nfrom arena.cli import main\n"
              f"sys.argv = ['arena', '--db', 'sqlite:///{tmp_path / 'ladder.sqlite'}', 'ladder']\n"
              "try:\n    main()\nexcept SystemExit as end:\n    assert not end.code, end.code\n"
              "print('loaded:', *sorted(m for m in sys.modules if m.startswith('arena.cli.')))\n")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    loaded = set(ran.stdout.rsplit("loaded:", 1)[1].split())
    assert "arena.cli.ladder" in loaded
    assert not loaded & {"arena.cli.site", "arena.cli.audit", "arena.cli.season", "arena.cli.serve", "arena.cli.play"}


def test_help_lists_every_command_with_its_summary_whole_and_imports_none(tmp_path: Path) -> None:
    script = ("import sys\nfrom arena.cli import main\nsys.argv = ['arena', '--help']\n"
              "try:\n    main()\nexcept SystemExit as end:\n    assert not end.code, end.code\n"
              "print('loaded:', *sorted(m for m in sys.modules if m.startswith('arena.cli.')))\n")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                         env={**os.environ, "COLUMNS": "80"})
    assert ran.returncode == 0, ran.stderr
    shown, loaded = ran.stdout.rsplit("loaded:", 1)
    assert set(loaded.split()) == {"arena.cli.base"}  # no command's module
    rows = shown.split("Commands:\n")[1].splitlines()
    assert [row.split(None, 1)[0] for row in rows] == sorted(COMMANDS)
    for row, (name, listed) in zip(rows, sorted(COMMANDS.items())):  # whole, on one line of 80 columns
        assert row.split(None, 1)[1] == listed.summary and len(row) <= 80, row


def test_a_commands_own_help_is_its_docstring_and_an_unknown_one_is_refused_in_one_line(tmp_path: Path) -> None:
    shown = subprocess.run([sys.executable, "-m", "arena", "backup", "--help"], capture_output=True, text=True,
                           timeout=60, cwd=tmp_path)
    assert shown.returncode == 0 and "Copy the SQLite database into a new file" in shown.stdout, shown.stderr
    wrong = subprocess.run([sys.executable, "-m", "arena", "sesaon"], capture_output=True, text=True, timeout=60,
                           cwd=tmp_path)
    assert wrong.returncode == 2 and "No such command 'sesaon'" in wrong.stderr and "Traceback" not in wrong.stderr


def test_an_authors_client_starts_without_the_database_libraries(tmp_path: Path) -> None:
    """`arena submit --to URL` and `arena status --to URL` run on an author's machine and only speak HTTP: neither
    imports SQLAlchemy, SQLModel or pydantic (arena/db/__init__.py loads its names lazily), which cost ~0.5 s of CPU
    at every start. Here each stops at its first check (no token), having imported what its command module needs."""
    bot = Path(__file__).resolve().parents[2] / "bots" / "greedy_bot.py"
    script = ("import sys\nfrom arena.cli import main\nsys.argv = ['arena', *sys.argv[1:]]\n"
              "try:\n    main()\nexcept SystemExit as end:\n    print('exit:', end.code)\n"
              "print('loaded:', *sorted(m.split('.')[0] for m in sys.modules))\n")
    environment = {k: v for k, v in os.environ.items() if k not in ("ARENA_TOKEN", "ARENA_DB")}
    for args in (["status", "--to", "http://127.0.0.1:9"], ["submit", str(bot), "--to", "http://127.0.0.1:9"]):
        ran = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=60,
                             cwd=tmp_path, env=environment)
        assert "exit: 2" in ran.stdout and "no token" in ran.stderr, (args, ran.stdout[-500:], ran.stderr[-1000:])
        loaded = set(ran.stdout.rsplit("loaded:", 1)[1].split())
        assert "arena" in loaded and "click" in loaded  # the listing is this command's
        assert not loaded & {"sqlalchemy", "sqlmodel", "pydantic"}, args
    local = subprocess.run([sys.executable, "-c", script, "--db", f"sqlite:///{tmp_path / 'l.sqlite'}", "bots"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path, env=environment)
    assert "exit: 0" in local.stdout or "exit: None" in local.stdout, local.stderr[-1000:]
    assert "sqlalchemy" in local.stdout.rsplit("loaded:", 1)[1].split()  # a command on the database does load it
