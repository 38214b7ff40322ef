"""For mypy: tests import tests/forked_arena.py as ``forked_arena`` (README.md here)."""
from tests.forked_arena import *  # noqa: F403 (the stub is the module, whole)
