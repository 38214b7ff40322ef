"""For mypy: tests import tests/service/service_helpers.py as ``service_helpers`` (README.md here)."""
from tests.service.service_helpers import *  # noqa: F403 (the stub is the module, whole)
