"""Test runs (`arena test`) in the database: a test's settings and bots (their sources kept, so that a resumed
test plays the same code), and every counted pair in counting order, each recorded with its games (seats, deal,
results, replay) in one transaction as it arrives. A test that stopped (Ctrl-C, SIGTERM, a killed process)
resumes from its counted pairs; the pairs in flight when it stopped are lost, never counted twice."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.db import TestRunBot, TestRunGame, TestRunPair, TestRun, now, source_hash, stored_id
from arena.play.records import GameRecord
from arena.play.tables import GameSpec
from arena.testrun.sprt import Hypotheses, Pentanomial, Verdict
from arena.text import plural

ROLES = ("NEW", "OLD")  # the names of roles 0 and 1; the field's bots are "field 1", "field 2", ...


class TestRunError(ValueError):
    """A stored test cannot be run or resumed as asked."""

    __test__ = False  # not a test class for pytest


def role_name(role: int) -> str:
    return ROLES[role] if role < len(ROLES) else f"field {role - 1}"


@dataclass(frozen=True)
class Candidate:
    """A bot of a test: as given (``spec``) and as resolved (``name``, ``source``)."""

    spec: str
    name: str
    source: str
    language: str = "python"

    @property
    def sha256(self) -> str:
        return source_hash(self.source)


@dataclass(frozen=True)
class TestRunSettings:
    """What a test is: its bots (NEW, OLD, then the field), format, hypotheses and limit."""

    __test__ = False  # not a test class for pytest

    name: str
    variant: str
    hypotheses: Hypotheses
    max_pairs: int
    bots: tuple[Candidate, ...]

    @property
    def field(self) -> tuple[Candidate, ...]:
        return self.bots[2:]

    def differences(self, stored: TestRunSettings) -> list[str]:
        """How these settings differ from a stored test's (its sources are checked apart)."""
        mine = [("format", self.variant, stored.variant), ("elo0", self.hypotheses.elo0, stored.hypotheses.elo0),
                ("elo1", self.hypotheses.elo1, stored.hypotheses.elo1),
                ("alpha", self.hypotheses.alpha, stored.hypotheses.alpha),
                ("beta", self.hypotheses.beta, stored.hypotheses.beta), ("max pairs", self.max_pairs, stored.max_pairs),
                ("NEW", self.bots[0].spec, stored.bots[0].spec), ("OLD", self.bots[1].spec, stored.bots[1].spec),
                ("field", ",".join(b.spec for b in self.field) or "none",
                 ",".join(b.spec for b in stored.field) or "none")]
        return [f"{what} {given!r} (stored: {kept!r})" for what, given, kept in mine if given != kept]


@dataclass
class StoredTestRun:
    """A test as the database holds it."""

    id: int
    settings: TestRunSettings
    results: Pentanomial
    scores: list[tuple[float, float]]  # every counted pair's two deal scores, in counting order
    void: int
    row: TestRun
    games: int = 0  # the games stored with its pairs (none for a pair counted before schema 15)

    @property
    def finished(self) -> bool:
        return self.row.finished_at is not None

    @property
    def verdict(self) -> Verdict | None:
        """The stored verdict (None: undecided, or not finished)."""
        return None if self.row.verdict is None else Verdict(self.row.verdict)

    def llr_series(self) -> list[float]:
        """The LLR after each counted pair (the site's chart)."""
        running, series = Pentanomial(), []
        for first, second in self.scores:
            running.add(first, second)
            series.append(running.llr(self.settings.hypotheses))
        return series


def create_test(engine: Engine, settings: TestRunSettings) -> int:
    """Store a new test and its bots; returns its id."""
    h = settings.hypotheses
    with Session(engine) as session:
        row = TestRun(name=settings.name, variant=settings.variant, elo0=h.elo0, elo1=h.elo1, alpha=h.alpha,
                         beta=h.beta, max_pairs=settings.max_pairs)
        session.add(row)
        session.flush()
        test_id = stored_id(row)
        for role, bot in enumerate(settings.bots):
            session.add(TestRunBot(test_id=test_id, role=role, spec=bot.spec, name=bot.name, sha256=bot.sha256,
                                  source=bot.source, language=bot.language))
        session.commit()
    return test_id


