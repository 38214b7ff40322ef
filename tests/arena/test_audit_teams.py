"""The audit's team test on real tables (issue 41, item 2: Sybil feeders): a sandboxed season (`arena season run`,
the strong tier, a fixed seed and seed key) in which three feeders under three authors each feed one partner in
about a third of their games (tests/sandbox/hostile/colluder.py, roles ``teamfeeder`` and ``teampartner``); its
harmless twin seats honest bots of three authors in the feeders' seats."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from arena.submissions.accounts import ensure_author
from arena_helpers import colluder_source, fix_seed_key, present, run_arena
from sqlmodel import Session, select

from arena.db import AuditFlag, Bot, BotVersion, make_engine
from arena.submissions.versions import register, register_bosses
from sandbox import Tier, detect_tier

PROJECT = Path(__file__).resolve().parents[2]
STRONG = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG:
    raise RuntimeError("CI without the strong sandbox tier: the audit's hostile seasons must run there")
pytestmark = pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")

# Season length, measured with the fixed seed and seed key: at 30 games the partner plays 26, 10 of them big
# games (z 4.9 against a bound of 3.2; its mean: t 2.1 against 3.6) and the three feeders are named over 13-22
# shared games; no pair comes near its bounds (largest big-games z 0.8 against 3.7); the twin's partner has no
# big game (t -5.1 against 3.6). At 24 games the verdicts were the same (z 4.7 against 3.2), with one feeder
# named over only 9 shared games: 30 keeps slack for the order in which two workers finish their tables.
SEASON_GAMES = "30"
FEEDERS = ("aster", "clover", "daisy")  # names that say nothing of what the bots do
PARTNER = "yarrow"
AUTHORS = {"aster": "Ann", "clover": "Bea", "daisy": "Cy", PARTNER: "Dot"}


def ladder(folder: Path, feeders: bool) -> Path:
    """The bosses random, greedy and trader, the partner, and in the feeders' seats the team feeders (``feeders``)
    or honest copies of the trader and greedy bots, each under its own author."""
    trader = (PROJECT / "bots" / "trader_bot.py").read_text(encoding="utf-8")
    greedy = (PROJECT / "bots" / "greedy_bot.py").read_text(encoding="utf-8")
    honest = {"aster": trader + "\n# Ann's copy\n", "clover": greedy + "\n# Bea's copy\n",
              "daisy": trader + "\n# Cy's copy\n"}
    db = folder / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register_bosses(session, ["random", "greedy", "trader"])
        for name in FEEDERS:
            register(session, name, colluder_source("teamfeeder") if feeders else honest[name],
                     ensure_author(session, AUTHORS[name]))
        register(session, PARTNER, colluder_source("teampartner"), ensure_author(session, AUTHORS[PARTNER]))
    engine.dispose()
    fix_seed_key(db)
    return db


def season(db: Path) -> str:
    result = run_arena("season", "run", "--name", "spring", "--games", SEASON_GAMES, "--workers", "2", "--seed", "7",
                       db=db, timeout=1200)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def audit_json(db: Path) -> dict:
    result = run_arena("audit", "--json", db=db)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def delete_flags(db: Path) -> None:
    """As if the season had ended before its audit: the test audits itself."""
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        for flag in session.exec(select(AuditFlag)).all():
            session.delete(flag)
        session.commit()
    engine.dispose()


def test_three_part_time_feeders_of_three_authors_are_named_a_team_and_kept_apart_from_their_partner(
        tmp_path: Path) -> None:
    from arena.audit.store import kept_apart

    db = ladder(tmp_path, feeders=True)
    stderr = season(db)
    team_line = (f"audit: aster, clover and daisy gave away value to {PARTNER}; {PARTNER} received value from them "
                 f"(not necessarily by its own doing); none of them is seated with {PARTNER} again")
    assert team_line in stderr, stderr[-2000:]  # the season's own audit, at its end
    delete_flags(db)
    report = audit_json(db)
    assert [p["bots"] for p in report["pairs"] if p["flagged"]] == []  # no pair stands out on its own
    flagged = [t for t in report["teams"] if t["flagged"]]
    assert [(t["receiver"], t["givers"]) for t in flagged] == [(PARTNER, ["aster", "clover", "daisy"])]
    team = flagged[0]
    # the statistic against its bound (the margin is stated in docs/audit.md)
    assert team["big_games_z"] >= team["big_games_z_threshold"] or team["t"] >= team["t_threshold"]
    assert team["margin_per_game"] > report["team_margin"]
    assert report["newly_flagged"] == [] and report["newly_flagged_teams"] == [
        {"receiver": PARTNER, "givers": ["aster", "clover", "daisy"]}]
    assert audit_json(db)["newly_flagged_teams"] == []  # stored once
    text = run_arena("audit", db=db).stdout
    assert f"team flagged: aster, clover and daisy gave away value to {PARTNER}" in text, text
    listed = run_arena("audit", "list", db=db).stdout
    assert listed.count("standing") == 3 and listed.count("team, variant classic") == 3, listed
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:  # each giver of the team is kept apart from the receiver
        ids = {b.name: present(b.id) for b in session.exec(select(Bot)).all()}
        versions = {v.bot_id: present(v.id) for v in session.exec(select(BotVersion)).all()}
        apart = kept_apart(session)
    engine.dispose()
    assert {frozenset((versions[ids[f]], versions[ids[PARTNER]])) for f in FEEDERS} == apart
    out = tmp_path / "site"
    built = run_arena("site", "build", "--out", str(out), db=db)
    assert built.returncode == 0, built.stderr
    page = " ".join((out / "audit.html").read_text(encoding="utf-8").split())
    assert "gave away value to" in page and "Team test:" in page


def test_the_same_field_with_honest_bots_in_the_feeders_seats_flags_nobody(tmp_path: Path) -> None:
    db = ladder(tmp_path, feeders=False)
    assert "audit:" not in season(db)
    report = audit_json(db)
    assert [p["bots"] for p in report["pairs"] if p["flagged"]] == []
    assert [t["receiver"] for t in report["teams"] if t["flagged"]] == [] and report["givers"] == []
    partner = next(t for t in report["teams"] if t["receiver"] == PARTNER)
    assert partner["big_games_z"] < partner["big_games_z_threshold"] and partner["t"] < partner["t_threshold"]
