"""For mypy: tests import tests/site/site_batch.py as ``site_batch`` (README.md here)."""
from tests.site.site_batch import *  # noqa: F403 (the stub is the module, whole)
