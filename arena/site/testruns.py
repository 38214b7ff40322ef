"""The pages of the stored test runs (`arena test`): an index, a page each with its LLR over games and its pairs,
and a page per stored game with the same replay viewer as a season's game (arena/site/games.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Integer, func
from sqlalchemy import select as sa_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from arena.db import TestRunGame
from arena.formats import format_of
from arena.testrun.sprt import PAIR_SCORES
from arena.testrun.run import NEW, OLD, head_to_head
from arena.testrun.store import (Candidate, StoredTestRun, TestGame, TestRunError, all_tests, role_name, stored_games,
                                 verdict_text)

from arena.site.chart import llr_chart
from arena.site.errors import SiteError
from arena.site.games import rules_meta, viewer_meta, viewer_steps
from arena.site.manifest import digest
from arena.site.render import Renderer


@dataclass(frozen=True)
class TestRunRow:
    """A test run as its index row and its page show it."""

    __test__ = False  # not a test class for pytest

    test: StoredTestRun
    new: str
    old: str
    pairs: int
    games: int
    games_per_pair: int
    llr: float
    elo: float
    elo_low: float
    elo_high: float
    state: str  # H1, H0, undecided (finished), stopped, not started: the page's style class too
    verdict: str  # in words
    field: str

    @classmethod
    def of(cls, test: StoredTestRun) -> TestRunRow:
        try:
            per_pair = 2 if head_to_head(format_of(test.settings.variant)) else 4
        except ValueError:  # a format whose module is not loaded now
            per_pair = 4
        elo, low, high = test.results.elo()
        h = test.settings.hypotheses
        state = (("undecided" if test.verdict is None else test.verdict.value) if test.finished
                 else "stopped" if test.results.pairs or test.void else "not started")
        return cls(test, test.settings.bots[0].name, test.settings.bots[1].name, test.results.pairs,
                   test.results.pairs * per_pair, per_pair, test.results.llr(h), elo, low, high, state,
                   verdict_text(test.settings, test.verdict, test.results.pairs, test.finished),
                   ", ".join(b.name for b in test.settings.field) or "none (head to head)")


@dataclass(frozen=True)
class RoleRow:
    """A bot of a test run and its role (NEW, OLD, field N)."""

    role: str
    bot: Candidate


@dataclass(frozen=True)
class PairCount:
    """How many pairs of a test run scored ``score`` for NEW."""

    score: float
    count: int


def game_page(test_id: int, pair: int, game: int) -> str:
    """The page of game ``game`` of pair ``pair`` (both counted from 0) of test ``test_id``, in the site folder."""
    return f"tests/{test_id}-pair-{pair + 1}-game-{game + 1}.html"


def rank_words(rank: int) -> str:
    return f"{rank}{'th' if 10 <= rank % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(rank % 10, 'th')}"


@dataclass(frozen=True)
class GameLink:
    """A game of a pair as the test page links it: its page, its deal, and how NEW or OLD did there."""

    page: str  # relative to the tests/ folder
    number: int  # from 1, in the pair's order
    deal: int  # from 1
    label: str  # "NEW 1st" (the candidate that played it; NEW, head to head)


@dataclass(frozen=True)
class PairRow:
    """A counted pair on its test's page: its deals, the points and gold of NEW and OLD, who won it, its games."""

    number: int  # from 1
    seeds: tuple[int, ...]  # the deck seed of each deal
    new_points: float  # NEW's two deal scores (0, 0.5 or 1 each); OLD's are what is left of 2
    old_points: float
    new_gold: int | None  # over the pair's games (None: its games were not stored)
    old_gold: int | None
    games: tuple[GameLink, ...]

    @property
    def winner(self) -> str:
        return "NEW" if self.new_points > self.old_points else "OLD" if self.old_points > self.new_points else "level"


def pair_rows(test: StoredTestRun, games: list[TestGame]) -> list[PairRow]:
    """The counted pairs of ``test`` in counting order, each with its stored ``games`` (none before schema 15)."""
    by_pair: dict[int, list[TestGame]] = {}
    for game in games:
        by_pair.setdefault(game.pair, []).append(game)
    rows = []
    for number, (first, second) in enumerate(test.scores):
        mine = by_pair.get(number, [])
        gold = [sum(g.seats[seat].coins for g in mine if (seat := g.seat_of(role)) is not None) for role in (NEW, OLD)]
        seeds = tuple(dict.fromkeys(g.seed for g in mine))
        links = []
        for g in mine:
            role = NEW if g.seat_of(NEW) is not None else OLD
            seat = g.seat_of(role)
            rank = "" if seat is None else f" {rank_words(g.seats[seat].rank)}"
            links.append(GameLink(game_page(test.id, g.pair, g.game).removeprefix("tests/"), g.game + 1, g.deal + 1,
                                  f"{role_name(role)}{rank}"))
        rows.append(PairRow(number + 1, seeds, first + second, 2 - first - second, gold[0] if mine else None,
                            gold[1] if mine else None, tuple(links)))
    return rows