def load_test(session: Session, name: str) -> StoredTestRun | None:
    row = session.exec(select(TestRun).where(TestRun.name == name)).first()
    return None if row is None else _stored(session, row)


def all_tests(session: Session) -> list[StoredTestRun]:
    """Every stored test, oldest first."""
    return [_stored(session, row) for row in session.exec(select(TestRun).order_by(col(TestRun.id))).all()]


def _stored(session: Session, row: TestRun) -> StoredTestRun:
    test_id = stored_id(row)
    bots = session.exec(select(TestRunBot).where(TestRunBot.test_id == test_id).order_by(col(TestRunBot.role))).all()
    pairs = session.exec(select(TestRunPair.first, TestRunPair.second).where(TestRunPair.test_id == test_id)
                         .order_by(col(TestRunPair.number))).all()
    settings = TestRunSettings(row.name, row.variant, Hypotheses(row.elo0, row.elo1, row.alpha, row.beta),
                               row.max_pairs, tuple(Candidate(b.spec, b.name, b.source, b.language) for b in bots))
    results = Pentanomial()
    for first, second in pairs:
        results.add(first, second)
    games = int(session.exec(select(func.count()).select_from(TestRunGame)
                             .where(TestRunGame.test_id == test_id)).one())
    return StoredTestRun(test_id, settings, results, [(a, b) for a, b in pairs], row.void, row, games)


def next_name(session: Session) -> str:
    """A name for a test started without ``--name``: ``test-N``, N one more than the tests so far."""
    count = int(session.exec(select(func.count()).select_from(TestRun)).one())
    taken = set(session.exec(select(TestRun.name)).all())
    number = count + 1
    while f"test-{number}" in taken:
        number += 1
    return f"test-{number}"


def record_pair(engine: Engine, test_id: int, number: int, scores: tuple[float, float] | None,
                verdict: Verdict | None, finished: bool, games: Sequence[TestGame] = ()) -> None:
    """In one transaction: pair ``number``'s deal scores (None: the pair was void, only counted as such) with
    its ``games``, and, if the test ended with it, its verdict: a pair is stored whole or not at all."""
    with Session(engine) as session:
        row = session.get(TestRun, test_id)
        if row is None:
            raise TestRunError(f"test #{test_id} is no longer in the database")
        if scores is None:
            row.void += 1
        else:
            session.add(TestRunPair(test_id=test_id, number=number, first=scores[0], second=scores[1]))
            for game in games:
                session.add(TestRunGame(test_id=test_id, pair=number, game=game.game, deal=game.deal, seed=game.seed,
                                        seats=json.dumps([seat.to_json() for seat in game.seats]),
                                        seconds=game.seconds, replay=game.replay))
        if finished:
            row.finished_at, row.verdict = now(), _stored_verdict(verdict)
        session.add(row)
        session.commit()


@dataclass(frozen=True)
class GameSeat:
    """One seat of a test's game: who sat there (``role``: 0 NEW, 1 OLD, 2.. the field) and how it ended; a
    failed seat's ``failure_step`` is the replay step it failed at."""

    role: int
    coins: int
    rank: int
    status: str
    failure_step: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "coins": self.coins, "rank": self.rank, "status": self.status,
                "failure_step": self.failure_step}

    @classmethod
    def from_json(cls, data: Any) -> GameSeat:
        try:
            step = data["failure_step"]
            return cls(int(data["role"]), int(data["coins"]), int(data["rank"]), str(data["status"]),
                       None if step is None else int(step))
        except (KeyError, TypeError, ValueError) as exc:
            raise TestRunError(f"malformed stored seat {str(data)[:80]!r}: {exc}") from None


