"""engine.offer_check judges an offer from the seat's view exactly as the engine judges it on its state."""
from __future__ import annotations

import random

import pytest

from engine import Bean, DecisionKind, IllegalAction, Offer, View, new_game, rules_for
from engine.offer_check import offer_problem
from strategy.policies import random_action

TRADING = (DecisionKind.TRADE_OFFER, DecisionKind.TRADE_RESPOND)


def wild_offer(rng: random.Random, players: int, hand: int, area: int, beans: tuple[Bean, ...]) -> Offer:
    """An offer that is often illegal: positions out of range or named twice, any receiver, any wants."""
    def positions(size: int) -> tuple[int, ...]:
        return tuple(rng.randrange(-1, size + 2) for _ in range(rng.randrange(0, 3)))
    want = tuple(rng.choice(beans) for _ in range(rng.randrange(0, 5)))
    to = rng.choice([None, *range(-1, players + 1)])
    return Offer(positions(hand), positions(area) if rng.random() < 0.5 else (), want, to)


@pytest.mark.parametrize("rules_id", ["classic-v3", "classic-v2", "classic-v1"])
def test_the_view_check_agrees_with_the_engine_on_every_offer(rules_id: str) -> None:
    rules = rules_for(rules_id)
    checked = {True: 0, False: 0}
    for seed in range(10):
        game = new_game(rules, 3 + seed % 3, seed)
        rng = random.Random(seed)
        while not game.over:
            decision = game.decision
            assert decision is not None
            if decision.kind in TRADING:
                view = game.view(decision.seat)
                assert isinstance(view, View)
                for _ in range(4):  # an illegal offer leaves the game as it was (IllegalAction is raised first)
                    offer = wild_offer(rng, game.players, len(view.hand), len(view.trade_areas[decision.seat]),
                                       rules.beans)
                    problem = offer_problem(rules, view, decision.kind, offer)
                    try:
                        game.apply(offer)
                    except IllegalAction as exc:
                        assert problem is not None, (offer, str(exc))
                        assert problem.split(":")[0] in str(exc), (problem, str(exc))  # the same rule named
                        checked[False] += 1
                        continue
                    assert problem is None, (offer, problem)
                    checked[True] += 1
                    break
                else:
                    game.apply(random_action(game, rng))
                continue
            game.apply(random_action(game, rng))
    assert checked[True] > 50 and checked[False] > 50, checked


def test_an_offer_at_a_planting_decision_is_refused() -> None:
    rules = rules_for("classic")
    game = new_game(rules, 3, 1)
    view = game.view(0)
    assert isinstance(view, View)
    assert offer_problem(rules, view, DecisionKind.PLANT_FIRST, Offer((0,))) == \
        "C-6.8: no offer can be made at a plant_first decision"
