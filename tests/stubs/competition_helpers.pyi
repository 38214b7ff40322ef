"""For mypy: tests import tests/arena/competition_helpers.py as ``competition_helpers`` (README.md here)."""
from tests.arena.competition_helpers import *  # noqa: F403 (the stub is the module, whole)
