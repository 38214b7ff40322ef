"""``ViewText`` writes exactly the JSON of ``view_json`` on every state of many games, for every seat,
with its parts reused across states and across games of one table."""
from __future__ import annotations

import json
import random

import pytest

from engine import new_game, rules_for
from engine.view_text import ViewText


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


@pytest.mark.parametrize("variant, players", [("classic", 3), ("classic", 4), ("classic", 5), ("duel", 2),
                                              ("solo", 1)])
def test_the_text_is_the_json_of_the_view_on_every_state(variant: str, players: int) -> None:
    texts = ViewText(players)  # one for the table: what it keeps from one game must not leak into the next
    states = 0
    for seed in range(3):
        game = new_game(rules_for(variant), players, seed)
        rng = random.Random(seed)
        while not game.over:
            decision = game.decision
            assert decision is not None
            for seat in range(players):
                assert texts.text(game, seat) == compact(game.view_json(seat)), (variant, seed, len(game.history))
            game.apply(rng.choice(decision.options))
            states += 1
    assert states > 100


def test_a_seat_outside_the_table_is_named() -> None:
    game = new_game(rules_for("classic"), 3, 1)
    with pytest.raises(ValueError, match="no seat 3"):
        ViewText(3).text(game, 3)
