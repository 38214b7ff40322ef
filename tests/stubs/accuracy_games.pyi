"""For mypy: bench scripts import bench/accuracy_games.py as ``accuracy_games`` (README.md here)."""
from bench.accuracy_games import *  # noqa: F403 (the stub is the module, whole)
