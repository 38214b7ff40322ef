"""The contract tests share the engine tests' helpers (``tests/engine/engine_helpers.py``)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))
