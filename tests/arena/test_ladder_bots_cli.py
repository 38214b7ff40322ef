"""`arena bots` (every bot with its standing in every format, best classic score first) and
`arena play NAME` / `NAME@VERSION` (a bot of the ladder, run in the sandbox like any submission)."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from arena.submissions.accounts import ensure_author
from arena_helpers import db_url, run_arena
from sqlmodel import Session

from arena.db import make_engine
from arena.submissions.versions import register

BOTS = Path(__file__).resolve().parents[2] / "bots"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """alpha (two versions: greedy, then greedy changed), beta (random), trader as a boss, 3 games:
    one real season for the module."""
    db = tmp_path_factory.mktemp("played") / "ladder.sqlite"
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        register(session, "alpha", (BOTS / "greedy_bot.py").read_text(), ensure_author(session, "ann"))
        register(session, "alpha", (BOTS / "greedy_bot.py").read_text() + "\n# version 2\n",
                 ensure_author(session, "ann"))
        register(session, "beta", (BOTS / "random_bot.py").read_text(), ensure_author(session, "bob"))
    engine.dispose()
    season = run_arena("-q", "season", "run", "--games", "3", "--players", "3", "--bosses", "trader", db=db)
    assert season.returncode == 0, season.stderr
    return db


@pytest.fixture
def ladder(played: Path, tmp_path: Path) -> Path:
    """A private copy of the played ladder (the file is shared by the module's tests)."""
    db = tmp_path / "ladder.sqlite"
    with sqlite3.connect(played) as source, sqlite3.connect(db) as target:
        source.backup(target)
    return db


def test_bots_lists_every_format_best_first(ladder: Path) -> None:
    db = ladder
    listed = run_arena("bots", db=db)
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.strip().splitlines()
    assert header.split() == ["bot", "author", "version", "versions", "classic", "(games)", "duel", "(games)",
                              "solo", "(games)"]
    board = json.loads(run_arena("leaderboard", "--json", db=db).stdout)
    assert [row.split()[0] for row in rows] == [r["name"] for r in board]  # the classic board's order
    alpha = next(row.split() for row in rows if row.startswith("alpha "))
    assert alpha[:4] == ["alpha", "ann", "2", "2"]  # current version 2 of 2
    score = next(r for r in board if r["name"] == "alpha")
    # three games: listed as new (not ranked yet, arena.ladder.rankings.RANKED_AFTER); no duel or solo games
    assert score["provisional"] and score["games"] == 3
    assert alpha[4:7] == [f"{score['score']:.2f}", f"({score['games']},", "new)"] and alpha[7:] == ["-", "-"]


def test_play_takes_a_ladder_bot_by_name_or_version(ladder: Path) -> None:
    db = ladder
    game = run_arena("play", "alpha@1", "beta", "trader", "--json", db=db)
    assert game.returncode == 0, game.stderr
    seats = json.loads(game.stdout)["seats"]
    assert [s["name"] for s in seats] == ["alpha@1", "beta@1", "trader_bot"] and {s["status"] for s in seats} == {"ok"}
    current = run_arena("play", "alpha", "beta", "greedy", "--json", db=db)
    assert [s["name"] for s in json.loads(current.stdout)["seats"]][0] == "alpha@2"
    missing = run_arena("play", "alpha@9", "beta", "trader", db=db)
    assert missing.returncode == 2 and missing.stderr.strip() == "Error: bot 'alpha' has no version '9' (it has 1, 2)"
    unknown = run_arena("play", "gamma", "beta", "trader", db=db)
    assert unknown.returncode == 2 and unknown.stderr.strip().startswith(
        "Error: no bot 'gamma': not a file, not a built-in bot")
    in_process = run_arena("play", "alpha", "beta", "trader", "--in-process", "--unsafe", db=db)
    assert in_process.returncode == 2
    assert in_process.stderr.strip() == "Error: bots of the ladder run in the sandbox only: drop --in-process"


def test_a_retired_bot_leaves_the_boards_and_seasons_and_can_come_back(ladder: Path) -> None:
    db = ladder
    retired = run_arena("bots", "retire", "beta", "--author", "bob", db=db)
    assert retired.returncode == 0 and retired.stdout.strip() == (
        "beta retired (version 1 was current); its games stay on the site")
    again = run_arena("bots", "retire", "beta", "--author", "bob", db=db)
    assert again.returncode == 2 and again.stderr.strip() == "Error: bot 'beta' is retired already"
    unknown = run_arena("bots", "retire", "nobody", db=db)
    assert unknown.returncode == 2 and unknown.stderr.strip() == "Error: no bot named 'nobody' on this ladder"
    assert "beta" not in [r["name"] for r in json.loads(run_arena("leaderboard", "--json", db=db).stdout)]
    beta_row = next(line.split() for line in run_arena("bots", db=db).stdout.splitlines() if line.startswith("beta "))
    assert beta_row[:4] == ["beta", "bob", "retired", "1"]
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        register(session, "gamma", (BOTS / "greedy_bot.py").read_text() + "\n# gamma\n", ensure_author(session, "cy"))
    engine.dispose()
    season = run_arena("-q", "season", "run", "--name", "after", "--games", "3", "--players", "3", db=db)
    assert season.returncode == 0, season.stderr
    shown = run_arena("season", "show", "after", db=db).stdout
    assert "gamma" in shown and "beta" not in shown  # a retired bot is not scheduled
    back = run_arena("submit", str(BOTS / "random_bot.py"), "--name", "beta", "--author", "bob", db=db)
    assert back.returncode == 0 and "beta version 2 registered" in back.stdout, back.stderr
