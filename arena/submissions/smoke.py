"""The smoke games of a submission: one game per format at a table drawn as the ladder draws one, the
submitted bot among built-in opponents in the sandbox, cut off past a deadline; and what they say."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping

from arena.formats import format_of, formats
from arena.play.referee import OutOfTime
from arena.play.records import GameRecord
from arena.play.tables import GameSpec, SeatEntry, TableTask, run_table
from arena.submissions.errors import SubmissionError
from arena.submissions.names import builtin_bots
from arena.text import failure_text, plural, solo_result
from sandbox import Limits, Status, Tier


@dataclass(frozen=True)
class SmokeTable:
    """A smoke game drawn like a ladder game: a secret deal, a table size in the variant's range,
    opponents among the built-in bots, the submitted bot at a random seat."""

    variant: str
    seed: int
    opponents: tuple[str, ...]
    seat: int

    @classmethod
    def draw(cls, variant: str, rng: random.Random | None = None) -> SmokeTable:
        rng = rng or random.SystemRandom()
        fmt = format_of(variant)
        rules = fmt.rules()
        size = rng.randint(rules.min_players, rules.max_players)
        pool = list(fmt.smoke_opponents)
        opponents = tuple(rng.sample(pool, size - 1) if size - 1 <= len(pool) else rng.choices(pool, k=size - 1))
        return cls(rules.variant, rng.getrandbits(63), opponents, rng.randrange(size))


def smoke_game(name: str, source: str, limits: Limits, tier: Tier, variant: str | None = None,
               table: SmokeTable | None = None, language: str = "python", deadline: float | None = None) -> GameRecord:
    """One game of ``variant`` (None: the default format) in the sandbox at a drawn table
    (``SmokeTable.draw``), played as the ladder plays a table (``run_table``); the submitted bot's seat is
    ``table.seat``. The record's seats are in table order. Past ``deadline`` (``time.monotonic()``) it raises
    ``OutOfTime`` naming the variant, its bots' processes ended; a game the machine could not play raises its error
    (``SandboxError``: to be retried)."""
    table = table or SmokeTable.draw(format_of(variant).name)
    bots = builtin_bots()
    entries = [SeatEntry(0, opponent, bots[opponent].read_text(encoding="utf-8")) for opponent in table.opponents]
    entries.insert(table.seat, SeatEntry(0, name, source, language))
    task = TableTask(table.variant, tuple(entries), (GameSpec(0, table.seed, tuple(range(len(entries)))),), limits,
                     tier, deadline, void_faults=False)
    try:
        outcome, = run_table(task)
    except OutOfTime:
        raise OutOfTime(table.variant) from None
    assert outcome.record is not None, outcome  # a fault was raised, not voided
    return outcome.record


def smoke_games(name: str, source: str, limits: Limits, tier: Tier, language: str = "python",
                deadline: float | None = None) -> dict[str, tuple[SmokeTable, GameRecord]]:
    """One smoke game per format (classic, duel, solo, then any other registered), each at a drawn table; past
    ``deadline`` (``time.monotonic()``) ``OutOfTime`` names the format whose game was cut off."""
    out = {}
    for variant in (f.name for f in formats()):
        table = SmokeTable.draw(variant)
        out[variant] = (table, smoke_game(name, source, limits, tier, variant, table, language, deadline))
    return out


def smoke_failure(record: GameRecord, seat_index: int = 0) -> str | None:
    """Why the submitted bot (at ``seat_index``) failed its smoke game, or None."""
    if record.void:
        return f"the smoke game was voided by a referee fault: {record.void}"
    seat = record.seats[seat_index]
    if seat.status is not Status.OK:
        return f"the bot failed its smoke game with status {seat.status.value!r}: {seat.detail}"
    return None


@dataclass(frozen=True)
class SmokeVerdict:
    """The smoke games of one submission, by format: each game's record, the submitted bot's seat in it,
    and why the bot failed there (None: it passed, and plays that format)."""

    records: Mapping[str, GameRecord]
    seats: Mapping[str, int]
    failures: Mapping[str, str | None]

    @property
    def passed(self) -> list[str]:
        return [variant for variant, failure in self.failures.items() if not failure]

    def failure_texts(self, variant: str) -> list[str]:
        """Why the submitted bot failed in ``variant``, in its own words (``arena.text.failure_text``)."""
        seat = self.seats[variant]
        s = self.records[variant].seats[seat]
        if s.failure is None:
            return []
        return [failure_text(seat, s.name, s.status.value, s.detail, s.failure.request, s.failure.step, s.failure.log)]

    def rejection(self, path: str) -> SubmissionError:
        """The error of a bot that passed no smoke game: why it failed in each format (once when alike)."""
        why = {variant: self.reason(variant) for variant in self.failures}
        if len(set(why.values())) == 1:
            return SubmissionError(f"{path!r} rejected: in every format ({', '.join(why)}), {next(iter(why.values()))}")
        return SubmissionError(f"{path!r} rejected: " + "; ".join(f"in {v}, {reason}" for v, reason in why.items()))

    def reason(self, variant: str) -> str:
        """Why the bot failed its smoke game in ``variant``, with the referee's detail."""
        failure = self.failures[variant] or ""
        detail = self.records[variant].seats[self.seats[variant]].detail
        return failure + ("" if detail in failure else f" ({detail})")

    def summary(self) -> str:
        """The passed games: ``classic 12 coins, rank 2 of 4; solo 30 coins, won``."""
        parts = []
        for variant in self.passed:
            record = self.records[variant]
            mine = record.seats[self.seats[variant]]
            parts.append(f"{variant} {plural(mine.coins, 'coin')}, " + (
                f"rank {mine.rank} of {len(record.seats)}" if len(record.seats) > 1
                else solo_result(record.seats[0].rank)))
        return "; ".join(parts)


def smoke_verdict(name: str, source: str, limits: Limits, tier: Tier, language: str,
                  deadline: float | None = None) -> SmokeVerdict:
    """Play the smoke game of every format (``smoke_games``, ``OutOfTime`` past
    ``deadline``) and read them."""
    smoke = smoke_games(name, source, limits, tier, language, deadline)
    records = {variant: record for variant, (_, record) in smoke.items()}
    seats = {variant: table.seat for variant, (table, _) in smoke.items()}
    return SmokeVerdict(records, seats, {variant: smoke_failure(record, seats[variant])
                                         for variant, record in records.items()})
