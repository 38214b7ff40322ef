"""What a submission's smoke games say (``arena submit``): for each format, its game, the submitted bot's
seat there and why it failed (if it did); and whether a new name looks like the next version of a bot."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from sqlmodel import Session

from arena.formats import default_format
from arena.play.referee import GameRecord
from arena.submissions.submit import SubmissionError, existing_bot, smoke_failure, smoke_games
from arena.text import failure_text, plural, solo_result
from sandbox import Limits, Tier


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
        """The error of a bot that passed no smoke game: the default format's failure names the reason."""
        first = default_format().name
        failure = self.failures[first] or ""
        detail = self.records[first].seats[self.seats[first]].detail
        return SubmissionError(f"{path!r} rejected: {failure}" + ("" if detail in failure else f" ({detail})"))

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
    """Play the smoke game of every format (``arena.submissions.submit.smoke_games``, ``OutOfTime`` past
    ``deadline``) and read them."""
    smoke = smoke_games(name, source, limits, tier, language, deadline)
    records = {variant: record for variant, (_, record) in smoke.items()}
    seats = {variant: table.seat for variant, (table, _) in smoke.items()}
    return SmokeVerdict(records, seats, {variant: smoke_failure(record, seats[variant])
                                         for variant, record in records.items()})


def version_hint(session: Session, name: str) -> str | None:
    """The bot a new name such as ``mybot2`` or ``mybot-v3`` looks like the next version of, if there is
    one and no bot has the name itself."""
    if existing_bot(session, name) is not None:
        return None
    base = re.sub(r"[-_.]?v?\d+$", "", name)
    return base if base and base != name and existing_bot(session, base) is not None else None
