"""The means a new version of a bot starts from, followed along a recompute of a format's ratings.

A new version starts, in each rated format, from its predecessor's mean as it stood when the version was stored
(``register``, arena/submissions/versions.py), and ``BotVersion.inherits_after`` keeps where that was: the last
game recorded then (``Match.rated_order``). When the ratings are computed again (a flag took games back, a flag
cleared), the mean is taken again at the same place in the recomputed order: a version uploaded after a pair
fed its bot, and before the pair was flagged, does not keep the fed mean the flag takes from its predecessor.
A version stored before schema 17 has no place (None) and keeps the mean it was stored with."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from arena.db import BotVersion, Match, Meta, RatingSnapshot, VersionFormat, table_of
from arena.ladder.ratings import MU, RatingBook, Skill


def inherited_means(session: Session, predecessor: int, variants: Sequence[str]) -> tuple[int, dict[str, float]]:
    """Where a new version of the bot whose latest version is ``predecessor`` takes its means (the last game
    recorded, 0: none yet), and that version's mean in each of ``variants`` right after it (from the rating
    snapshots, so a game recorded meanwhile is after it here too; its own prior where it had no game by then)."""
    hold_means(session)
    after = session.exec(select(func.max(Match.rated_order))).one() or 0
    priors = dict(session.exec(select(VersionFormat.variant, VersionFormat.prior_mu)
                               .where(VersionFormat.version_id == predecessor)).all())
    means = {}
    for variant in variants:
        mean = session.exec(select(RatingSnapshot.mu).join(Match, col(Match.id) == col(RatingSnapshot.match_id))
                            .where(RatingSnapshot.version_id == predecessor, RatingSnapshot.variant == variant,
                                   col(Match.rated_order) <= after)
                            .order_by(col(Match.rated_order).desc()).limit(1)).first()
        means[variant] = priors.get(variant, MU) if mean is None else mean
    return after, means


_META = table_of(Meta)
#: a write to a row every database has: on SQLite it takes the file's write lock, on PostgreSQL that row's lock
_HOLD = update(_META).where(_META.c.key == "schema_version").values(value=_META.c.value)


def hold_means(session: Session) -> None:
    """Hold off, until this transaction ends, the other side of the means: a version stored (``register``) and a
    recompute that writes (``Inheritance(session, hold=True)``) each take this before they read, so neither reads
    what the other is changing. Else a version whose register read its predecessor's mean while a flag's recompute
    ran, and stored it after, would keep the fed mean (on SQLite a read before a transaction's first write is no
    part of it; on PostgreSQL the two do not conflict at all)."""
    session.connection().execute(_HOLD)


@dataclass(frozen=True, order=True)
class _Successor:
    after: int  # the rated_order of the last game recorded when it was stored
    version_id: int
    predecessor: int
    sigma: float


class Inheritance:
    """The versions that took a predecessor's means, in the order they were stored. Call ``before(book, order)``
    ahead of each recorded game of a recompute (every format's, in ``rated_order``), then ``settle``: each
    version's prior in ``book`` is its predecessor's mean at its place (``settle`` compares and stores them)."""

    def __init__(self, session: Session, hold: bool = False) -> None:
        if hold:  # a recompute that will store what it finds (``hold_means``)
            hold_means(session)
        rows = session.exec(select(BotVersion.id, BotVersion.bot_id, BotVersion.inherits_after, BotVersion.prior_sigma)
                            .order_by(col(BotVersion.bot_id), col(BotVersion.number))).all()
        found = [_Successor(after, version, before, sigma)
                 for (before, bot_a, _, _), (version, bot_b, after, sigma) in zip(rows, rows[1:])
                 if bot_a == bot_b and after is not None and before is not None and version is not None]
        self.pending = deque(sorted(found))
        self.means: dict[int, float] = {}

    def before(self, book: RatingBook, rated_order: int | None) -> None:
        """Ahead of the game recorded ``rated_order``-th: the versions stored before it take their means."""
        while self.pending and rated_order is not None and self.pending[0].after < rated_order:
            self._take(book, self.pending.popleft())

    def finish(self, book: RatingBook) -> None:
        """After the last game: the versions stored since take their means."""
        while self.pending:
            self._take(book, self.pending.popleft())

    def _take(self, book: RatingBook, successor: _Successor) -> None:
        mean = book.get(successor.predecessor).mu
        self.means[successor.version_id] = mean
        book.priors[successor.version_id] = Skill(mean, successor.sigma)

    def settle(self, book: RatingBook, session: Session, variant: str, write: bool) -> list[str]:
        """After the last game of ``book``'s recompute: the stored means of ``variant`` that differ from the ones
        taken again, in words; ``write`` puts the new ones in ``session`` (committed with the ratings)."""
        self.finish(book)
        rows = session.exec(select(VersionFormat).where(VersionFormat.variant == variant,
                                                        col(VersionFormat.version_id).in_(list(self.means)))).all()
        differences = []
        for row in rows:
            if row.prior_mu != (mean := self.means[row.version_id]):
                differences.append(f"version {row.version_id}: stored prior mean {row.prior_mu}, recomputed {mean}")
                if write:
                    row.prior_mu = mean
                    session.add(row)
        return differences
