"""For mypy: tests import tests/engine/engine_helpers.py as ``engine_helpers`` (README.md here)."""
from tests.engine.engine_helpers import *  # noqa: F403 (the stub is the module, whole)
