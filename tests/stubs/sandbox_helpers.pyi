"""For mypy: tests import tests/sandbox/sandbox_helpers.py as ``sandbox_helpers`` (README.md here)."""
from tests.sandbox.sandbox_helpers import *  # noqa: F403 (the stub is the module, whole)
