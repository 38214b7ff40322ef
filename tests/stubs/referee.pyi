"""For mypy: bench scripts import bench/referee.py as ``referee`` (README.md here)."""
from bench.referee import *  # noqa: F403 (the stub is the module, whole)
