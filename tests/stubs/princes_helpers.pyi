"""For mypy: tests import tests/engine/princes_helpers.py as ``princes_helpers`` (README.md here)."""
from tests.engine.princes_helpers import *  # noqa: F403 (the stub is the module, whole)
