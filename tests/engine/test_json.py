"""JSON round-trips of every wire value, and errors on malformed input (ValueError quoting the input)."""
from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import (
    ACTION_TYPES, Accept, Action, Bean, BuyField, ClassicGame, Confirm, DecisionKind, EndTrading, GameResult,
    Harvest, IllegalAction, Offer, Pass, Plant, PlantTraded, Rules, View, action_from_json, action_to_json,
    classic_rules, event_from_json, event_to_json, rules_for,
)
from engine.actions import CLASSIC_ACTIONS, CLASSIC_KINDS
from engine.events import CLASSIC_EVENTS
from engine.replay import Replay
from engine_helpers import BLUE, CHILI, GARDEN, GREEN, RED, SOY, STINK, buy_or_harvest, decision_of, set_position

RULES = classic_rules()

SAMPLE_ACTIONS: list[Action] = [
    Plant(0), Plant(2), PlantTraded(1, 0), Pass(), BuyField(), Harvest(1), EndTrading(),
    Offer(), Offer(give_hand=(3, 0), give_trade=(1,), want=(Bean.BLACK_EYED, Bean.GARDEN), to=2),
    Offer(give_hand=(1,), want=(), to=None), Accept(), Accept((4, 2)), Confirm(0), Confirm(2, (0, 1), (1,)),
]


def wire(value):
    """Through real JSON text, as a bot would send it."""
    return json.loads(json.dumps(value))


def test_every_action_type_round_trips():
    classes: tuple[type[Action], ...] = CLASSIC_ACTIONS
    assert {type(a).TYPE for a in SAMPLE_ACTIONS} == {cls.TYPE for cls in classes}
    assert {cls.TYPE for cls in classes} <= set(ACTION_TYPES)
    for action in SAMPLE_ACTIONS:
        data = wire(action_to_json(action))
        assert data["type"] == type(action).TYPE
        assert action_from_json(data) == action


def test_action_json_is_plain():
    assert action_to_json(Offer(give_hand=(1,), want=(Bean.BLACK_EYED,), to=None)) == {
        "type": "offer", "give_hand": [1], "give_trade": [], "want": ["black_eyed"], "to": None}
    assert action_to_json(Plant(1)) == {"type": "plant", "field": 1}
    assert action_from_json({"type": "confirm", "response": 1}) == Confirm(1)


def greedy_buyer(game: ClassicGame, rng: random.Random) -> Action:
    return buy_or_harvest(game, rng, harvest_rate=0.05, offer_rate=0.4)


def finished_games(n: int = 6):
    games = []
    for seed in range(n):
        game = ClassicGame(RULES, 3 + seed % 3, seed)
        rng = random.Random(seed)
        while not game.over:
            game.apply(greedy_buyer(game, rng))
        games.append(game)
    return games


@pytest.fixture(scope="module")
def games():
    return finished_games()


def test_every_event_type_of_real_games_round_trips(games):
    seen = set()
    for game in games:
        for event in game.events:
            seen.add(event.TYPE)
            data = wire(event_to_json(event))
            assert event_from_json(data) == event
    assert seen == {cls.TYPE for cls in CLASSIC_EVENTS}


def test_views_round_trip_in_every_kind_of_decision(games):
    kinds = set()
    for seed in range(3):
        game = ClassicGame(RULES, 4, seed)
        rng = random.Random(seed)
        while not game.over:
            kinds.add(decision_of(game).kind)
            for seat in range(game.players):
                assert View.from_json(wire(game.view_json(seat))) == game.view(seat)
            game.apply(greedy_buyer(game, rng))
    assert kinds == CLASSIC_KINDS


def test_view_with_offer_acceptance_and_counter_offer_round_trips():
    game = ClassicGame(RULES, 3, 1)
    set_position(game, hands=[[BLUE], [GARDEN, RED], [SOY, CHILI]], trade=[[GREEN, STINK], [], []],
                 deck=[BLUE] * 6, phase=DecisionKind.TRADE_OFFER)
    game.apply(Offer(give_trade=(0,), want=(GARDEN,)))
    game.apply(Accept((0,)))
    game.apply(Offer(give_hand=(1,), want=(STINK,)))
    view = game.view(2)
    assert view.trade is not None and view.trade.offer is not None and len(view.trade.responses) == 2
    assert [r.accept for r in view.trade.responses] == [True, False]
    assert View.from_json(wire(game.view_json(2))) == view


