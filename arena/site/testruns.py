"""The pages of the stored test runs (`arena test`): an index, and a page each with its LLR over games."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.formats import format_of
from arena.testrun.sprt import PAIR_SCORES
from arena.testrun.run import head_to_head
from arena.testrun.store import Candidate, StoredTestRun, all_tests, role_name, verdict_text

from arena.site.chart import llr_chart
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


def write_test_run_pages(engine: Engine, renderer: Renderer) -> None:
    """The index of the stored test runs (newest first) and a page each."""
    with Session(engine) as session:
        tests = all_tests(session)
    rows = [TestRunRow.of(t) for t in reversed(tests)]
    renderer.write("tests/index.html", "tests.html", "../", tests=rows)
    for row in rows:
        test = row.test
        h = test.settings.hypotheses
        chart = llr_chart(test.llr_series(), h.lower, h.upper, row.games_per_pair,
                          f"LLR of test {test.settings.name} over games")
        bots = [RoleRow(role_name(role), bot) for role, bot in enumerate(test.settings.bots)]
        counts = [PairCount(score, count) for score, count in zip(PAIR_SCORES, test.results.counts)]
        renderer.write(f"tests/{test.id}.html", "test.html", "../", row=row, test=test, hypotheses=h, chart=chart,
                       bots=bots, counts=counts)
