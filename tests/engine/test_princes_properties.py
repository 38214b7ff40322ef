"""Property tests of the Princes variants over random legal playouts, and JSON round-trips of their
actions, events, views and rules. Invariants: card conservation (the box included), termination,
only the active player decides, refused actions change nothing, and views leak neither the
opponent's hand, the supply's order nor a face-down Vine card."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Action, BuyField, ClaimTask, DiscardHand, DiscardMiddle, Harvest, IllegalAction, Pass, PayTribute, Plant,
    PlantMiddle, PrincesGame, PrincesView, Rules, action_from_json, action_to_json, duel_rules, event_from_json,
    event_to_json, rules_for, solo_rules, view_from_json,
)
from engine.actions import PRINCES_ACTIONS, PRINCES_KINDS
from engine.events import PRINCES_EVENTS
from strategy.policies import princes_greedy_action, random_action
from engine_helpers import decision_of, hidden_permuted, junk_on_field
from princes_helpers import COMPOSITION, all_cards, princes_game, princes_of, snapshot

MAX_DECISIONS = 5000
SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FACE_DOWN_DUEL = Rules.from_json({**duel_rules().to_json(), "princes": {**princes_of(duel_rules()).to_json(),
                                                                         "vine_face_down": True}})


def junk(game, rng: random.Random):
    beans = game.rules.beans
    kind = rng.randrange(7)
    if kind < 2:
        return junk_on_field(kind, rng)
    if kind == 2:
        return DiscardHand(rng.randrange(-1, 8))
    if kind == 3:
        return PlantMiddle(rng.choice(beans), rng.randrange(-1, 4))
    if kind == 4:
        return DiscardMiddle(rng.choice(beans))
    return rng.choice([Pass(), ClaimTask(), PayTribute(), BuyField()])


def vine_hidden_permuted(game: PrincesGame, seat: int, rng: random.Random) -> PrincesGame:
    """A copy in which everything ``seat`` must not know is changed: the supply's order, the other
    hands (cards redistributed, sizes kept) and the order of the face-down Vine cards."""
    other = hidden_permuted(game, seat, rng)
    hidden = other.vine[other.revealed:]
    rng.shuffle(hidden)
    other.vine[other.revealed:] = hidden
    other._decision = None
    return other


def play_checked(rules, players: int, seed: int, policy_seed: int, greedy: bool = False):
    game = princes_game(rules, players, seed)
    rng = random.Random(policy_seed)
    junk_rng = random.Random(policy_seed ^ 0x5EED)
    decisions = 0
    while not game.over:
        decisions += 1
        assert decisions <= MAX_DECISIONS, "the game does not end"
        decision = decision_of(game)
        assert decision.seat == game.active == game.to_move and decision.kind in PRINCES_KINDS
        if junk_rng.random() < 0.15:
            action = junk(game, junk_rng)
            if action not in decision.options:
                before = snapshot(game)
                with pytest.raises(IllegalAction) as info:
                    game.apply(action)
                assert (json.dumps(action_to_json(action), separators=(",", ":")) in str(info.value)
                        and info.value.rule[:2] in ("P-", "S-"))
                assert snapshot(game) == before
                continue
        hand_sizes = [len(s.hand) for s in game.seats]
        positions = [s.position for s in game.seats]
        action = princes_greedy_action(game, rng) if greedy else random_action(game, rng)
        game.apply(action)
        assert all_cards(game) == COMPOSITION and game.card_count() == 98
        for p, s in enumerate(game.seats):
            assert s.position >= positions[p] and s.position <= game.castle
            assert (not game.over) or s.hand == []
            assert all((b is None) == (n == 0) for b, n in zip(s.field_beans, s.field_counts))
            if p != game.active and not game.over and game.turn == 0:
                assert len(s.hand) == hand_sizes[p]
        if decisions % 7 == 0 and not game.over:
            for seat in range(players):
                data = game.view_json(seat)
                assert vine_hidden_permuted(game, seat, junk_rng).view_json(seat) == data
    assert game.result is not None and game.decision is None
    assert len(game.result.coins) == players
    return game


@pytest.mark.parametrize("rules,players", [(duel_rules(), 2), (solo_rules(), 1), (FACE_DOWN_DUEL, 2)],
                         ids=["duel", "solo", "duel-face-down"])
@SETTINGS
@given(seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32 - 1))
def test_random_playouts_keep_every_invariant(rules, players, seed, policy_seed):
    play_checked(rules, players, seed, policy_seed)


@pytest.mark.parametrize("variant,players", [("duel", 2), ("solo", 1)])
def test_greedy_playouts_keep_every_invariant_and_reach_the_castle(variant, players):
    reasons: Counter[str] = Counter()
    for seed in range(3):
        game = play_checked(rules_for(variant), players, seed, seed, greedy=True)
        reasons[game.end_reason] += 1
    if variant == "duel":
        assert reasons["castle"] >= 2


# --------------------------------------------------------------------------- JSON
def wire(value):
    return json.loads(json.dumps(value))


SAMPLES: list[Action] = [Plant(1), Pass(), BuyField(), Harvest(0), PlantMiddle(rules_for("duel").beans[3], 2),
           DiscardMiddle(rules_for("duel").beans[0]), DiscardHand(4), ClaimTask(), PayTribute()]


def test_every_princes_action_round_trips():
    assert {type(a) for a in SAMPLES} == set(PRINCES_ACTIONS)
    for action in SAMPLES:
        assert action_from_json(wire(action_to_json(action))) == action
    assert action_to_json(PlantMiddle(rules_for("duel").beans[0], 1)) == {"type": "plant_middle", "bean": "blue",
                                                                          "field": 1}
    assert action_to_json(ClaimTask()) == {"type": "claim_task"}
    with pytest.raises(ValueError, match="purple"):
        action_from_json({"type": "plant_middle", "bean": "purple", "field": 0})


def test_events_and_views_of_real_games_round_trip():
    seen, kinds = set(), set()
    for variant, players, seed in (("duel", 2, 1), ("duel", 2, 2), ("solo", 1, 3), ("solo", 1, 7)):
        game = princes_game(rules_for(variant), players, seed)
        rng = random.Random(seed)
        while not game.over:
            kinds.add(decision_of(game).kind)
            for seat in range(players):
                assert isinstance(view_from_json(wire(game.view_json(seat))), PrincesView)
                assert PrincesView.from_json(wire(game.view_json(seat))) == game.view(seat)
            options = decision_of(game).options
            buy = [a for a in options if isinstance(a, (BuyField, Harvest))]
            game.apply(buy[0] if buy and rng.random() < 0.05 else princes_greedy_action(game, rng))
        for event in game.events:
            seen.add(type(event))
            assert event_from_json(wire(event_to_json(event))) == event
    assert kinds == PRINCES_KINDS
    assert seen == set(PRINCES_EVENTS)


def test_rules_round_trip_and_classic_json_is_unchanged():
    for name in ("duel", "solo"):
        rules = rules_for(name)
        data = wire(rules.to_json())
        assert Rules.from_json(data) == rules and data["princes"]["tasks"][0]["text"]
    assert "princes" not in rules_for("classic").to_json()
    with pytest.raises(ValueError, match="malformed"):
        Rules.from_json({**duel_rules().to_json(), "princes": {"solo": True}})
    with pytest.raises(ValueError, match="malformed view"):
        PrincesView.from_json({"variant": "duel"})
