"""Simple deterministic or seeded policies the referee and tools use directly on the state.

``default_action`` plays for a seat that has forfeited (a crashed or timed-out bot): it never
trades and plants where it loses the least.
"""
from __future__ import annotations

import random

from engine.actions import Action, DecisionKind, EndTrading, Harvest, BuyField, Offer, Pass, Plant, PlantTraded


def _field_score(game, seat: int, action: Action) -> tuple[int, int]:
    """Prefer a field of the same bean, then an empty one, then the cheapest field to lose."""
    s = game.seats[seat]
    field = action.field  # type: ignore[union-attr]
    bean = s.hand[0] if isinstance(action, Plant) else s.trade[action.card]  # type: ignore[union-attr]
    current = s.field_beans[field]
    if current is bean:
        return (0, -s.field_counts[field])
    if current is None:
        return (1, 0)
    return (2, s.field_counts[field] - game.rules.coins_for(current, s.field_counts[field]) * 10)


def default_action(game) -> Action:
    """The forfeit policy: plant where it costs least, never plant a second card, never trade."""
    decision = game.decision
    kind = decision.kind
    seat = decision.seat
    if kind is DecisionKind.TRADE_OFFER:
        return EndTrading()
    if kind in (DecisionKind.PLANT_FIRST, DecisionKind.PLANT_TRADED):
        plants = [a for a in decision.options if isinstance(a, (Plant, PlantTraded))]
        return min(plants, key=lambda a: _field_score(game, seat, a))
    return Pass()


def random_action(game, rng: random.Random, offer_rate: float = 0.2) -> Action:
    """A uniformly random option; now and then a random offer while trading."""
    decision = game.decision
    options = [a for a in decision.options if not isinstance(a, (Harvest, BuyField))] or list(decision.options)
    if decision.kind in (DecisionKind.TRADE_OFFER, DecisionKind.TRADE_RESPOND) and rng.random() < offer_rate:
        offer = _random_offer(game, rng)
        if offer is not None:
            return offer
    return options[rng.randrange(len(options))]


def _random_offer(game, rng: random.Random) -> Offer | None:
    seat = game.to_move
    s = game.seats[seat]
    active = seat == game.active
    give_hand = tuple(i for i in range(len(s.hand)) if rng.random() < 0.25)
    give_trade = tuple(i for i, locked in enumerate(s.trade_locked) if active and not locked and rng.random() < 0.5)
    want = tuple(rng.choice(game.rules.beans) for _ in range(rng.randrange(0, 3)))
    if not (give_hand or give_trade or want):
        return None
    if active:
        others = [p for p in range(game.players) if p != seat]
        to = rng.choice(others + [None]) if want else rng.choice(others)
    else:
        to = game.active
    return Offer(give_hand, give_trade, want, to)
