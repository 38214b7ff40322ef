from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ARENA = [sys.executable, "-m", "arena"]


def run_arena(*args: str, db: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    prefix = ["--db", f"sqlite:///{db}"] if db else []
    return subprocess.run([*ARENA, *prefix, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "ladder.sqlite"
