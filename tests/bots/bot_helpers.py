"""Helpers for the bot tests."""
from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Sequence

from arena.play.players import InProcessPlayer
from arena.play.referee import play_game
from arena.play.records import GameRecord
from engine import classic_rules
from sandbox.values import Limits

BOTS = Path(__file__).resolve().parents[2] / "bots"
NAMES = ("random", "greedy", "trader", "search")
#: Tests give the search bot a short clock (its budget is a share of the decision limit).
FAST = Limits(decision_ms=50.0, bank_ms=10_000.0)


def player(name: str, seat: int, limits: Limits = FAST) -> InProcessPlayer:
    return InProcessPlayer(BOTS / f"{name}_bot.py", f"{name}{seat}", limits)


def play(names: Sequence[str], seed: int, limits: Limits = FAST) -> tuple[GameRecord, list[InProcessPlayer]]:
    players = [player(n, i, limits) for i, n in enumerate(names)]
    return play_game(classic_rules(), seed, players, limits), players


def bot_of(p: InProcessPlayer) -> Any:
    """The SDK bot object behind an in-process player (its ``act`` is a bound method); ``Any``: each test
    reads the attributes its own bot class keeps."""
    assert isinstance(p._act, types.MethodType), p._act
    return p._act.__self__
