"""The living ladder's placement (arena/ladder/matchmaking.py ``Matchmaker.placement``) and its planner
(arena/ladder/live.py, live_seasons.py), on real SQLite rows: a new version anchors its format's tables until it has
``ranked_after`` games, facing the top, the middle and the bottom of the board;
authors and flagged pairs hold as at any table."""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from arena.submissions.accounts import ensure_author
from arena.db import BotVersion, Match, MatchSeat, MatchStatus, Season, make_engine, stored_id
from arena.formats import format_of
from arena.ladder.live_seasons import LiveSettings, live_season_name, prepare_live
from arena.ladder.matchmaking import Candidate, Matchmaker
from arena.ladder.planning import Planner
from arena.ladder.rankings import load_book
from arena.ladder.ratings import RatingBook, Skill
from arena.submissions.versions import register

BOTS = Path(__file__).resolve().parents[2] / "bots"


def board(count: int) -> list[Candidate]:
    """``count`` bots of their own authors, version ids 1..count, the lower id the higher score."""
    return [Candidate(i, Skill(40.0 - i, 1.0, 50), 10, f"author{i}") for i in range(1, count + 1)]


def test_a_newcomer_meets_one_bot_from_each_band_of_the_board() -> None:
    candidates = board(12) + [Candidate(99, Skill(25.0, 8.3, 0), 0, "new")]
    seen: Counter[int] = Counter()
    for seed in range(200):
        table = Matchmaker(random.Random(seed)).placement(99, candidates, 5, frozenset())
        assert 99 in table and len(table) == len(set(table)) == 5
        others = sorted(v for v in table if v != 99)
        # four bands of three (ids 1-3, 4-6, 7-9, 10-12): one seat from each
        assert [(v - 1) // 3 for v in others] == [0, 1, 2, 3], table
        seen.update(others)
    assert set(seen) == set(range(1, 13))  # every bot of the board is met in some placement game


def test_placement_keeps_authors_and_flagged_pairs_apart() -> None:
    candidates = board(6) + [Candidate(99, Skill(25.0, 8.3, 0), 0, "author1")]  # the top bot's author
    flagged = {frozenset((99, 2))}
    for seed in range(100):
        table = Matchmaker(random.Random(seed)).placement(99, candidates, 3, flagged)
        assert 99 in table and 1 not in table and 2 not in table and len(table) == 3


def ladder(tmp_path: Path, names: tuple[str, ...] = ("ann", "bob", "cy", "dee")) -> str:
    """A database of one greedy copy per author and the live seasons of ``LiveSettings()``."""
    url = f"sqlite:///{tmp_path / 'live.sqlite'}"
    engine = make_engine(url)
    with Session(engine) as session:
        for name in names:
            register(session, f"{name}bot", (BOTS / "greedy_bot.py").read_text() + f"# {name}\n",
                     ensure_author(session, name))
    prepare_live(engine, LiveSettings())
    engine.dispose()
    return url


def test_prepare_live_makes_one_live_season_per_format_and_keeps_them(tmp_path: Path) -> None:
    url = ladder(tmp_path)
    engine = make_engine(url)
    prepare_live(engine, LiveSettings())  # the same command again changes nothing
    with Session(engine) as session:
        seasons = {s.name: s for s in session.exec(select(Season)).all()}
        assert set(seasons) == {"live-classic", "live-duel", "live-solo"}
        assert all(s.live for s in seasons.values())
        assert seasons["live-classic"].games == 0 and seasons["live-solo"].games == format_of("solo").season_games
        batch = Season(name="b-classic", variant="classic", games=5, min_players=3, max_players=3, seed=1)
        session.add(batch)
        session.commit()
    from arena.ladder.planning import LadderError
    with pytest.raises(LadderError, match="'b-classic' is a batch season"):
        prepare_live(engine, LiveSettings(name="b", variants=("classic",)))
    engine.dispose()


def test_a_live_planner_plans_on_and_counts_its_games(tmp_path: Path) -> None:
    url = ladder(tmp_path)
    engine = make_engine(url)
    with Session(engine) as session:
        season = session.exec(select(Season).where(Season.name == live_season_name("live", "classic"))).one()
        planner = Planner(session, season, load_book(session, "classic"))
        for _ in range(30):  # far past any batch season's end: a live season never runs out of tables
            table = planner.plan()
            assert table
        assert season.games == planner.number == session.exec(select(Match)).all().__len__()
    engine.dispose()


def test_a_paused_version_takes_no_seat_and_a_new_one_enters_the_same_planner(tmp_path: Path) -> None:
    url = ladder(tmp_path)
    engine = make_engine(url)
    with Session(engine) as session:
        season = session.exec(select(Season).where(Season.name == "live-classic")).one()
        planner = Planner(session, season, load_book(session, "classic"))
        sick = session.exec(select(BotVersion).where(BotVersion.number == 1)).first()
        assert sick is not None
        sick.paused = "its latest 5 games all failed"
        session.add(sick)
        session.commit()
        register(session, "eve_bot", (BOTS / "trader_bot.py").read_text(), ensure_author(session, "eve"))
        new = session.exec(select(BotVersion).order_by(col(BotVersion.id).desc())).first()
        assert new is not None
        planner.refresh()
        assert new.id in planner.book.priors  # the book knows where the newcomer starts
        seated = Counter(row.version_id for row in session.exec(select(MatchSeat)).all())
        for _ in range(20):
            planner.plan(placing=new.id)
        seats = Counter(row.version_id for row in session.exec(select(MatchSeat)).all()) - seated
        assert sick.id not in seats
        tables = {m.table for m in session.exec(select(Match)).all()}
        assert seats[new.id] == sum(1 for m in session.exec(select(Match)).all())  # in every game
        assert len(tables) == 20
    engine.dispose()


def test_a_live_seasons_guard_feeds_a_new_bot_for_a_while_not_for_its_whole_history(tmp_path: Path) -> None:
    """An old live season (8 bots, 300 seats each): a new bot takes the first seat until it has half the mean of
    the season's latest seats, a few dozen tables, not until half the veterans' seats of all time (the whole
    history: every table of the 150 here); a veteran's new version goes on from its bot's count, with no run of
    first seats (the guard counted it from zero before)."""
    names = ("ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy")
    engine = make_engine(ladder(tmp_path, names))
    with Session(engine) as session:
        season = session.exec(select(Season).where(Season.name == "live-classic")).one()
        season.min_players, season.max_players, season.rotate = 3, 3, False
        versions = {v.bot_id: stored_id(v) for v in session.exec(select(BotVersion)).all()}
        veterans, newcomer = list(versions.values())[:8], list(versions.values())[8]
        history = [Match(season_id=stored_id(season), number=k, table=k, seed=k, rules_id="classic-v1",
                         status=MatchStatus.DONE) for k in range(800)]
        session.add_all(history)
        session.flush()
        session.add_all(MatchSeat(match_id=stored_id(m), seat=s, version_id=veterans[(k + s * 3) % 8])
                        for k, m in enumerate(history) for s in range(3))
        season.games = 800
        session.commit()
        planner = Planner(session, season, load_book(session, "classic"))
        settled = {v: Skill(25.0, 1.0, 50) for v in versions.values()}  # the guard alone sets who sits where
        planner.book = RatingBook(settled)

        def tables(count: int) -> list[list[int]]:
            return [list(planner.plan()[0].versions) for _ in range(count)]

        first = tables(150)
        assert all(newcomer in t for t in first[:40])  # fed: the guard still seats it first while it starves
        assert sum(newcomer in t for t in first) <= 110  # then about its share (a third); before: all 150
        seats = planner.seats  # a ladder that grows takes more of the season's latest seats, one that shrinks fewer
        seats.fit(40)
        assert seats.window is not None and len(seats.window) == 800 * 3 + 150 * 3 == sum(seats.counts.values())
        seats.fit(9)
        assert len(seats.window) == 900 == sum(seats.counts.values())
        ann = register(session, "annbot", (BOTS / "greedy_bot.py").read_text() + "CHANGED = 1\n",
                       ensure_author(session, "ann"))
        assert ann.new
        fresh = stored_id(ann.version)
        planner.book.priors[fresh] = Skill(25.0, 1.0, 50)
        later = tables(45)
    assert sum(fresh in t for t in later) <= 30  # about a third; before: all 45
    engine.dispose()
