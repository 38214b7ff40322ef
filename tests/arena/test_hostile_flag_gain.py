"""A flag takes back what collusion won, and costs an honest receiver nothing (issue 41, items 1 and 3).

Real tables: sandboxed seasons through `arena season run` (one worker: the tables are planned and rated in one
order), a fixed seed key and season seed, real TrueSkill on a real SQLite ladder.
- A colluding pair (tests/sandbox/hostile/colluder.py) under two authors, flagged by the audit at the season's
  end: the games it shared count in nobody's rating from then on. Its twin is the honest trader boss (the partner
  is the trader plus a begging signature): the partner's score is the one recomputed from the recorded games
  without the shared ones, and it no longer ranks above the trader. `arena audit clear` gives the games back;
  `arena audit confirm` keeps them out and retires the feeder.
- A framed honest bot: three bots of three authors gave to it and were flagged with it (stored as the audit
  stores them, with their givers; tests/arena/test_audit.py shows the audit flagging a one-way giver from real
  games). In the next season it plays about as many games as its twin, the same bot under another author."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from arena_helpers import colluder_source, fix_seed_key, present, run_arena
from sqlmodel import Session, col, select

from arena.submissions.accounts import ensure_author
from arena.db import AuditFlag, Bot, BotVersion, Match, MatchSeat, MatchStatus, make_engine, stored_id
from arena.ladder.rankings import starting_skills
from arena.ladder.ratings import RatingBook
from arena.submissions.versions import register, register_bosses
from sandbox import Tier, detect_tier

PROJECT = Path(__file__).resolve().parents[2]
STRONG = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG:
    raise RuntimeError("CI without the strong sandbox tier: the flagged seasons must run there")
pytestmark = pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")

FEEDER, PARTNER = "sunflower", "marigold"
COLLUDED_GAMES = "40"  # the season; the audit flags the pair after 24 games already (tests/arena/test_audit.py)
FRAMED, TWIN = "rowan", "cedar"  # the same greedy bot under two authors; givers fed rowan
GIVERS = ("alder", "birch", "hazel")


def season(db: Path, name: str, games: str) -> str:
    result = run_arena("season", "run", "--name", name, "--games", games, "--workers", "1", "--seed", "7", db=db,
                       timeout=1200)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def board(db: Path) -> dict[str, dict]:
    result = run_arena("leaderboard", "--json", db=db)
    assert result.returncode == 0, result.stderr
    return {row["name"]: row for row in json.loads(result.stdout)}


def recomputed(db: Path, skip_pair: bool) -> dict[str, tuple[float, float, int]]:
    """Every version's classic rating recomputed here from the recorded games in their order, with real TrueSkill,
    leaving out (``skip_pair``) every game the feeder and its partner shared: (mu, sigma, games) by bot name."""
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        names = {stored_id(v): b.name for v, b in session.exec(select(BotVersion, Bot).where(
            BotVersion.bot_id == Bot.id)).all()}
        book = RatingBook(starting_skills(session, "classic"))
        for match in session.exec(select(Match).where(Match.status == MatchStatus.DONE)
                                  .order_by(col(Match.rated_order))).all():
            seats = session.exec(select(MatchSeat).where(MatchSeat.match_id == match.id)
                                 .order_by(col(MatchSeat.seat))).all()
            if skip_pair and {FEEDER, PARTNER} <= {names[s.version_id] for s in seats}:
                continue
            book.record([s.version_id for s in seats], [present(s.rank) for s in seats])
    engine.dispose()
    return {names[v]: (s.mu, s.sigma, s.games) for v, s in book.skills.items()}


def shared_games(db: Path) -> list[int]:
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        rows = session.exec(select(MatchSeat.match_id, Bot.name).where(
            MatchSeat.version_id == BotVersion.id, BotVersion.bot_id == Bot.id)).all()
    engine.dispose()
    seated: dict[int, set[str]] = {}
    for match_id, name in rows:
        seated.setdefault(match_id, set()).add(name)
    return sorted(m for m, names in seated.items() if {FEEDER, PARTNER} <= names)


def assert_rated_as(row: dict, want: tuple[float, float, int]) -> None:
    assert (row["mu"], row["sigma"], row["games"]) == (pytest.approx(want[0], abs=1e-3),
                                                      pytest.approx(want[1], abs=1e-3), want[2]), (row, want)


def rerate_differences(db: Path) -> str:
    result = run_arena("leaderboard", "--rerate", db=db)
    assert result.returncode == 0, result.stderr
    return result.stderr


@pytest.fixture(scope="module")
def flagged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A ladder (bosses random, greedy, trader; a greedy copy; the feeder and its partner under two authors: six
    bots, so that the partner also plays without its feeder) after a season whose
    audit, at its end, flagged the pair; and that season's standard error."""
    db = tmp_path_factory.mktemp("flagged") / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register_bosses(session, ["random", "greedy", "trader"])
        register(session, FEEDER, colluder_source("feeder"), ensure_author(session, "Ann"))
        register(session, PARTNER, colluder_source("partner"), ensure_author(session, "Bob"))
        greedy = (PROJECT / "bots" / "greedy_bot.py").read_text(encoding="utf-8")
        register(session, "tin", greedy + "\n# Di's copy\n", ensure_author(session, "Di"))  # room at tables
    engine.dispose()
    fix_seed_key(db)
    return db, season(db, "spring", COLLUDED_GAMES)


