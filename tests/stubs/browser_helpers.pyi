"""For mypy: tests import tests/site/browser_helpers.py as ``browser_helpers`` (README.md here)."""
from tests.site.browser_helpers import *  # noqa: F403 (the stub is the module, whole)
