"""For mypy: tests import tests/sandbox/hostile_helpers.py as ``hostile_helpers`` (README.md here)."""
from tests.sandbox.hostile_helpers import *  # noqa: F403 (the stub is the module, whole)
