"""Waiting on a real process's visible effect (rows in its database, a page it built): the condition is polled
until it holds, and the wait ends at once, with the process's own last words, when the process has exited, so a
loop that refused to start (a missing prerequisite, a bad option) fails its test in a second, not at the deadline."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Callable


def wait_for(what: str, check: Callable[[], bool], seconds: float = 300,
             process: subprocess.Popen[bytes] | None = None, log: Path | None = None) -> None:
    """Return once ``check()`` holds; raise AssertionError after ``seconds``, or as soon as ``process`` (if given)
    has exited, quoting the end of ``log`` (its standard error, if given)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        if process is not None and process.poll() is not None:
            said = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
            raise AssertionError(f"the process exited ({process.returncode}) before this was true: {what}\n{said}")
        time.sleep(0.5)
    raise AssertionError(f"still not true after {seconds:.0f} s: {what}")
