"""bench/boards.py: it builds its ladder and prints the cost of the boards and of an author's report, for each tree."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_boards_bench_prints_both_costs(tmp_path: Path) -> None:
    ran = subprocess.run([sys.executable, str(BENCH / "boards.py"), "--bots", "5", "--versions", "2", "--games", "40",
                          "--rounds", "1"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.strip().splitlines()
    assert lines[0].startswith("machine: ") and "ladder: 5 bots, 2 versions each (40 KB sources), 40 games" in lines[1]
    figures = re.fullmatch(r"this checkout: roster ([\d.]+) ms \(median [\d.]+\), owner_report ([\d.]+) ms "
                           r"\(median [\d.]+\) a call, CPU; ~(\d+) /api/me a second on one core", lines[2])
    assert figures is not None, lines[2]
    assert all(float(x) > 0 for x in figures.groups()) and len(lines) == 3
