"""bench/bot_speed.py: each example bot's CPU a game and the digest of its games, for each tree."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_bot_speed_bench_prints_a_pace_and_a_replay_digest_a_bot(tmp_path: Path) -> None:
    def ran_once() -> list[str]:
        ran = subprocess.run([sys.executable, str(BENCH / "bot_speed.py"), "--games", "1", "--rounds", "1",
                              "--bots", "random,greedy"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr
        return ran.stdout.strip().splitlines()

    lines = ran_once()
    assert lines[0].startswith("machine: ") and len(lines) == 3
    digests = []
    for bot, line in zip(("random", "greedy"), lines[1:]):
        figures = re.fullmatch(rf"{bot} +this checkout +([\d.]+) ms of CPU a game \(median of 1\)  replays "
                               r"([0-9a-f]{12})", line)
        assert figures is not None, line
        assert float(figures[1]) > 0
        digests.append(figures[2])
    assert digests[0] != digests[1]  # two bots, two games
    assert [line.rsplit(" ", 1)[1] for line in ran_once()[1:]] == digests  # the same deals and seeds: the same games
