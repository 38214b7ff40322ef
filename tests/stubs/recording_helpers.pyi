"""For mypy: tests import tests/arena/recording_helpers.py as ``recording_helpers`` (README.md here)."""
from tests.arena.recording_helpers import *  # noqa: F403 (the stub is the module, whole)
