"""Shared helpers of the bot tests: load a built-in bot file and drive it in-process."""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
