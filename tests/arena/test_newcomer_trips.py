"""What a newcomer trips on (issue 26, part 5), each through the real command: a season with too few
bots, a board without games, the same code submitted again, a solo game's result, a misspelled
built-in name, an upgraded schema, and the schema version the docs state."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from sqlalchemy import text
from sqlmodel import Session, select

from arena.submissions.accounts import ensure_author
from arena.db import SCHEMA_VERSION, Season, make_engine
from arena.submissions.versions import plays_formats, register
from arena_helpers import run_in_process
from forked_arena import arena_run

ROOT = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-m", "arena"]


def arena(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`arena --db DB ARGS` as a real process in ``tmp_path`` (a season and a game set signal handlers)."""
    return arena_run(["--db", f"sqlite:///{tmp_path / 'ladder.sqlite'}", *args], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)


def in_process(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_in_process(["--db", f"sqlite:///{tmp_path / 'ladder.sqlite'}", *args])


def test_a_season_with_too_few_bots_says_so_first_names_bosses_and_leaves_no_season(tmp_path: Path) -> None:
    result = arena(tmp_path, "season", "run", "--name", "first", "--games", "2")
    assert result.returncode == 2
    assert result.stderr.startswith("Error: season 'first' needs at least 3 active bots that play classic; "
                                    "none is registered: "), result.stderr  # no progress line before it
    assert "--bosses all" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    solo = arena(tmp_path, "season", "run", "--name", "alone", "--variant", "solo")
    assert solo.returncode == 2 and solo.stderr.startswith(
        "Error: season 'alone' needs at least 1 active bot that plays solo; none is registered: "), solo.stderr
    listed = in_process(tmp_path, "season", "list")
    assert listed.stdout.strip() == "no seasons yet: start one with 'arena season run'"
    engine = make_engine(f"sqlite:///{tmp_path / 'ladder.sqlite'}")
    with Session(engine) as session:
        assert session.exec(select(Season)).all() == []
    engine.dispose()


def test_a_season_with_too_few_authors_is_refused_before_it_is_made(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'ladder.sqlite'}")
    with Session(engine) as session:
        for name in ("ann1", "ann2", "ann3"):
            register(session, name, f"# {name}\n", ensure_author(session, "Ann"), variants=("classic",))
    engine.dispose()
    result = arena(tmp_path, "season", "run", "--name", "same-author")
    assert result.returncode == 2
    assert result.stderr.startswith("Error: season 'same-author' needs bots of at least 3 different authors that "
                                    "play classic; 1 is active: "), result.stderr
    assert in_process(tmp_path, "season", "list").stdout.startswith("no seasons yet")


def test_a_board_without_games_ranks_nobody(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'ladder.sqlite'}")
    with Session(engine) as session:
        register(session, "alpha", "# a\n", variants=("classic", "duel", "solo"))
        register(session, "beta", "# b\n", variants=("classic", "duel", "solo"))
    engine.dispose()
    for variant in ("classic", "duel", "solo"):
        board = in_process(tmp_path, "leaderboard", "--variant", variant)
        assert board.returncode == 0, board.stderr
        assert board.stdout.strip() == (f"no {variant} games yet, so nobody is ranked; "
                                        f"2 bots play {variant}: alpha, beta")
        assert "0.00" not in board.stdout and "rank " not in board.stdout
        as_json = in_process(tmp_path, "leaderboard", "--variant", variant, "--json")
        assert as_json.returncode == 0, as_json.stderr
        rows = json.loads(as_json.stdout)
        assert [row["name"] for row in rows] == ["alpha", "beta"] and [row["rank"] for row in rows] == [None, None]


def test_the_same_code_again_keeps_the_formats_it_plays(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'ladder.sqlite'}")
    with Session(engine) as session:
        ann = ensure_author(session, "ann")
        first = register(session, "steady", "# same\n", ann, variants=("classic", "duel", "solo"))
        assert first.new and plays_formats(session, first.version) == ["classic", "duel", "solo"]
        # its smoke games, drawn again, passed only classic this time: nothing changes
        again = register(session, "steady", "# same\n", ann, variants=("classic",))
        assert not again.new and again.version.id == first.version.id
        assert plays_formats(session, again.version) == ["classic", "duel", "solo"]
        changed = register(session, "steady", "# changed\n", ann, variants=("classic",))
        assert changed.new and plays_formats(session, changed.version) == ["classic"]
    engine.dispose()


def test_a_solo_game_shows_won_or_lost_never_a_rank(tmp_path: Path) -> None:
    replay = tmp_path / "solo.json"
    result = arena(tmp_path, "play", "--variant", "solo", "random", "--in-process", "--seed", "1",
                   "--replay", str(replay))
    assert result.returncode == 0, result.stderr
    head, row = result.stdout.splitlines()[1:3]
    assert head.split()[:5] == ["seat", "bot", "gold", "result", "status"]  # the Princes games count gold
    assert row.split()[3] in ("won", "lost") and "rank" not in result.stdout
    shown = in_process(tmp_path, "replay", str(replay))
    assert re.match(r"solo-v1  \d+ actions  random_bot \d+ \((won|lost)\)$", shown.stdout.splitlines()[0]), shown.stdout


def test_a_misspelled_built_in_bot_gets_a_did_you_mean(tmp_path: Path) -> None:
    result = arena(tmp_path, "play", "greedyy", "trader", "random")
    assert result.returncode == 2
    assert result.stderr.strip().endswith("not a bot of this ladder; did you mean 'greedy'?"), result.stderr
    far = arena(tmp_path, "play", "zzz", "trader", "random")
    assert far.returncode == 2 and "did you mean" not in far.stderr
    bosses = arena(tmp_path, "season", "run", "--bosses", "tradr,random")
    assert bosses.returncode == 2 and bosses.stderr.strip().endswith("did you mean 'trader'?"), bosses.stderr


def test_a_schema_upgrade_says_one_line(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    assert in_process(tmp_path, "bots").stderr == ""  # a new database is made, not upgraded: nothing said
    engine = make_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE auditflag"))
        conn.execute(text("UPDATE meta SET value = '5' WHERE key = 'schema_version'"))
    engine.dispose()
    upgraded = in_process(tmp_path, "bots")
    assert upgraded.returncode == 0
    assert upgraded.stderr == f"database sqlite:///{db}: schema upgraded from version 5 to {SCHEMA_VERSION}\n"
    assert in_process(tmp_path, "bots").stderr == ""  # once


def test_the_scaling_doc_states_the_codes_schema_version() -> None:
    doc = (ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    stated = re.findall(r"`schema_version` row of the `meta` table, (\d+) today", doc)
    assert stated == [str(SCHEMA_VERSION)]
