"""For mypy: bench scripts import bench/season.py as ``season`` (README.md here)."""
from bench.season import *  # noqa: F403 (the stub is the module, whole)