def test_rules_round_trip():
    rules = classic_rules()
    data = wire(rules.to_json())
    assert data["id"] == "classic-v3" and data["gifts_by_consent"] is True and data["bounded_offers"] is True
    assert data["dealless_rounds"] == 2
    again = Rules.from_json(data)
    assert again == rules and again.id == rules.id
    assert again.coins_for(Bean.RED, 5) == 4
    assert rules_for("classic") is rules and rules_for("classic-v3") is rules
    v2 = rules_for("classic-v2")
    assert v2.id == "classic-v2" and v2.dealless_rounds == 0 and "dealless_rounds" not in v2.to_json()
    assert Rules.from_json(wire(v2.to_json())) == v2  # JSON written before classic-v3 reads as classic-v2
    old = rules_for("classic-v1")
    assert old.id == "classic-v1" and not old.gifts_by_consent and not old.bounded_offers
    assert Rules.from_json(wire(old.to_json())) == old
    v1_json = {k: v for k, v in old.to_json().items() if k not in ("gifts_by_consent", "bounded_offers")}
    assert Rules.from_json(v1_json) == old  # JSON written before the flags existed reads as v1


def test_replay_dumps_and_loads(games):
    for game in games:
        replay = Replay.of(game, [f"bot{i}" for i in range(game.players)], forfeits=[1])
        text = replay.dumps()
        again = Replay.loads(text)
        assert again == replay
        assert again.result == game.result and again.forfeits == (1,)
        assert json.loads(text)["rules_id"] == "classic-v3"


def test_game_result_round_trips(games):
    for game in games:
        assert GameResult.from_json(wire(game.result.to_json())) == game.result


# --------------------------------------------------------------------------- malformed input
MALFORMED_ACTIONS = [
    "plant",
    [1, 2],
    None,
    {"field": 0},
    {"type": "sow", "field": 0},
    {"type": ["plant"], "field": 0},
    {"type": "plant"},
    {"type": "plant", "field": "0"},
    {"type": "plant", "field": True},
    {"type": "plant", "field": 1.5},
    {"type": "plant", "field": 0, "bean": "blue"},
    {"type": "offer", "want": ["coffee"]},
    {"type": "offer", "want": "blue"},
    {"type": "offer", "give_hand": [0, "1"]},
    {"type": "offer", "to": "everybody", "want": ["red"]},
    {"type": "confirm"},
]


@pytest.mark.parametrize("data", MALFORMED_ACTIONS, ids=repr)
def test_malformed_action_json_is_a_value_error_quoting_the_input(data):
    with pytest.raises(ValueError) as info:
        action_from_json(data)
    assert not isinstance(info.value, IllegalAction)
    assert repr(data) in str(info.value)


@pytest.mark.parametrize("data", [
    {"type": "planted", "seat": 0, "bean": "blue", "field": 0},
    {"type": "traded", "a": 0, "b": 1, "a_gave": ["blue"], "b_gave": "red"},
    {"type": "game_over"},
    7,
], ids=repr)
def test_malformed_event_json_is_a_value_error_quoting_the_input(data):
    with pytest.raises(ValueError) as info:
        event_from_json(data)
    assert repr(data) in str(info.value)


def test_malformed_view_rules_result_and_replay_are_value_errors_quoting_the_input(games):
    view = games[0].view_json(0)
    bad_views = [{}, {**view, "hand": ["coffee"]}, {**view, "coins": "many"}, {**view, "fields": 3}]
    data: Any  # malformed input of every shape, as JSON text may hold
    for data in bad_views:
        with pytest.raises(ValueError) as info:
            View.from_json(data)
        assert repr(data)[:60] in str(info.value), str(info.value)
    rules = classic_rules().to_json()
    for data in [{}, {**rules, "hand_size": "five"}, {**rules, "beans": [{"bean": "blue"}]}, [1]]:
        with pytest.raises(ValueError) as info:
            Rules.from_json(data)
        assert repr(data)[:60] in str(info.value), str(info.value)
    for data in [{"coins": [1]}, {"coins": [1, "x"], "ranks": [1, 2]}]:
        with pytest.raises(ValueError) as info:
            GameResult.from_json(data)
        assert repr(data) in str(info.value)
    for text in ["", "{not json", "[1, 2"]:
        with pytest.raises(ValueError) as info:
            Replay.loads(text)
        assert repr(text) in str(info.value), str(info.value)
    replay = Replay.of(games[0], ["a", "b", "c"]).to_json()
    for data in [[], {**replay, "format": 99}, {**replay, "actions": [[0]]}, {**replay, "seed": "abc"},
                 {**replay, "actions": [[0, {"type": "plant"}]]},
                 {k: v for k, v in replay.items() if k != "seats"}]:
        with pytest.raises(ValueError) as info:
            Replay.loads(json.dumps(data))
        assert str(data)[:60] in str(info.value), str(info.value)[:300]
