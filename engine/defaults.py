"""The move the referee makes for a seat that has forfeited (a crashed or timed-out bot).

``default_action`` never trades and plants where it loses the least; in the Princes variants it also
claims every task it can, plants middle cards only onto their own kind and never pays tribute.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.actions import (
    Action, ClaimTask, DecisionKind, DiscardMiddle, EndTrading, Pass, Plant, PlantMiddle, PlantTraded,
)

if TYPE_CHECKING:
    from engine.classic import SeatState
    from engine.game import Game, TableSeat


def default_action(game: Game[TableSeat]) -> Action:
    """The forfeit policy: plant where it costs least, never plant a second card, never trade."""
    decision = game.decision
    assert decision is not None, "the game is over"  # the referee never asks once the game is over
    kind = decision.kind
    seat = decision.seat
    if kind is DecisionKind.TRADE_OFFER:
        return EndTrading()
    if ClaimTask() in decision.options:
        return ClaimTask()
    if kind in (DecisionKind.PLANT_FIRST, DecisionKind.PLANT_TRADED):
        plants = [a for a in decision.options if isinstance(a, (Plant, PlantTraded))]
        return min(plants, key=lambda a: _field_score(game, seat, a))
    if kind is DecisionKind.TAKE_MIDDLE:
        beans = game.seats[seat].field_beans
        grow = [a for a in decision.options if isinstance(a, PlantMiddle) and beans[a.field] is a.bean]
        return grow[0] if grow else next(a for a in decision.options if isinstance(a, DiscardMiddle))
    return Pass()


def _field_score(game: Game[TableSeat], seat: int, action: Plant | PlantTraded) -> tuple[int, int]:
    """Prefer a field of the same bean, then an empty one, then the cheapest field to lose."""
    s = game.seats[seat]
    field = action.field
    bean = s.hand[0] if isinstance(action, Plant) else _classic_seat(s).trade[action.card]
    current = s.field_beans[field]
    if current is bean:
        return (0, -s.field_counts[field])
    if current is None:
        return (1, 0)
    return (2, s.field_counts[field] - game.rules.coins_for(current, s.field_counts[field]) * 10)


def _classic_seat(s: TableSeat) -> SeatState:
    """``s`` as the seat of a classic game: only the classic game trades, and its module is loaded by then."""
    from engine.classic import SeatState

    assert isinstance(s, SeatState), s
    return s
