"""For mypy: tests import tests/engine/golden_helpers.py as ``golden_helpers`` (README.md here)."""
from tests.engine.golden_helpers import *  # noqa: F403 (the stub is the module, whole)
