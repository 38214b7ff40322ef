"""For mypy: bench scripts import bench/live_ladder.py as ``live_ladder`` (README.md here)."""
from bench.live_ladder import *  # noqa: F403 (the stub is the module, whole)
