"""For mypy: bench scripts import bench/accuracy_truth.py as ``accuracy_truth`` (README.md here)."""
from bench.accuracy_truth import *  # noqa: F403 (the stub is the module, whole)
