"""For mypy: bench scripts import bench/accuracy_seasons.py as ``accuracy_seasons`` (README.md here)."""
from bench.accuracy_seasons import *  # noqa: F403 (the stub is the module, whole)
