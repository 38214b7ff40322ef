"""For mypy: tests import tests/site/site_values.py as ``site_values`` (README.md here)."""
from tests.site.site_values import *  # noqa: F403 (the stub is the module, whole)
