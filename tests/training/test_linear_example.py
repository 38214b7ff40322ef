"""The trained example (docs/examples/linear_bot.py): greedy's weights make it the greedy bot, its own weights are
trained, and it goes to the ladder through ``arena submit`` like any bot file."""
from __future__ import annotations

import os
from pathlib import Path

from arena.play.players import InProcessPlayer
from arena.play.referee import play_game
from engine import classic_rules
from forked_arena import arena_run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "linear_bot.py"
GREEDY = ROOT / "bots" / "greedy_bot.py"
WEIGHTS = "WEIGHTS: tuple[float, ...] = ("


def with_weights(tmp_path: Path, weights: list[float]) -> Path:
    head, rest = EXAMPLE.read_text(encoding="utf-8").split(WEIGHTS, 1)
    path = tmp_path / "linear_bot.py"
    path.write_text(head + WEIGHTS + ", ".join(map(str, weights)) + ")" + rest.split(")", 1)[1], encoding="utf-8")
    return path


def test_with_greedys_weights_it_plays_as_greedy(tmp_path: Path) -> None:
    bot = with_weights(tmp_path, [1.0] + [0.0] * 15)
    for seed in (1, 2):
        seats = [InProcessPlayer(bot), InProcessPlayer(GREEDY), InProcessPlayer(GREEDY)]
        mine = play_game(classic_rules(), seed, seats)
        greedy = play_game(classic_rules(), seed, [InProcessPlayer(GREEDY) for _ in range(3)])
        assert [s.coins for s in mine.seats] == [s.coins for s in greedy.seats]


def test_its_weights_are_trained() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    weights = [float(w) for w in text.split(WEIGHTS, 1)[1].split(")", 1)[0].replace("\n", " ").split(",") if w.strip()]
    assert len(weights) == 16 and weights[0] == 1.0 and any(w != 0.0 for w in weights[1:])


def test_it_is_submitted_through_arena_submit(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = arena_run(["--db", f"sqlite:///{db}", "submit", str(EXAMPLE),
                             "--name", "linear-example"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                            env=env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "linear-example version 1 registered" in result.stdout
