"""For mypy: tests import tests/arena/migration_helpers.py as ``migration_helpers`` (README.md here)."""
from tests.arena.migration_helpers import *  # noqa: F403 (the stub is the module, whole)
