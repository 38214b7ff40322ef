"""For mypy: tests import tests/bots/bot_helpers.py as ``bot_helpers`` (README.md here)."""
from tests.bots.bot_helpers import *  # noqa: F403 (the stub is the module, whole)
