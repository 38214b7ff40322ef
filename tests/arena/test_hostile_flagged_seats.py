"""A bot the integrity audit flagged with most of the ladder (a kingmaker is flagged with the bots that take
its gifts, docs/audit.md) must not stop a season: the planner seats the others without it.

Before, a bot flagged with every bot but one could fit no table, so it starved; the starving bot anchored
every table, every try failed, and the fallback seated bots greedily in a random order: when it came first,
the table stayed short and `arena season run` stopped ("the pairs the audit flagged leave no table of 3
bots") though four bots that may share a table were active. An author could freeze the board that way.
The flags are stored as the audit stores them (tests/arena/test_audit.py shows the audit flagging such bots
from real games); the season is real: sandboxed bots, a SQLite ladder, the `arena` command."""
from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest
from arena_helpers import fix_seed_key, run_arena
from sqlmodel import Session, select

from arena.submissions.accounts import ensure_author
from arena.db import AuditFlag, Bot, make_engine, stored_id
from arena.ladder.matchmaking import Candidate, Matchmaker
from arena.ladder.ratings import Skill
from arena.submissions.versions import register, register_bosses
from sandbox import Tier, detect_tier

PROJECT = Path(__file__).resolve().parents[2]
STRONG = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG:
    raise RuntimeError("CI without the strong sandbox tier: the flagged ladder's season must run there")

FLAGGED, FREE = "fern", "moss"  # fern is flagged with every boss, moss with nobody
BOSSES = ("random", "greedy", "trader")


def test_the_matchmaker_finds_a_full_table_whenever_one_exists() -> None:
    """Bot 1 may sit with bot 5 only, so no table of 3 holds it; bots 2-5 fill tables of 3 and 4, never 5."""
    apart = {frozenset((1, other)) for other in (2, 3, 4)}
    for scheduled in (0, 12):  # bot 1 starving (it anchors the table), then played as much as the others
        candidates = [Candidate(1, Skill(25.0, 8.0), scheduled)] + [Candidate(v, Skill(25.0, 8.0), 12)
                                                                    for v in (2, 3, 4, 5)]
        for size in (3, 4, 5):
            for seed in range(100):
                table = Matchmaker(random.Random(seed)).table(candidates, size, apart)
                assert len(table) == min(size, 4), (scheduled, size, seed, table)
                assert not any(frozenset(pair) in apart for pair in ((a, b) for a in table for b in table))


@pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")
def test_a_bot_flagged_with_most_of_the_ladder_does_not_stop_the_season(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register_bosses(session, list(BOSSES))
        register(session, FLAGGED, (PROJECT / "bots" / "greedy_bot.py").read_text(encoding="utf-8"),
                 ensure_author(session, "ann"))
        register(session, FREE, (PROJECT / "bots" / "random_bot.py").read_text(encoding="utf-8"),
                 ensure_author(session, "bob"))
        ids = {bot.name: stored_id(bot) for bot in session.exec(select(Bot)).all()}
        for boss in BOSSES:
            a, b = sorted((ids[FLAGGED], ids[boss]))
            session.add(AuditFlag(bot_a=a, bot_b=b, scope="variant classic", evidence="{}"))
        session.commit()
    engine.dispose()
    fix_seed_key(db)  # with season seed 1: the first table drawn was the short one before the fix
    result = run_arena("season", "run", "--name", "s", "--games", "16", "--workers", "1", "--seed", "1", db=db,
                       timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    with sqlite3.connect(db) as con:
        statuses = [s for (s,) in con.execute("SELECT status FROM match")]
        seated = con.execute(
            "SELECT match.id, bot.name FROM matchseat JOIN match ON matchseat.match_id = match.id "
            "JOIN botversion ON matchseat.version_id = botversion.id JOIN bot ON botversion.bot_id = bot.id"
        ).fetchall()
    assert len(statuses) == 16 and set(statuses) == {"done"}, statuses
    tables: dict[int, set[str]] = {}
    for match_id, name in seated:
        tables.setdefault(match_id, set()).add(name)
    assert all(len(names) >= 3 for names in tables.values()), tables
    assert not any(FLAGGED in names and names & set(BOSSES) for names in tables.values()), tables
    assert any(FREE in names for names in tables.values())
