"""The ``arena`` command's entry point: Ctrl-C while the command line's modules are still being imported
ends it in one line, as it does later (click's "Aborted!"), not with an import traceback."""
from __future__ import annotations

import sys


def main() -> None:
    try:
        from arena.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("arena: interrupted\n")
        raise SystemExit(130) from None
    run()
