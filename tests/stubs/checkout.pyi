"""For mypy: tests import tests/checkout.py as ``checkout`` (README.md here)."""
from tests.checkout import *  # noqa: F403 (the stub is the module, whole)
