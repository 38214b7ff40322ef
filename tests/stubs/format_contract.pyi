"""For mypy: tests import tests/formats/format_contract.py as ``format_contract`` (README.md here)."""
from tests.formats.format_contract import *  # noqa: F403 (the stub is the module, whole)
