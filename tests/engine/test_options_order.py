"""The options list the free actions last, the fast random policy moves as the plain one did, and a decision
made by ``new_decision`` is the one ``Decision`` makes.

``strategy.policies.random_action`` relies on the first: it picks among the options before the free
actions (harvest, buy a field, pay tribute) without filtering them. The plain policy below is the one
every benchmark before issue 28's third round timed (rng.randrange, rng.choice, a filtered list).
"""
from __future__ import annotations

import dataclasses
import random

import pytest

from engine import Action, BuyField, Decision, DecisionKind, Harvest, Offer, Pass, PayTribute, new_game, rules_for
from engine.actions import new_decision
from engine.classic import ClassicGame
from engine.game import Game, TableSeat
from strategy.policies import random_action

FREE = (Harvest, BuyField, PayTribute)
GAMES = [("classic", 3), ("classic", 4), ("classic", 5), ("classic-v2", 4), ("classic-v1", 4), ("duel", 2),
         ("solo", 1)]


def plain_random_action(game: Game[TableSeat], rng: random.Random, offer_rate: float = 0.2) -> Action:
    """The policy as it was written first (99616c0): every draw through ``random.Random``'s own methods."""
    decision = game.decision
    assert decision is not None
    options: list[Action] = [a for a in decision.options if not isinstance(a, FREE)] or list(decision.options)
    if decision.kind.value in ("trade_offer", "trade_respond") and rng.random() < offer_rate:
        assert isinstance(game, ClassicGame)
        seat = game.to_move
        s = game.seats[seat]
        active = seat == game.active
        give_hand = tuple(i for i in range(len(s.hand)) if rng.random() < 0.25)
        give_trade = tuple(i for i, locked in enumerate(s.trade_locked) if active and not locked and rng.random() < 0.5)
        want = tuple(rng.choice(game.rules.beans) for _ in range(rng.randrange(0, 3)))
        if give_hand or give_trade or want:
            to: int | None
            if active:
                others: list[int | None] = [p for p in range(game.players) if p != seat]
                to = rng.choice(others + [None]) if want else rng.choice(others)
            else:
                to = game.active
            if game.rules.bounded_offers:
                want = want[: game.payable(seat, to)]
            if give_hand or give_trade or want:
                return Offer(give_hand, give_trade, want, to)
    return options[rng.randrange(len(options))]


@pytest.mark.parametrize(("rules_id", "players"), GAMES)
def test_free_actions_come_last_and_the_fast_policy_moves_as_the_plain_one(rules_id: str, players: int) -> None:
    rules = rules_for(rules_id)
    free_seen = offers = 0
    for seed in range(12):
        game = new_game(rules, players, seed)
        fast, plain = random.Random(seed), random.Random(seed)
        while not game.over:
            decision = game.decision
            assert decision is not None
            kinds = [isinstance(a, FREE) for a in decision.options]
            assert kinds == sorted(kinds), decision  # False (a choosable option) before True (a free one)
            free_seen += sum(kinds)
            action = random_action(game, fast)
            assert action == plain_random_action(game, plain), (seed, decision)
            offers += isinstance(action, Offer)
            game.apply(action)
        assert fast.getstate() == plain.getstate()
    assert free_seen > 0
    assert offers > 0 or not rules_id.startswith("classic")


def test_new_decision_makes_the_decision_the_constructor_makes() -> None:
    made = new_decision(2, DecisionKind.TRADE_RESPOND, (Pass(), Harvest(1)))
    plain = Decision(2, DecisionKind.TRADE_RESPOND, (Pass(), Harvest(1)))
    assert type(made) is Decision and made == plain and hash(made) == hash(plain) and repr(made) == repr(plain)
    assert made.to_json() == plain.to_json()
    # new_decision sets exactly these fields and skips __init__: a new field or a __post_init__ must be added there
    assert [f.name for f in dataclasses.fields(Decision)] == ["seat", "kind", "options"]
    assert not hasattr(Decision, "__post_init__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, "seat", 3)
