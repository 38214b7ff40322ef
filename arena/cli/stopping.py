"""A clean stop for long runs (seasons, `arena test`): Ctrl-C and SIGTERM end the run with one line,
whatever the main thread was doing when the signal came."""
from __future__ import annotations

import os
import signal
import sys
from typing import Any, Callable


def stop_on_signals(hangup: bool = False) -> Callable[[], None]:
    """Make SIGINT and SIGTERM (and with ``hangup`` SIGHUP: the terminal closed) raise KeyboardInterrupt in
    this process (forked workers set their own handling), and return a check to call between results that
    raises it again if it was lost.

    A signal can land inside a garbage-collection callback, where Python prints the exception as
    "Exception ignored" and carries on: the request is also kept as a flag, the callback stays quiet,
    and the run stops at its next check instead of running to the end."""
    main_pid = os.getpid()
    requested: list[int] = []
    earlier_hook = sys.unraisablehook

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != main_pid:
            os._exit(128 + signum)
        requested.append(signum)
        raise KeyboardInterrupt

    def quiet_lost_stop(unraisable: Any) -> None:
        if requested and isinstance(unraisable.exc_value, KeyboardInterrupt):
            return  # the check raises it again at a place that can handle it
        earlier_hook(unraisable)

    def check() -> None:
        if requested:
            raise KeyboardInterrupt

    sys.unraisablehook = quiet_lost_stop
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if hangup:
        signal.signal(signal.SIGHUP, stop)
    return check
