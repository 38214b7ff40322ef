"""For mypy: tests import tests/arena/pg_server.py as ``pg_server`` (README.md here)."""
from tests.arena.pg_server import *  # noqa: F403 (the stub is the module, whole)
