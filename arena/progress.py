"""Progress of a long run: a live line on a terminal, plain periodic lines elsewhere."""
from __future__ import annotations

import sys
import time
from typing import TextIO

from arena.ladder import SeasonProgress


class ProgressReporter:
    def __init__(self, stream: TextIO = sys.stderr, quiet: bool = False, interval_s: float = 5.0) -> None:
        self.stream = stream
        self.quiet = quiet
        self.tty = stream.isatty()
        self.interval_s = interval_s
        self.started = time.monotonic()
        self.last_line = 0.0
        self.first_done: int | None = None

    def __call__(self, progress: SeasonProgress) -> None:
        if self.quiet:
            return
        finished = progress.done + progress.void
        if self.first_done is None:
            self.first_done = finished - progress.played_now
        elapsed = time.monotonic() - self.started
        rate = progress.played_now / elapsed * 60 if elapsed > 0 and progress.played_now else 0.0
        left = progress.planned - finished
        eta = f"{left / rate * 60:.0f}s" if rate else "?"
        width = 30
        filled = int(width * finished / progress.planned) if progress.planned else width
        text = (f"[{'#' * filled}{'.' * (width - filled)}] {finished}/{progress.planned} games  "
                f"{rate:.0f}/min  ETA {eta}  failures {progress.failures}  void {progress.void}")
        if self.tty:
            self.stream.write("\r" + text)
            if left <= 0:
                self.stream.write("\n")
            self.stream.flush()
        elif left <= 0 or time.monotonic() - self.last_line >= self.interval_s:
            self.last_line = time.monotonic()
            self.stream.write(text.split("] ", 1)[1] + "\n")
            self.stream.flush()
