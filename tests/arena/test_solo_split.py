"""Kaggle's split on a board of the same deals (solo): half of a season's deals are public (their results show
while it is open), half private (they rank it, shown once it is closed); a bot plays each deal once, whichever
of its versions did, and a version entered while the season is open plays only private deals its bot has not
played: resubmitting is no new draw on deals whose results it saw. On real SQLite rows and the real planner."""
from __future__ import annotations

from pathlib import Path

from sqlmodel import Session, select

from arena.submissions.accounts import ensure_author
from arena.db import Bot, BotVersion, Match, MatchSeat, Season, make_engine, stored_id
from arena.ladder.planning import Planner, SeasonSettings, get_or_create_season
from arena.ladder.random_seeds import private_deals, solo_seeds
from arena.ladder.rankings import load_book
from arena.submissions.versions import register

BOTS = Path(__file__).resolve().parents[2] / "bots"


def test_the_split_is_half_and_half_and_stays_when_the_season_grows() -> None:
    for seed in range(20):
        seeds = solo_seeds(seed, 50)
        private = private_deals(seed, 50)
        assert len(private) == 25 and private <= set(seeds)
        assert all(len(private & set(seeds[k:k + 2])) == 1 for k in range(0, 50, 2))  # one of each two
        assert private_deals(seed, 20) == {s for s in private if seeds.index(s) < 20}  # a longer season keeps it
    assert len({private_deals(seed, 50) for seed in range(20)}) == 20  # each season its own split



def test_a_growing_season_turns_no_public_deal_private_and_only_an_odd_last_one_public() -> None:
    turned = 0
    for seed in range(100):
        for count in range(1, 10):
            before, after, seeds = private_deals(seed, count), private_deals(seed, count + 3), solo_seeds(seed, count)
            assert not {s for s in seeds if s not in before} & after  # its results were shown: never private
            moved = [k for k, s in enumerate(seeds) if s in before and s not in after]
            assert moved in ([], [count - 1]) and (not moved or count % 2 == 1), (seed, count, moved)
            turned += len(moved)
    assert 0 < turned < 500  # an odd last deal turns public about half the time (the pair's draw)


def planned_seeds(session: Session, version_id: int) -> set[int]:
    return set(session.exec(select(Match.seed).where(MatchSeat.match_id == Match.id,
                                                      MatchSeat.version_id == version_id)).all())


def plan_all(planner: Planner) -> None:
    planner.refresh()
    while planner.remaining():
        planner.plan()


def test_a_new_version_in_an_open_season_plays_only_private_deals_its_bot_has_not_played(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'solo.sqlite'}")
    with Session(engine) as session:
        actor = ensure_author(session, "ann")
        register(session, "annsolo", (BOTS / "greedy_bot.py").read_text(), actor, variants=["solo"])
        season = get_or_create_season(session, SeasonSettings("cave", "solo", games=4))
        planner = Planner(session, season, load_book(session, "solo"))
        plan_all(planner)
        first = session.exec(select(BotVersion).where(BotVersion.number == 1)).one()
        assert planned_seeds(session, stored_id(first)) == set(solo_seeds(season.seed, 4))

        # the season grows to 10 deals; ann resubmits (the lever: a new draw on deals whose results she saw),
        # and bob enters his first bot (the control)
        season.games = 10
        session.add(season)
        session.commit()
        register(session, "annsolo", (BOTS / "greedy_bot.py").read_text() + "\n# tag 2\n", actor, variants=["solo"])
        register(session, "bobsolo", (BOTS / "trader_bot.py").read_text(), ensure_author(session, "bob"),
                 variants=["solo"])
        second = session.exec(select(BotVersion).where(BotVersion.number == 2)).one()
        bob = session.exec(select(BotVersion).where(BotVersion.bot_id == Bot.id, Bot.name == "bobsolo")).one()
        plan_all(planner)
        seeds = solo_seeds(season.seed, 10)
        private = private_deals(season.seed, 10)
        assert planned_seeds(session, stored_id(second)) == private - set(seeds[:4])  # never a public deal again
        assert planned_seeds(session, stored_id(bob)) == set(seeds)  # a first version plays every deal
        assert planned_seeds(session, stored_id(first)) == set(seeds[:4])  # the old version is retired
        assert session.get(Season, season.id) is not None
    engine.dispose()