def copy_of(db: Path, folder: Path) -> Path:
    copy = folder / "ladder.sqlite"
    shutil.copy(db, copy)
    return copy


def test_a_flag_takes_back_what_the_pair_gained(flagged: tuple[Path, str], tmp_path: Path) -> None:
    db, stderr = flagged
    assert f"audit: {FEEDER} gave away value to {PARTNER}" in stderr and "not rated" in stderr
    shared = shared_games(db)
    assert len(shared) >= 10, shared
    after = board(db)
    without = recomputed(db, skip_pair=True)
    for name in (PARTNER, "trader", "greedy", "random"):  # exactly the ratings of the games not shared
        assert_rated_as(after[name], without[name])
    assert without[PARTNER][2] >= 1  # it played games without its feeder: it is rated on those alone
    assert after[PARTNER]["not_counted"] == len(shared)
    assert "0 ratings differed" in rerate_differences(db)  # the incremental path and the recompute agree
    before = recomputed(db, skip_pair=False)  # what the board showed before the flag
    score = {name: mu - 3 * sigma for name, (mu, sigma, _) in before.items()}
    print(f"partner before {score[PARTNER]:.2f} (rank {sorted(score, key=lambda n: -score[n]).index(PARTNER) + 1})"
          f", after {after[PARTNER]['score']:.2f} (rank {after[PARTNER]['rank']}); its twin, the trader: before "
          f"{score['trader']:.2f}, after {after['trader']['score']:.2f}")
    assert score[PARTNER] > score["trader"]  # what the feeding won ...
    assert after[PARTNER]["score"] < score[PARTNER] - 1.0  # ... is taken back
    assert after[PARTNER]["score"] <= after["trader"]["score"] + 1.0  # no better than its honest twin, within noise
    listed = run_arena("leaderboard", db=db).stdout
    assert f"{PARTNER}: {len(shared)} games not counted (audit)" in listed
    shown = run_arena("game", "show", str(shared[0]), db=db)
    assert shown.returncode == 0 and f"not rated: flagged pair {PARTNER}/{FEEDER}" in shown.stdout, shown.stdout
    out = tmp_path / "site"
    built = run_arena("site", "build", "--out", str(out), db=db)
    assert built.returncode == 0, built.stderr
    assert f"not rated: flagged pair {PARTNER}/{FEEDER}" in (out / "games" / f"{shared[0]}.html").read_text()
    assert f"{len(shared)} games not counted (audit)" in (out / "index.html").read_text()
    assert f"{len(shared)} games not rated" in (out / "audit.html").read_text()


