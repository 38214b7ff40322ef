"""``python3 -m arena``: the same command line as the ``arena`` script."""
import os
import sys

# `python -m` puts the working folder first on sys.path, where a bot file such as random.py would
# shadow the standard library module of that name. Our own packages live next to this one.
_PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd():
    sys.path[0] = _PROJECT

from arena.entry import main  # noqa: E402

main()
