"""Progress of a long run: a live line on a terminal, plain periodic lines elsewhere."""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

from sqlmodel import Session, col, select

from arena.db import Match, Season
from arena.ladder.seasons import SeasonProgress
from arena.text import terminal

#: games of this run after which its own pace replaces the pace of earlier games (the first ones
#: pay for starting workers and fork servers, and a table's rotated games arrive together)
WARM_UP_GAMES = 20
#: seconds after its first result before this run's pace gives an ETA (results of a table come together)
MEASURE_S = 5.0


class ProgressReporter:
    """Writes the progress of a season: games, pace, ETA, failures (whose, worst first) and voids.
    ``earlier_rate`` (games a minute, e.g. ``earlier_rate(session, variant)``) gives the first ETAs,
    until this run has played ``WARM_UP_GAMES``; this run's pace is measured from its first result."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False, interval_s: float = 5.0,
                 earlier_rate: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = sys.stderr if stream is None else stream  # the stream of the call, not of the import
        self.quiet = quiet
        self.tty = self.stream.isatty()
        self.interval_s = interval_s
        self.earlier_rate = earlier_rate
        self.clock = clock
        self.started = clock()
        self.last_line = 0.0
        self.first_result: float | None = None

    def line(self, progress: SeasonProgress) -> str:
        """The progress line, without the bar."""
        now = self.clock()
        if self.first_result is None and progress.played_now:
            self.first_result = now
        finished = progress.done + progress.void
        rate, guessed, trusted = self._rate(progress.played_now, now)
        left = progress.planned - finished
        eta = "0s" if left <= 0 else f"{'~' if guessed else ''}{left / rate * 60:.0f}s" if rate and trusted else "?"
        failures = f"failures {progress.failures}"
        if progress.failures:
            worst = sorted(progress.failures_by_bot.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
            failures += " (" + ", ".join(f"{name} {sum(c.values())}" for name, c in worst[:3]) + (
                ", …" if len(worst) > 3 else "") + ")"
        return (f"{finished}/{progress.planned} games  {rate:.0f}/min  ETA {eta}  {failures}  "
                f"void {progress.void}")

    def _rate(self, played: int, now: float) -> tuple[float, bool, bool]:
        """Games a minute; whether it is the earlier games' pace (a guess) rather than this run's; and
        whether it may give an ETA (the pace since the start, workers starting included, may not: it
        made the first ETAs ten times too long)."""
        if played < WARM_UP_GAMES and self.earlier_rate:
            return self.earlier_rate, True, True
        if self.first_result is not None and played > 1 and now - self.first_result >= MEASURE_S:
            return (played - 1) / (now - self.first_result) * 60, False, True
        elapsed = now - self.started
        return (played / elapsed * 60 if elapsed > 0 and played else 0.0), False, False

    def __call__(self, progress: SeasonProgress) -> None:
        if self.quiet:
            return
        text = terminal(self.line(progress))  # bot names are in it
        finished = progress.done + progress.void
        left = progress.planned - finished
        width = 30
        filled = int(width * finished / progress.planned) if progress.planned else width
        if self.tty:
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {text}")
            if left <= 0:
                self.stream.write("\n")
            self.stream.flush()
        elif left <= 0 or self.clock() - self.last_line >= self.interval_s:
            self.last_line = self.clock()
            self.stream.write(text + "\n")
            self.stream.flush()


def earlier_rate(session: Session, variant: str, games: int = 200) -> float | None:
    """Games a minute over this database's last ``games`` finished games of ``variant`` (None with
    fewer than 10, or when they did not come from one run: a gap over 10 minutes between two)."""
    stamps = session.exec(select(Match.finished_at).join(Season, col(Match.season_id) == col(Season.id))
                          .where(Season.variant == variant, col(Match.finished_at).is_not(None))
                          .order_by(col(Match.finished_at).desc()).limit(games)).all()
    times = sorted(stamp.timestamp() for stamp in stamps if stamp is not None)
    runs: list[list[float]] = [[]]
    for t in times:  # the newest stretch without a long pause: one run of one machine
        if runs[-1] and t - runs[-1][-1] > 600:
            runs.append([])
        runs[-1].append(t)
    newest = runs[-1]
    if len(newest) < 10 or newest[-1] <= newest[0]:
        return None
    return (len(newest) - 1) / (newest[-1] - newest[0]) * 60
