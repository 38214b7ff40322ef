"""The integrity audit on real tables: sandboxed seasons (`arena season run`, 2 workers, the strong
tier) with a colluding pair of tests/sandbox/hostile/colluder.py entered under two authors, with a
kingmaker, and with honest example bots only; then `arena audit`, the planner, the site and
`arena audit clear` on what they recorded."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from arena.submissions.accounts import ensure_author
from arena_helpers import colluder_source, fix_seed_key, present, run_arena
from sqlmodel import Session, select

from arena.audit.stats import PairFinding, flows_from_json, trade_flows
from arena.audit.words import season_audit_lines
from arena.db import AuditFlag, Bot, BotVersion, Match, MatchSeat, Season, make_engine
from arena.ladder.seasons import SeasonProgress, SeasonSettings, run_season
from arena.submissions.versions import register, register_bosses
from engine.replay import Replay
from sandbox import Limits, Tier, detect_tier

PROJECT = Path(__file__).resolve().parents[2]
STRONG = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG:
    raise RuntimeError("CI without the strong sandbox tier: the audit's hostile seasons must run there")
pytestmark = pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")

# Season lengths: with the fixed seed key every verdict below holds with a wide margin at these lengths
# (measured: a feeder's t 11.2 against a threshold of 4.1 after 24 games; a kingmaker gives 6.5 times what
# the others do; a part-time feeder's big games at z 4.0 after 30, every other direction's at 0); the
# honest season stays the longest, as more games would show a bias between honest bots more clearly.
SEASON_GAMES = "40"
COLLUDED_GAMES, KINGMAKER_GAMES, PART_TIME_GAMES = "24", "24", "30"
FEEDER, PARTNER = "sunflower", "marigold"  # names that say nothing of what the bots do
#: the ladder after the colluded season, the season's progress record, and the flags its audit stored
Colluded = tuple[Path, SeasonProgress, list[tuple[str, str]]]
FED_LINE = (f"audit: {FEEDER} gave away value to {PARTNER}; {PARTNER} received value from {FEEDER} (not necessarily by "
            f"its own doing); they are no longer seated together")




def ladder(folder: Path, entries: dict[str, tuple[str, str]]) -> Path:
    """A database with the bosses random, greedy and trader and ``entries`` (name -> (author, source))."""
    db = folder / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register_bosses(session, ["random", "greedy", "trader"])
        for name, (author, source) in entries.items():
            register(session, name, source, ensure_author(session, author))
    engine.dispose()
    fix_seed_key(db)  # the same deals every run (with --seed): the verdicts do not rest on a fresh key
    return db


def season(db: Path, name: str, games: str = SEASON_GAMES, workers: str = "2") -> str:
    """Run a season; its standard error (the progress, and what the audit at its end flagged). With one
    worker the tables are planned in one order whatever the load (two finish in either order)."""
    result = run_arena("season", "run", "--name", name, "--games", games, "--workers", workers, "--seed", "7",
                       db=db, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def audit_json(db: Path, *args: str) -> dict:
    result = run_arena("audit", "--json", *args, db=db)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def tables_of(db: Path, season_name: str) -> list[set[str]]:
    from arena.db import Bot, BotVersion

    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        rows = session.exec(select(Match.id, Bot.name).where(
            Match.season_id == Season.id, Season.name == season_name, MatchSeat.match_id == Match.id,
            MatchSeat.version_id == BotVersion.id, BotVersion.bot_id == Bot.id)).all()
    engine.dispose()
    tables: dict[int, set[str]] = {}
    for match_id, bot in rows:
        tables.setdefault(present(match_id), set()).add(bot)
    return list(tables.values())


@pytest.fixture(scope="module")
def colluded(tmp_path_factory: pytest.TempPathFactory) -> Colluded:
    """A ladder after a season (``run_season``, as every path runs one) in which a feeder and its partner (two
    authors) played with the bosses, its flags taken away again so that each test audits itself; the season's
    progress record and the flags its own audit at its end had stored."""
    db = ladder(tmp_path_factory.mktemp("colluded"), {FEEDER: ("Ann", colluder_source("feeder")),
                                                     PARTNER: ("Bob", colluder_source("partner"))})
    engine = make_engine(f"sqlite:///{db}")
    progress = run_season(engine, SeasonSettings(name="spring", games=int(COLLUDED_GAMES), seed=7), 2, Limits(),
                          Tier.STRONG)
    with Session(engine) as session:  # as if the season had ended before its audit: each test audits itself
        names = {bot.id: bot.name for bot in session.exec(select(Bot)).all()}
        stored = []
        for flag in session.exec(select(AuditFlag)).all():
            stored.append((names[flag.bot_a], names[flag.bot_b]))
            session.delete(flag)
        session.commit()
    engine.dispose()
    return db, progress, stored


def copy_of(db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ladder.sqlite"
    shutil.copy(db, copy)
    return copy


@pytest.fixture(scope="module")
def audited(colluded: Colluded, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A copy of the colluded ladder after one `arena audit --json` (it stored the flag), and that report."""
    db = copy_of(colluded[0], tmp_path_factory.mktemp("audited"))
    return db, audit_json(db)


