"""For mypy: bench scripts import bench/common.py as ``common`` (README.md here)."""
from bench.common import *  # noqa: F403 (the stub is the module, whole)
