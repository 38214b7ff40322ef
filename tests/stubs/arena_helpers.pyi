"""For mypy: tests import tests/arena/arena_helpers.py as ``arena_helpers`` (README.md here)."""
from tests.arena.arena_helpers import *  # noqa: F403 (the stub is the module, whole)
