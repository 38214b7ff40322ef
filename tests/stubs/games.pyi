"""For mypy: bench scripts import bench/games.py as ``games`` (README.md here)."""
from bench.games import *  # noqa: F403 (the stub is the module, whole)
