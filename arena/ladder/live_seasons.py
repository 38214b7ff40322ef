"""The living ladder's seasons (`arena season run --live`): one per format, named after the run, made when it
starts (``prepare_live``; a closed season of the same deals has a successor), and what a run did (``LiveProgress``).
The loop that plays them is arena/ladder/live.py."""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.db import Season
from arena.formats import Format, formats
from arena.ladder.planning import LadderError, SeasonSettings, get_or_create_season

#: a version whose latest this many games all failed is paused (Halite's probation)
PAUSE_AFTER = 5
SITE_EVERY = 60.0  # seconds between two site builds, at most
AUDIT_EVERY = 600.0  # seconds between two audits of a format that had new games
RETRY_AFTER = 10.0  # after the database refused a write (a full disk, a lost server), no new table for this long


@dataclass(frozen=True)
class LiveSettings:
    name: str = "live"  # the seasons are NAME-FORMAT: live-classic, live-duel, live-solo
    variants: tuple[str, ...] = ()  # the formats to play; empty: every format
    min_players: int | None = None  # with one variant only: its table sizes (else each format's own)
    max_players: int | None = None
    rotate: bool = True
    site: Path | None = None  # rebuilt every ``site_every`` seconds while games come in
    site_every: float = SITE_EVERY
    audit_every: float = AUDIT_EVERY
    pause_after: int = PAUSE_AFTER
    retry_after: float = RETRY_AFTER
    builtin_only: bool = False

    def formats(self) -> list[Format]:
        return [f for f in formats() if not self.variants or f.name in self.variants]


def live_season_name(name: str, variant: str, round_: int = 1) -> str:
    """The live season of one format: ``live-classic``; after the operator closed ``live-solo``, ``live-solo-2``."""
    return f"{name}-{variant}" + (f"-{round_}" if round_ > 1 else "")


def current_live_season(session: Session, settings: LiveSettings, fmt: Format) -> tuple[str, Season | None]:
    """The name of the live season ``fmt`` plays now, and the season if it exists: the first of ``live-solo``,
    ``live-solo-2``, ... that is not closed (a format of the same deals goes on in a new season once the operator
    closed its season, to publish its deals and its private ranking). A batch season of that name is refused."""
    round_ = 1
    while True:
        name = live_season_name(settings.name, fmt.name, round_)
        existing = session.exec(select(Season).where(Season.name == name)).first()
        if existing is not None and not existing.live:
            raise LadderError(f"season {name!r} is a batch season; give --name another live name")
        if existing is None or existing.closed_at is None:
            return name, existing
        if not fmt.same_deals:
            raise LadderError(f"season {name!r} is closed; give --name another live name")
        round_ += 1


def prepare_live(engine: Engine, settings: LiveSettings) -> None:
    """Make the live season of every format asked for (each plays until it is stopped)."""
    with Session(engine) as session:
        for fmt in settings.formats():
            name, existing = current_live_season(session, settings, fmt)
            if existing is not None:
                continue
            one = len(settings.formats()) == 1
            season = get_or_create_season(session, SeasonSettings(
                name=name, variant=fmt.name, games=None, rotate=settings.rotate,
                min_players=settings.min_players if one else None, max_players=settings.max_players if one else None))
            if not fmt.same_deals:
                season.games = 0
            season.live = True
            session.add(season)
            session.commit()


@dataclass
class LiveProgress:
    """What this run of the loop did (the caller keeps it, so that it can say so after a stop)."""

    started: float = field(default_factory=time.monotonic)
    games: Counter[str] = field(default_factory=Counter)  # recorded games by format
    void: int = 0
    failures: int = 0

    def line(self) -> str:
        total = sum(self.games.values())
        minutes = max(1e-9, time.monotonic() - self.started) / 60
        per = ", ".join(f"{variant} {count}" for variant, count in sorted(self.games.items())) or "none yet"
        return (f"live: {total} game{'s' if total != 1 else ''} this run ({per}), {total / minutes:.0f} a minute, "
                f"{self.void} void, {self.failures} failed seats")