def seat_names(test: StoredTestRun, game: TestGame) -> list[str]:
    """How a test's game page names its seats: each bot with its role ("trader_bot (NEW)")."""
    bots = test.settings.bots
    return [f"{bots[s.role].name if s.role < len(bots) else '?'} ({role_name(s.role)})" for s in game.seats]


def write_test_run_pages(engine: Engine, renderer: Renderer, builder: str = "") -> list[str]:
    """The index of the stored test runs (newest first), a page each, and a page per stored game (``builder``: part
    of each game page's key, which keeps a page made from the same inputs); returns a warning per game left out."""
    with Session(engine) as session:
        tests = all_tests(session)
    rows = [TestRunRow.of(t) for t in reversed(tests)]
    renderer.write("tests/index.html", "tests.html", "../", tests=rows)
    warnings: list[str] = []
    for row in rows:
        test = row.test
        h = test.settings.hypotheses
        chart = llr_chart(test.llr_series(), h.lower, h.upper, row.games_per_pair,
                          f"LLR of test {test.settings.name} over games")
        bots = [RoleRow(role_name(role), bot) for role, bot in enumerate(test.settings.bots)]
        counts = [PairCount(score, count) for score, count in zip(PAIR_SCORES, test.results.counts)]
        try:
            with Session(engine) as session:
                games = stored_games(session, test.id)
        except TestRunError as exc:
            warnings.append(f"test {test.settings.name}: {exc}; its games are left out of the site")
            games = []
        left_out = _game_pages(engine, renderer, builder, test, games)
        warnings += left_out.values()
        pairs = pair_rows(test, [g for g in games if (g.pair, g.game) not in left_out])
        try:
            money = format_of(test.settings.variant).money
        except ValueError:  # a format whose module is not loaded now
            money = "coins"
        renderer.write(f"tests/{test.id}.html", "test.html", "../", row=row, test=test, hypotheses=h, chart=chart,
                       bots=bots, counts=counts, pairs=pairs, money=money)
    return warnings


def _game_pages(engine: Engine, renderer: Renderer, builder: str, test: StoredTestRun,
                games: list[TestGame]) -> dict[tuple[int, int], str]:
    """Write the page of each of ``test``'s stored ``games`` that is not fresh; returns a warning per game whose
    replay cannot be read (its page is left out), by (pair, game)."""
    with Session(engine) as session:  # a stored replay never changes: its size stands for it in a page's key
        sizes = {(pair, game): size for pair, game, size in session.execute(
            sa_select(col(TestRunGame.pair), col(TestRunGame.game), func.length(col(TestRunGame.replay),
                                                                                 type_=Integer))
            .where(col(TestRunGame.test_id) == test.id)).all()}
    metas: dict[str, dict[str, Any]] = {}
    left_out: dict[tuple[int, int], str] = {}
    for game in games:
        path = game_page(test.id, game.pair, game.game)
        names = seat_names(test, game)
        seats = json.dumps([s.to_json() for s in game.seats])
        key = digest(builder, path, test.settings.name, test.settings.variant, *names, seats, str(game.seed),
                     str(sizes.get((game.pair, game.game))))
        if renderer.kept(path, key):
            continue
        try:
            with Session(engine) as session:
                replay = session.execute(sa_select(col(TestRunGame.replay)).where(
                    col(TestRunGame.test_id) == test.id, col(TestRunGame.pair) == game.pair,
                    col(TestRunGame.game) == game.game)).scalar_one()
            rules_id = json.loads(replay)["rules_id"]
            if rules_id not in metas:
                metas[rules_id] = rules_meta(rules_id)
            failures = [(seat, s.failure_step, s.status, "") for seat, s in enumerate(game.seats)
                        if s.failure_step is not None]
            meta = viewer_meta(metas[rules_id], names, [s.coins for s in game.seats], [s.rank for s in game.seats],
                               failures)
            steps, steps_of = viewer_steps(replay, names)
            fmt = format_of(rules_id)
        except (SiteError, ValueError, KeyError, TypeError) as exc:
            left_out[(game.pair, game.game)] = (f"test {test.settings.name} pair {game.pair + 1} game {game.game + 1}: "
                                                f"{exc}; its page is left out of the site")
            continue
        renderer.write_keyed(path, key, "test_game.html", "../", test=test, game=game, names=names, rules_id=rules_id,
                             roles=[role_name(s.role) for s in game.seats], meta=meta, steps=steps,
                             steps_key=steps_of, spectator=fmt.spectator, money=fmt.money,
                             download_name=f"test-{test.id}-pair-{game.pair + 1}-game-{game.game + 1}-steps.json")
    return left_out