def test_a_season_audits_itself_at_its_end_and_stores_the_flag(colluded: Colluded) -> None:
    _, progress, stored = colluded
    assert progress.audited is not None and progress.audited.games == progress.done == int(COLLUDED_GAMES)
    pairs = [finding.bots for finding in progress.flagged if isinstance(finding, PairFinding)]
    assert len(progress.flagged) == 1 and pairs == [(PARTNER, FEEDER)] == stored
    summary, *flags = season_audit_lines("spring", progress.audited, progress.flagged)
    assert summary.startswith(f"audit of season spring: {COLLUDED_GAMES} games audited, ") and "1 new flag" in summary
    assert flags == [FED_LINE + " ('arena audit --season spring' shows the evidence); the games they shared are not "
                     "rated"]  # by giver and receiver


def test_the_audit_flags_a_colluding_pair_of_two_authors_and_nobody_else(colluded: Colluded,
                                                                          audited: tuple[Path, dict],
                                                                          tmp_path: Path) -> None:
    together = sum(1 for t in tables_of(colluded[0], "spring") if {FEEDER, PARTNER} <= t)
    assert together >= 15, f"the pair shared only {together} tables"
    db, report = copy_of(audited[0], tmp_path), audited[1]  # the first audit of the season's games
    pairs = {tuple(p["bots"]): p for p in report["pairs"]}
    assert report["games"] == int(COLLUDED_GAMES)
    assert pairs[(PARTNER, FEEDER)]["flagged"] is True
    assert [b for b, p in pairs.items() if p["flagged"]] == [(PARTNER, FEEDER)]
    flow = pairs[(PARTNER, FEEDER)]["flow"][f"{FEEDER}->{PARTNER}"]
    assert flow["t"] >= pairs[(PARTNER, FEEDER)]["t_threshold"] and flow["margin_per_game"] > 1.0
    assert report["newly_flagged"] == [[PARTNER, FEEDER]]
    assert audit_json(db)["newly_flagged"] == []  # flagged once, not again
    text = run_arena("audit", db=db)
    assert text.returncode == 0 and "FLAGGED" in text.stdout and f"{PARTNER} / {FEEDER}" in text.stdout


def test_a_flagged_pair_never_shares_a_table_until_it_is_cleared(audited: tuple[Path, dict], tmp_path: Path) -> None:
    db = copy_of(audited[0], tmp_path)
    season(db, "summer", "12", workers="1")
    summer = tables_of(db, "summer")
    assert len(summer) == 12 and not [t for t in summer if {FEEDER, PARTNER} <= t]
    listed = run_arena("audit", "list", db=db)
    assert listed.returncode == 0 and "standing" in listed.stdout
    cleared = run_arena("audit", "clear", FEEDER, PARTNER, db=db)
    assert cleared.returncode == 0, cleared.stderr
    assert "cleared" in run_arena("audit", "list", db=db).stdout
    again = audit_json(db)  # the old games no longer count for this pair, and it shared none since (the partner,
    # a receiver, is seated first while it has fewer seats than the mean: the begging bot may now get greedy flagged)
    assert not any(p["flagged"] for p in again["pairs"] if set(p["bots"]) == {FEEDER, PARTNER})
    assert [FEEDER, PARTNER] not in again["newly_flagged"] and [PARTNER, FEEDER] not in again["newly_flagged"]
    autumn = season(db, "autumn", "30", workers="1")  # enough games together for the flag to come back
    assert [t for t in tables_of(db, "autumn") if {FEEDER, PARTNER} <= t], "a cleared pair is seated again"
    assert FED_LINE in autumn  # and its new games flag it again
    assert run_arena("audit", "clear", FEEDER, PARTNER, db=db).returncode == 0
    refused = run_arena("audit", "clear", FEEDER, PARTNER, db=db)
    assert refused.returncode != 0 and "not flagged" in refused.stderr and "Traceback" not in refused.stderr
    unknown = run_arena("audit", "--season", "winter", db=db)
    assert unknown.returncode != 0 and "no season 'winter'" in unknown.stderr and "Traceback" not in unknown.stderr


