"""The Format registry: a format added from outside (tests/arena/formats/quick_format.py, loaded by
``$ARENA_FORMATS``) is played, submitted to, run as a season, ranked and published by the real
`arena` command, with no other module touched."""
from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from arena_helpers import db_url

from arena.db.columns import stored_text
from arena.formats import Format, default_format, format_of, formats, register
from sandbox import Tier, detect_tier
from forked_arena import arena_run

ROOT = Path(__file__).resolve().parents[2]
FORMATS_DIR = Path(__file__).resolve().parent / "formats"


def arena(*args: str, db: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ARENA_FORMATS="quick_format",
               PYTHONPATH=os.pathsep.join(filter(None, [str(FORMATS_DIR), os.environ.get("PYTHONPATH")])))
    return arena_run(["--db", db_url(db), *args], capture_output=True, text=True, timeout=timeout, env=env)


def test_the_built_in_formats_are_registered_in_order() -> None:
    assert [f.name for f in formats()] == ["classic", "duel", "solo"]
    assert format_of("classic-v1").name == "classic" and format_of("solo").same_deals
    assert [f.ranking.rated for f in formats()] == [True, True, False]
    with pytest.raises(ValueError, match="unknown variant 'quick'"):
        format_of("quick")  # only in the processes that load it


@pytest.mark.skipif(detect_tier() is not Tier.STRONG and os.environ.get("CI") != "true",
                    reason="submitted bots run in the strong tier only")
def test_a_registered_format_is_played_submitted_run_ranked_and_published(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    played = arena("play", "--variant", "quick", "--seed", "7", "random", "greedy", "trader", db=db)
    assert played.returncode == 0, played.stderr
    assert "quick-v1" in played.stdout + played.stderr

    bot = tmp_path / "mine.py"
    bot.write_text((ROOT / "bots" / "greedy_bot.py").read_text())
    assert arena("authors", "add", "ann", db=db).returncode == 0
    submitted = arena("submit", str(bot), "--name", "mine", "--author", "ann", db=db)
    assert submitted.returncode == 0, submitted.stderr
    assert "quick" in submitted.stdout  # a smoke game in every registered format, the new one included

    season = arena("season", "run", "--name", "q1", "--variant", "quick", "--games", "4", "--workers", "2",
                   "--bosses", "random,greedy", db=db)
    assert season.returncode == 0, season.stderr
    assert "season q1: 4 games rated, 0 void" in season.stdout
    with sqlite3.connect(db) as con:
        rules = {r for (r,) in con.execute("SELECT DISTINCT rules_id FROM match "
                                           "JOIN season ON match.season_id = season.id WHERE season.name = 'q1'")}
        stored = con.execute("SELECT replay FROM match WHERE status = 'done' LIMIT 1").fetchone()[0]
        replay = json.loads(stored_text(stored))  # stored compressed (schema 8)
    assert rules == {"quick-v1"} and replay["rules_id"] == "quick-v1"
    assert sum(e["type"] == "reshuffled" for e in replay["events"]) <= 1  # its own rule: one reshuffle

    board = arena("leaderboard", "--variant", "quick", "--json", "--rerate", db=db)
    assert board.returncode == 0, board.stderr
    assert "rerated quick: 0 ratings differed" in board.stderr
    rows = json.loads(board.stdout)
    assert {r["name"] for r in rows} == {"mine", "random", "greedy"} and sum(r["games"] for r in rows) == 12

    out = tmp_path / "site"
    site = arena("site", "build", "--out", str(out), db=db)
    assert site.returncode == 0, site.stderr
    page = (out / "quick.html").read_text()
    assert "mine" in page and 'href="quick.html"' in page  # its board, and its tab
    assert 'href="quick.html">Quick</a>' in (out / "index.html").read_text().replace("\n", "")  # the navigation
    assert json.loads((out / "leaderboard-quick.json").read_text())["variant"] == "quick"


def test_a_format_module_that_cannot_load_is_one_clear_line(tmp_path: Path) -> None:
    env = dict(os.environ, ARENA_FORMATS="no_such_format_module")
    result = arena_run(["--db", db_url(tmp_path / "x.sqlite"), "bots"], capture_output=True, text=True,
                            timeout=60, env=env)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "$ARENA_FORMATS: cannot load format module 'no_such_format_module'" in result.stderr


def test_a_format_names_its_smoke_opponents_and_leaves_the_registry_as_it_was() -> None:
    import dataclasses
    import random

    from arena.formats import Format, register, unregister
    from arena.ladder.rankings import WinRate
    from arena.submissions.smoke import SmokeTable
    from engine import classic_rules, rules_for

    rules = dataclasses.replace(classic_rules(), variant="lonely", version=3)
    register(Format("lonely", "Lonely", lambda: rules, WinRate(), smoke_opponents=("random",)))
    try:
        assert rules_for("lonely-v3") is rules and format_of("lonely").title == "Lonely"
        tables = [SmokeTable.draw("lonely", random.Random(k)) for k in range(20)]
        assert {o for t in tables for o in t.opponents} == {"random"}
        assert {len(t.opponents) + 1 for t in tables} <= {3, 4, 5} and tables[0].variant == "lonely"
        classic = {o for k in range(20) for o in SmokeTable.draw("classic", random.Random(k)).opponents}
        assert classic <= {"random", "greedy", "trader"} and len(classic) > 1
        with pytest.raises(ValueError, match="already registered"):
            register(Format("lonely", "Again", lambda: rules, WinRate()))
    finally:
        unregister("lonely")
    assert [f.name for f in formats()] == ["classic", "duel", "solo"]
    with pytest.raises(ValueError, match="unknown variant 'lonely'"):
        rules_for("lonely")


def test_one_format_is_the_default_and_no_second_can_claim_it() -> None:
    assert default_format().name == "classic" and format_of(None) is default_format()
    assert [f.name for f in formats() if f.default] == ["classic"]
    other = dataclasses.replace(format_of("classic").rules(), variant="other")
    second = Format("other", "Other", lambda: other, format_of("classic").ranking, default=True)
    with pytest.raises(ValueError, match="format 'other' cannot be the default: 'classic' is"):
        register(second)
    assert [f.name for f in formats()] == ["classic", "duel", "solo"]  # refused before anything was registered