@dataclass(frozen=True)
class TestGame:
    """A game of a counted pair (a ``TestRunGame`` row): its place in the pair, its deal and deck seed, its seats
    in seat order, and the referee's replay (empty when read without it)."""

    __test__ = False

    pair: int
    game: int
    deal: int
    seed: int
    seats: tuple[GameSeat, ...]
    seconds: float
    replay: str = ""

    def seat_of(self, role: int) -> int | None:
        """The seat ``role`` played in this game (None: it sat out, as NEW and OLD take turns with a field)."""
        return next((i for i, seat in enumerate(self.seats) if seat.role == role), None)


def games_of(pair: int, played: Sequence[tuple[GameSpec, GameRecord]]) -> tuple[TestGame, ...]:
    """The games of pair ``pair`` as stored, from each as planned (its seating: the roles) and as played; a pair's
    deals are numbered by their deck seeds in the order they come."""
    deals: list[int] = []
    games = []
    for index, (spec, record) in enumerate(played):
        if spec.seed not in deals:
            deals.append(spec.seed)
        seats = tuple(GameSeat(role, seat.coins, seat.rank, seat.status.value,
                               None if seat.failure is None else seat.failure.step)
                      for role, seat in zip(spec.seating, record.seats))
        games.append(TestGame(pair, index, deals.index(spec.seed), spec.seed, seats, record.seconds,
                              record.replay_text))
    return tuple(games)


def stored_games(session: Session, test_id: int, replays: bool = False) -> list[TestGame]:
    """The stored games of test ``test_id`` by pair and game (``replays``: with their replays, else without)."""
    columns = [col(TestRunGame.pair), col(TestRunGame.game), col(TestRunGame.deal), col(TestRunGame.seed),
               col(TestRunGame.seats), col(TestRunGame.seconds)]
    if replays:
        columns.append(col(TestRunGame.replay))
    rows = session.execute(sa_select(*columns).where(col(TestRunGame.test_id) == test_id)
                           .order_by(col(TestRunGame.pair), col(TestRunGame.game))).all()
    games = []
    for row in rows:
        pair, game, deal, seed, seats, seconds = row[:6]
        try:
            parsed = tuple(GameSeat.from_json(seat) for seat in json.loads(seats))
        except (ValueError, TypeError) as exc:
            raise TestRunError(f"test #{test_id} pair {pair} game {game}: malformed seats: {exc}") from None
        games.append(TestGame(pair, game, deal, seed, parsed, seconds, row[6] if replays else ""))
    return games


def _stored_verdict(verdict: Verdict | None) -> str | None:
    return None if verdict is None else verdict.value


def finish_test(engine: Engine, test_id: int, verdict: Verdict | None) -> None:
    """Mark a test ended (a decision, or MAX-PAIRS reached undecided) without a new pair."""
    with Session(engine) as session:
        row = session.get(TestRun, test_id)
        if row is not None and row.finished_at is None:
            row.finished_at, row.verdict = now(), _stored_verdict(verdict)
            session.add(row)
            session.commit()


def changed_sources(stored: Sequence[Candidate], current: Sequence[Candidate | None]) -> list[str]:
    """The stored bots whose spec now resolves to other code, or the same text in another language
    (``current``: None where it no longer resolves, e.g. a file since removed: the stored source is played)."""
    return [f"{role_name(role)} {kept.spec!r}" for role, (kept, now_) in enumerate(zip(stored, current))
            if now_ is not None and (now_.sha256, now_.language) != (kept.sha256, kept.language)]


def verdict_text(settings: TestRunSettings, verdict: Verdict | None, pairs: int, finished: bool = True) -> str:
    """The verdict as the command line and the site say it."""
    new, old = settings.bots[0].name, settings.bots[1].name
    if not finished:
        return f"not decided yet: {plural(pairs, 'pair')} counted ('arena test resume {settings.name}' continues)"
    return {Verdict.H1: f"H1: {new} is better than {old}",
            Verdict.H0: f"H0: {new} is not better than {old} by {settings.hypotheses.elo1:g} Elo",
            None: f"inconclusive after {plural(pairs, 'pair')}"}[verdict]