def test_the_site_shows_flagged_pairs_on_their_page_and_on_both_bots_pages(audited: tuple[Path, dict],
                                                                           tmp_path: Path) -> None:
    db = copy_of(audited[0], tmp_path)
    out = tmp_path / "site"
    result = run_arena("site", "build", "--out", str(out), db=db)
    assert result.returncode == 0, result.stderr
    page = (out / "audit.html").read_text()
    assert FEEDER in page and PARTNER in page and "standing" in page
    assert 'href="audit.html"' in (out / "index.html").read_text()
    flagged_pages = [p for p in (out / "bots").glob("[0-9]*.html") if 'class="audit-flags"' in p.read_text()]
    names = sorted(FEEDER if FEEDER in p.read_text().split("<h1>")[1][:80] else PARTNER for p in flagged_pages)
    assert names == sorted([FEEDER, PARTNER])
    for bot_page in flagged_pages:  # the flag is the feeder's; its partner received
        text = html.unescape(bot_page.read_text())
        name = FEEDER if FEEDER in text.split("<h1>")[1][:80] else PARTNER
        assert (f"{FEEDER} gave away value to" if name == FEEDER else f"{PARTNER} received value from") in text


@pytest.fixture(scope="module")
def kingmade(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A ladder after a season in which a kingmaker gave its hand to whoever was active (the bosses, honest),
    and that season's standard error."""
    db = ladder(tmp_path_factory.mktemp("kingmade"), {"saint": ("Eve", colluder_source("kingmaker"))})
    return db, season(db, "gifts", KINGMAKER_GAMES)


def test_a_kingmaker_is_named_a_giver(kingmade: tuple[Path, str], tmp_path: Path) -> None:
    db = copy_of(kingmade[0], tmp_path)
    with Session(make_engine(f"sqlite:///{db}")) as session:  # the flows each worker counted live are the
        # replay's, played again: the audit reads them instead of playing every game again
        stored = [(m.flows or "", m.replay or "") for m in session.exec(select(Match)).all() if m.replay]
    assert len(stored) == int(KINGMAKER_GAMES)
    assert sum(1 for flows, _ in stored if flows != "[]") >= int(KINGMAKER_GAMES) // 2
    for flows, replay in stored:
        assert flows_from_json(flows) == trade_flows(Replay.loads(replay))
    report = audit_json(db)
    assert [g["bot"] for g in report["givers"]] == ["saint"]
    giver = report["givers"][0]
    assert giver["given_per_game"] >= 3 * giver["others_per_game"]
    assert "giver: saint" in run_arena("audit", db=db).stdout


RECEIVED = "received value from saint (not necessarily by its own doing)"


def page_text(page: Path) -> str:
    """A built page's text as a reader sees it: tags out, entities read, white space folded."""
    return html.unescape(" ".join(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")).split()))


def test_a_one_way_flag_is_the_givers_and_its_receiver_is_not_accused(kingmade: tuple[Path, str],
                                                                      tmp_path: Path) -> None:
    """The kingmaker feeds an honest boss (trader, which takes the gifts that help it) until the pair is flagged:
    every place the flag shows says who gave and who received, and the pair is still kept apart."""
    from arena.audit.store import kept_apart

    assert f"audit: saint gave away value to trader; trader {RECEIVED}; they are no longer seated together" \
        in kingmade[1]  # the season's own audit, at its end
    db = copy_of(kingmade[0], tmp_path)
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        for flag in session.exec(select(AuditFlag)).all():  # as if the season had ended before its audit
            session.delete(flag)
        session.commit()
    engine.dispose()
    report = audit_json(db)
    pair = next(p for p in report["pairs"] if p["bots"] == ["saint", "trader"])
    assert pair["flagged"] is True and pair["flagged_givers"] == ["saint"]
    assert pair["flow"]["saint->trader"]["flagged"] is True and pair["flow"]["trader->saint"]["flagged"] is False
    assert report["newly_flagged"] == [["saint", "trader"]]
    assert [p["flagged_givers"] for p in report["pairs"] if p["flagged"] and "trader" in p["bots"]] == [["saint"]]
    text = run_arena("audit", db=db).stdout
    assert f"flagged: saint gave away value to trader; trader {RECEIVED}" in text and "FLAGGED: saint gave" in text
    assert "trader gave" not in text and "trader and saint" not in text and "saint and trader" not in text, text
    listed = run_arena("audit", "list", db=db).stdout
    assert f"saint gave away value to trader; trader {RECEIVED}" in listed and "standing" in listed, listed
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:  # the anti-collusion guarantee stands: the pair is never seated together
        ids = {b.name: present(b.id) for b in session.exec(select(Bot)).all()}
        versions = {v.bot_id: present(v.id) for v in session.exec(select(BotVersion)).all()}
        assert frozenset((versions[ids["saint"]], versions[ids["trader"]])) in kept_apart(session)
    engine.dispose()
    out = tmp_path / "site"
    built = run_arena("site", "build", "--out", str(out), db=db)
    assert built.returncode == 0, built.stderr
    audit_page = page_text(out / "audit.html")
    assert f"saint gave away value to trader; trader {RECEIVED}." in audit_page
    saint, trader = (page_text(out / "bots" / f"{ids[name]}.html") for name in ("saint", "trader"))
    assert "saint gave away value to trader:" in saint and "standing" in saint
    assert f"trader {RECEIVED}:" in trader and "never seated together with saint" in trader
    assert 'class="flag-received"' in (out / "bots" / f"{ids['trader']}.html").read_text()
    assert "gave away value" not in trader and "Flagged by" not in trader
    assert "trader->saint:" not in trader  # the numbers shown are those of the direction that flagged it


def test_a_feeder_that_feeds_in_a_third_of_its_games_stands_out_by_its_big_games(tmp_path: Path) -> None:
    """A part-time feeder keeps its mean under the margin; its big games set it apart from every other
    direction. (It is flagged in 12 of 30 seasons of 100 games: docs/benchmarks.md.)"""
    db = ladder(tmp_path, {FEEDER: ("Ann", colluder_source("sometimes")), PARTNER: ("Bob", colluder_source("partner"))})
    season(db, "part-time", PART_TIME_GAMES)
    report = audit_json(db)
    directions = [(p, name, d) for p in report["pairs"] for name, d in p["flow"].items()]
    pair, _, fed = next(x for x in directions if x[1] == f"{FEEDER}->{PARTNER}")
    assert fed["t"] < pair["t_threshold"]  # its mean does not give it away
    assert fed["big_games"] >= 3
    assert max(d["big_games_z"] for p, name, d in directions if name != f"{FEEDER}->{PARTNER}") < fed["big_games_z"]


def test_seasons_of_honest_example_bots_flag_nobody(tmp_path: Path) -> None:
    greedy = (PROJECT / "bots" / "greedy_bot.py").read_text(encoding="utf-8")
    trader = (PROJECT / "bots" / "trader_bot.py").read_text(encoding="utf-8")
    db = ladder(tmp_path, {"copper": ("Cy", trader + "\n# Cy's copy\n"), "tin": ("Di", greedy + "\n# Di's copy\n")})
    assert "audit:" not in season(db, "honest")
    report = audit_json(db)
    assert report["games"] == int(SEASON_GAMES) and len(report["pairs"]) == 10
    assert [p["bots"] for p in report["pairs"] if p["flagged"]] == [] and report["givers"] == []
