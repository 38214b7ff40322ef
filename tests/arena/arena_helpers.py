"""Running the real `arena` command from tests."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ARENA = [sys.executable, "-m", "arena"]


def run_arena(*args: str, db: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    prefix = ["--db", f"sqlite:///{db}"] if db else []
    return subprocess.run([*ARENA, *prefix, *args], capture_output=True, text=True, timeout=timeout)
