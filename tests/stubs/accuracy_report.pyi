"""For mypy: bench scripts import bench/accuracy_report.py as ``accuracy_report`` (README.md here)."""
from bench.accuracy_report import *  # noqa: F403 (the stub is the module, whole)
