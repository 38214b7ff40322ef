"""``wire.to_text`` writes exactly the compact JSON of ``to_json`` for every event and option of many games, and
for values whose fields are not of their hinted types."""
from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import new_game, rules_for
from engine.actions import Accept, Confirm, Pass, PlantMiddle
from engine.cards import Bean
from engine.events import Drew, FieldBought, GameEnded, Offered, Passed, Planted, Traded
from engine.wire import to_json, to_text


def compact(value: Any) -> str:
    return json.dumps(to_json(value), separators=(",", ":"), allow_nan=False)


@pytest.mark.parametrize("variant, players", [("classic", 4), ("classic", 3), ("duel", 2), ("solo", 1)])
def test_every_event_and_option_is_written_as_its_json(variant: str, players: int) -> None:
    kinds: set[type] = set()
    for seed in range(4):
        game = new_game(rules_for(variant), players, seed)
        rng = random.Random(seed)
        while not game.over:
            decision = game.decision
            assert decision is not None
            for option in decision.options:
                assert to_text(option) == compact(option)
                kinds.add(type(option))
            game.apply(rng.choice(decision.options))
        for event in game.events:
            assert to_text(event) == compact(event), event
            kinds.add(type(event))
    assert len(kinds) >= 10


@pytest.mark.parametrize("value", [
    Planted(1, Bean.RED, 0, "hand"), Planted(0, Bean.BLACK_EYED, 2, 'a "quoted" \\ été'), Pass(),
    Accept((2, 0)), Confirm(1), Offered(0, None, (Bean.RED, Bean.SOY), (), 3), Offered(2, 1, (), (Bean.BLUE,), 0),
    Traded(0, 1, (Bean.GARDEN,), ()), GameEnded((3, 4), (2, 1)), PlantMiddle(Bean.CHILI, 1),
])
def test_a_value_is_written_as_its_json(value: Any) -> None:
    assert to_text(value) == compact(value)


ODD: Any = (Drew, Passed, Planted, Traded, Offered, FieldBought)  # built with fields off their hints


@pytest.mark.parametrize("make", [
    lambda: ODD[0](1, True), lambda: ODD[0](True, 2), lambda: ODD[1](0, 5), lambda: ODD[2](1, None, 0, "hand"),
    lambda: ODD[2](1, "red", 0, "hand"), lambda: ODD[3](0, 1, (1, 2), ("red",)), lambda: ODD[3](0, 1, [], ()),
    lambda: ODD[4](0, 1.5, (), (), 0), lambda: ODD[5](2, (Bean.RED, None)),
])
def test_a_value_with_fields_off_their_hints_is_written_as_the_encoder_writes_its_json(make: Any) -> None:
    assert to_text(make()) == compact(make())


def test_a_value_the_encoder_refuses_is_refused() -> None:
    with pytest.raises(TypeError):
        to_text(ODD[5](2, [Bean.RED]))  # a list keeps its beans, which the encoder does not write
