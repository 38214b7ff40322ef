"""C-6.7 (classic-v3): one seat that keeps every trading round alive without closing a deal (the
hostile bot tests/sandbox/hostile/trade_griefer.py, played in-process) cannot make the others decide
more than twice as often in a game as its harmless twin does: trading ends after the second round in
a row without a deal."""
from __future__ import annotations

from pathlib import Path

import pytest

from arena.play.players import InProcessPlayer
from arena.play.referee import play_game
from arena.play.records import GameRecord
from engine import classic_rules, rules_for
from engine.events import Traded, TradingEnded, TurnStarted
from engine.rules import Rules
from sandbox.values import Limits

ROOT = Path(__file__).resolve().parents[2]
GRIEFER = ROOT / "tests" / "sandbox" / "hostile" / "trade_griefer.py"
#: the factor C-6.7 and D-1 state: rounds without a deal end trading after the second in a row
FACTOR = 2
SEEDS = range(8)


def griefer_file(tmp_path: Path, mode: str) -> Path:
    path = tmp_path / f"griefer_{mode}.py"
    source = GRIEFER.read_text(encoding="utf-8")
    assert 'MODE = "grief"' in source
    path.write_text(source.replace('MODE = "grief"', f'MODE = "{mode}"'), encoding="utf-8")
    return path


#: (rules id, mode, honest bot, players, seed) -> the game's record
PLAYED: dict[tuple[str, str, str, int, int], GameRecord] = {}


def play(rules: Rules, tmp_path: Path, mode: str, honest: str, players: int, seed: int) -> GameRecord:
    """One game with the griefer (or its twin) at seat 0; the same game is played once a module (the
    bots are seeded, so it is the same record) and shared by the tests that read it."""
    key = (rules.id, mode, honest, players, seed)
    if key not in PLAYED:
        PLAYED[key] = play_once(rules, tmp_path, mode, honest, players, seed)
    return PLAYED[key]


def play_once(rules: Rules, tmp_path: Path, mode: str, honest: str, players: int, seed: int) -> GameRecord:
    seats = [InProcessPlayer(griefer_file(tmp_path, mode), "griefer")]
    seats += [InProcessPlayer(ROOT / "bots" / f"{honest}_bot.py", f"{honest}{k}") for k in range(1, players)]
    record = play_game(rules, seed, seats, Limits(decision_ms=50.0), bot_seeds=list(range(players)))
    assert [s.status.value for s in record.seats] == ["ok"] * players, record.seats
    return record


@pytest.mark.parametrize("honest", ["trader", "greedy", "random"])
@pytest.mark.parametrize("players", [3, 4, 5])
def test_griefer_cannot_multiply_the_others_decisions(tmp_path, honest, players):
    rules = classic_rules()
    for seed in SEEDS:
        grief = play(rules, tmp_path, "grief", honest, players, seed)
        twin = play(rules, tmp_path, "twin", honest, players, seed)
        for seat in range(1, players):
            assert grief.seats[seat].decisions <= FACTOR * twin.seats[seat].decisions, (
                seed, seat, [s.decisions for s in grief.seats], [s.decisions for s in twin.seats])


@pytest.mark.parametrize("players", [3, 5])
def test_no_turn_trades_more_than_two_rounds_in_a_row_without_a_deal(tmp_path, players):
    """The rule itself, read off the events of griefed games: a turn's trading rounds are at most
    two more than twice its deals."""
    for seed in SEEDS:
        record = play(classic_rules(), tmp_path, "grief", "random", players, seed)
        deals = 0
        for event in record.replay.events:
            if isinstance(event, TurnStarted):
                deals = 0
            elif isinstance(event, Traded):
                deals += 1
            elif isinstance(event, TradingEnded):
                assert event.rounds <= FACTOR * (deals + 1), (seed, event, deals)


def test_classic_v2_games_keep_their_six_rounds(tmp_path):
    """The retired rules replay as they were played: under classic-v2 the griefer still held trading open."""
    record = play(rules_for("classic-v2"), tmp_path, "grief", "greedy", 3, 0)
    assert record.rules_id == "classic-v2"
    assert max(e.rounds for e in record.replay.events if isinstance(e, TradingEnded)) == 6
