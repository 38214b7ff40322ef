"""bench/scaling.py: its efficiency figures, and the coordinator-only mode through a real season."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_efficiency_is_a_workers_rate_against_a_workers_rate_at_2() -> None:
    sys.path.append(str(BENCH))  # the bench imports ``common`` by name; appended, so it shadows nothing
    spec = importlib.util.spec_from_file_location("bench_scaling", BENCH / "scaling.py")
    assert spec is not None and spec.loader is not None
    scaling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scaling)
    lines = scaling.efficiency_lines("local", {1: 300.0, 2: 500.0, 4: 800.0})
    assert [re.findall(r"efficiency (\S+) \(against 2\)", line) for line in lines] == [["1.20"], ["1.00"], ["0.80"]]
    assert "4 workers     800.0 games/min    200.0 a worker" in lines[2]
    only_one = scaling.efficiency_lines("dask", {1: 300.0, 4: 600.0})  # without 2 workers: against the fewest
    assert only_one[1].endswith("efficiency 0.50 (against 1)")


@pytest.mark.parametrize("players", [3, 4])
def test_the_coordinator_alone_records_every_game_of_a_season(tmp_path: Path, players: int) -> None:
    ran = subprocess.run([sys.executable, str(BENCH / "scaling.py"), "--coordinator-only", "--games", "8",
                          "--workers", "3", "--players", str(players)], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    first, *_, line = ran.stdout.strip().splitlines()
    assert f", 8 {players}-player games (random, greedy and copies), " in first, first
    assert re.fullmatch(r"coordinator only, 3 slots: 8 games, +[\d.]+ games/min; its CPU while tables end [\d.]+ ms a "
                        rf"game, [\d.]+ ms a {players}-game table: (keeps up|does not keep up) with a table's end "
                        r"every 1 ms \(ceiling ~[\d,]+ games/min\); the audit at the season's end \d+ ms "
                        r"\([\d.]+ ms a game\)",
                        line), line


def test_the_live_loop_alone_records_its_games(tmp_path: Path) -> None:
    ran = subprocess.run([sys.executable, str(BENCH / "scaling.py"), "--coordinator-only", "--live", "--games", "8",
                          "--workers", "3"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    line = ran.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"live loop only, 3 slots: (\d+) games, +[\d.]+ games/min \(its commits waited for the disk "
                        r"included\); its CPU [\d.]+ ms a game, [\d.]+ ms a 4-game table \(ceiling ~[\d,]+ games/min\)",
                        line), line
    assert int(line.split(": ")[1].split()[0]) >= 8
