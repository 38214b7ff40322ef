"""A stop signal that lands inside a garbage-collection callback is not lost and prints no traceback
(it once failed the SIGTERM test of a season, by chance, with "Exception ignored ... KeyboardInterrupt")."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import gc, os, signal, sys
    from arena.cli.stopping import stop_on_signals

    stopped = stop_on_signals()

    class Collected:
        def __del__(self):
            os.kill(os.getpid(), signal.{signal})  # the handler runs here, inside the callback
            for _ in range(1000):
                pass

    Collected()
    gc.collect()
    print("went on", flush=True)
    try:
        stopped()
    except KeyboardInterrupt:
        print("stopped at the check", flush=True)
""")


@pytest.mark.parametrize("signal", ["SIGTERM", "SIGINT"])
def test_a_stop_lost_in_a_collection_callback_is_quiet_and_raised_at_the_next_check(signal: str) -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT.format(signal=signal)], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["went on", "stopped at the check"]
    assert run.stderr == ""


def test_other_lost_exceptions_are_still_reported() -> None:
    script = ("from arena.cli.stopping import stop_on_signals\nstop_on_signals()\n"
              "class C:\n    def __del__(self):\n        raise ValueError('mine')\nC()\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "Exception ignored" in run.stderr and "ValueError: mine" in run.stderr