def test_clear_gives_the_games_back_and_confirm_keeps_them_out_and_retires_the_giver(
        flagged: tuple[Path, str], tmp_path: Path) -> None:
    db = copy_of(flagged[0], tmp_path)
    after = board(db)
    cleared = run_arena("audit", "clear", FEEDER, PARTNER, db=db)
    assert cleared.returncode == 0, cleared.stderr
    again, every = board(db), recomputed(db, skip_pair=False)
    for name in (PARTNER, FEEDER, "trader"):
        assert_rated_as(again[name], every[name])
        assert again[name]["not_counted"] == 0
    assert "0 ratings differed" in rerate_differences(db)
    (tmp_path / "confirmed").mkdir()
    db = copy_of(flagged[0], tmp_path / "confirmed")
    confirmed = run_arena("audit", "confirm", FEEDER, PARTNER, db=db)
    assert confirmed.returncode == 0 and f"retired: {FEEDER}" in confirmed.stdout, confirmed.stderr
    kept = board(db)
    assert FEEDER not in kept and kept[PARTNER] == after[PARTNER] | {"rank": kept[PARTNER]["rank"]}
    assert "0 ratings differed" in rerate_differences(db)
    assert "confirmed" in run_arena("audit", "list", db=db).stdout
    refused = run_arena("audit", "clear", FEEDER, PARTNER, db=db)
    assert refused.returncode != 0 and "confirmed" in refused.stderr and "Traceback" not in refused.stderr
    twice = run_arena("audit", "confirm", FEEDER, PARTNER, db=db)
    assert twice.returncode != 0 and "Traceback" not in twice.stderr


def framed_ladder(db: Path) -> None:
    """The random and greedy bosses, the framed bot and its twin (greedy, two authors), three givers (random, three
    authors), each flagged with the framed bot as its giver: the framed bot may sit with three bots, never at a
    table of five."""
    greedy = (PROJECT / "bots" / "greedy_bot.py").read_text(encoding="utf-8")
    random_bot = (PROJECT / "bots" / "random_bot.py").read_text(encoding="utf-8")
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register_bosses(session, ["random", "greedy"])
        register(session, FRAMED, greedy + "\n# Rita's\n", ensure_author(session, "Rita"))
        register(session, TWIN, greedy + "\n# Cal's\n", ensure_author(session, "Cal"))
        for giver, author in zip(GIVERS, ("Gus", "Gil", "Gia")):
            register(session, giver, random_bot + f"\n# {author}'s\n", ensure_author(session, author))
        ids = {bot.name: stored_id(bot) for bot in session.exec(select(Bot)).all()}
        for giver in GIVERS:
            bots = sorted((giver, FRAMED))
            flow = {f"{giver}->{FRAMED}": {"flagged": True}, f"{FRAMED}->{giver}": {"flagged": False}}
            evidence = {"bots": bots, "flagged": True, "flagged_givers": [giver], "games": 12, "flow": flow}
            session.add(AuditFlag(bot_a=ids[bots[0]], bot_b=ids[bots[1]], scope="variant classic",
                                  evidence=json.dumps(evidence)))
        session.commit()
    engine.dispose()
    fix_seed_key(db)


def test_a_framed_receiver_keeps_its_share_of_games(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    framed_ladder(db)
    season(db, "after", "24")
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        rows = session.exec(select(MatchSeat.match_id, Bot.name).where(
            MatchSeat.version_id == BotVersion.id, BotVersion.bot_id == Bot.id)).all()
    engine.dispose()
    tables: dict[int, set[str]] = {}
    for match_id, name in rows:
        tables.setdefault(match_id, set()).add(name)
    games = {name: sum(1 for t in tables.values() if name in t)
             for name in (FRAMED, TWIN, "random", "greedy", *GIVERS)}
    fair = sum(games.values()) / len(games)  # seats per bot
    print(f"games in 24: {games}; a bot's fair share {fair:.1f}")
    assert len(tables) == 24
    assert not [t for t in tables.values() if FRAMED in t and t & set(GIVERS)]  # the givers are still kept away
    # its share: the givers are the ones that wait (the twin plays more: it fills the framed bot's smaller tables)
    assert games[FRAMED] >= 0.75 * fair and games[FRAMED] >= 0.45 * games[TWIN], games
