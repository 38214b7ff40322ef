"""bench/scaling.py: its efficiency figures, and the coordinator-only mode through a real season."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_scaling() -> ModuleType:
    sys.path.append(str(BENCH))  # the bench imports ``common`` by name; appended, so it shadows nothing
    spec = importlib.util.spec_from_file_location("bench_scaling", BENCH / "scaling.py")
    assert spec is not None and spec.loader is not None
    scaling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scaling)
    return scaling


def test_efficiency_is_a_workers_rate_against_a_workers_rate_at_2() -> None:
    scaling = load_scaling()
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
    per_game = re.search(r"tables end ([\d.]+) ms a game", line)
    assert per_game is not None and load_scaling()._CPU_A_GAME.findall(line) == [("3", per_game[1])]


def test_the_live_loop_alone_records_its_games(tmp_path: Path) -> None:
    ran = subprocess.run([sys.executable, str(BENCH / "scaling.py"), "--coordinator-only", "--live", "--games", "8",
                          "--workers", "3"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    line = ran.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"live loop only, 3 slots: (\d+) games, +[\d.]+ games/min \(its commits waited for the disk "
                        r"included\); its CPU [\d.]+ ms a game, [\d.]+ ms a 4-game table \(ceiling ~[\d,]+ games/min\)",
                        line), line
    assert int(line.split(": ")[1].split()[0]) >= 8
    per_game = re.search(r"its CPU ([\d.]+) ms a game", line)
    assert per_game is not None and load_scaling()._CPU_A_GAME.findall(line) == [("3", per_game[1])]


def fake_tree(folder: Path, figures: dict[int, list[float]]) -> Path:
    """A checkout whose bench/scaling.py prints, on its k-th run, a coordinator line a slot count with the k-th of
    ``figures[slots]`` (what ``--rounds``/``--old`` read), counting its runs in a file beside it."""
    (folder / "bench").mkdir(parents=True)
    (folder / "bench" / "scaling.py").write_text(f"""import pathlib, sys
runs = pathlib.Path(__file__).with_name("runs")
k = int(runs.read_text()) if runs.exists() else 0
runs.write_text(str(k + 1))
assert sys.argv[1:4] == ["--coordinator-only", "--games", "8"], sys.argv
for slots, values in {figures!r}.items():
    print(f"coordinator only, {{slots}} slots: 8 games, 1.0 games/min; its CPU while tables end {{values[k]}} ms a "
          "game, 9.99 ms a 3-game table: does not keep up")
""")
    return folder


def test_rounds_in_turn_give_each_trees_least_and_median_and_their_ratio(tmp_path: Path) -> None:
    scaling = load_scaling()
    old = fake_tree(tmp_path / "old", {4: [0.5, 0.4, 0.6], 16: [0.3, 0.3, 0.3]})
    new = fake_tree(tmp_path / "new", {4: [0.2, 0.25, 0.3], 16: [0.2, 0.15, 0.1]})
    lines = scaling.in_turn({"old": old, "new": new}, 3, ["--coordinator-only", "--games", "8"], 3)
    assert lines == [
        "old    4 slots, 3 rounds: its CPU a game least 0.400 median 0.500 ms (1.20 / 1.50 ms a 3-game table); each: "
        "0.500 0.400 0.600",
        "new    4 slots, 3 rounds: its CPU a game least 0.200 median 0.250 ms (0.60 / 0.75 ms a 3-game table); each: "
        "0.200 0.250 0.300",
        "old   16 slots, 3 rounds: its CPU a game least 0.300 median 0.300 ms (0.90 / 0.90 ms a 3-game table); each: "
        "0.300 0.300 0.300",
        "new   16 slots, 3 rounds: its CPU a game least 0.100 median 0.150 ms (0.30 / 0.45 ms a 3-game table); each: "
        "0.200 0.150 0.100",
        "4 slots: median new/old 0.50",
        "16 slots: median new/old 0.50"]
    assert (old / "bench" / "runs").read_text() == (new / "bench" / "runs").read_text() == "3"


def test_a_tree_whose_bench_fails_stops_the_rounds_with_its_error(tmp_path: Path) -> None:
    scaling = load_scaling()
    broken = tmp_path / "broken"
    (broken / "bench").mkdir(parents=True)
    (broken / "bench" / "scaling.py").write_text("raise SystemExit('no such option: --players')\n")
    with pytest.raises(SystemExit, match=f"{broken}/bench/scaling.py failed:\n.*no such option: --players"):
        scaling.in_turn({"old": broken}, 2, ["--coordinator-only", "--games", "8"], 3)
