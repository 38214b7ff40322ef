"""For mypy: tests import tests/human/pty_table.py as ``pty_table`` (README.md here)."""
from tests.human.pty_table import *  # noqa: F403 (the stub is the module, whole)
