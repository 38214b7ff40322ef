"""Actions a seat can take, and the decisions that ask for them."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from engine import wire
from engine.cards import Bean


class DecisionKind(enum.Enum):
    """What a seat is being asked to choose."""

    PLANT_FIRST = "plant_first"        # C-5.1: plant the front card of the hand
    PLANT_SECOND = "plant_second"      # C-5.2: plant the next card, or pass
    TRADE_OFFER = "trade_offer"        # C-6.8: active player: make an offer or end trading
    TRADE_RESPOND = "trade_respond"    # C-6.8: other players: accept, counter, give, or pass
    TRADE_CONFIRM = "trade_confirm"    # C-6.8: active player: close one deal of this round, or none
    PLANT_TRADED = "plant_traded"      # C-5.5: plant one card of one's trading area
    TAKE_MIDDLE = "take_middle"        # P-4.1: Princes phase 0: plant or discard what the opponent left
    DISCARD_HAND = "discard_hand"      # P-4.3: Princes phase 1: discard one hand card after planting, or not
    KEEP_MIDDLE = "keep_middle"        # P-4.6: Princes phase 3: plant whole types from the middle, then pass


CLASSIC_KINDS = frozenset({
    DecisionKind.PLANT_FIRST, DecisionKind.PLANT_SECOND, DecisionKind.TRADE_OFFER, DecisionKind.TRADE_RESPOND,
    DecisionKind.TRADE_CONFIRM, DecisionKind.PLANT_TRADED})
PRINCES_KINDS = frozenset({
    DecisionKind.TAKE_MIDDLE, DecisionKind.PLANT_FIRST, DecisionKind.PLANT_SECOND, DecisionKind.DISCARD_HAND,
    DecisionKind.KEEP_MIDDLE})


@dataclass(frozen=True, slots=True)
class Plant:
    """Plant the front card of the hand into ``field`` (cashing the field in first if it holds another bean)."""

    TYPE: ClassVar[str] = "plant"
    field: int


@dataclass(frozen=True, slots=True)
class PlantTraded:
    """Plant card ``card`` of one's trading area into ``field``."""

    TYPE: ClassVar[str] = "plant_traded"
    card: int
    field: int


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline: no second planting, no response, or no deal this round."""

    TYPE: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class BuyField:
    """Buy the third field for the rules' price (the same seat then decides again)."""

    TYPE: ClassVar[str] = "buy_field"


@dataclass(frozen=True, slots=True)
class Harvest:
    """Cash in one's own ``field`` (the same seat then decides again)."""

    TYPE: ClassVar[str] = "harvest"
    field: int


@dataclass(frozen=True, slots=True)
class Offer:
    """Propose a deal: give the cards at these positions, want these beans in return.

    ``give_hand`` are positions in the proposer's hand, ``give_trade`` positions in the
    proposer's trading area (active player only). ``to`` is the partner; the active player
    may leave it ``None`` to offer to everybody. An offer that wants nothing is a gift.
    """

    TYPE: ClassVar[str] = "offer"
    give_hand: tuple[int, ...] = ()
    give_trade: tuple[int, ...] = ()
    want: tuple[Bean, ...] = ()
    to: int | None = None


@dataclass(frozen=True, slots=True)
class EndTrading:
    """The active player closes trading."""

    TYPE: ClassVar[str] = "end_trading"


@dataclass(frozen=True, slots=True)
class Accept:
    """Accept the active player's offer of this round, paying with these hand positions."""

    TYPE: ClassVar[str] = "accept"
    give_hand: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Confirm:
    """Active player: close the deal of response number ``response`` of this round.

    For an acceptance of one's own offer, the cards are those offered (leave give empty);
    for a counter-offer, name the cards (hand and trading-area positions) that pay its wants.
    """

    TYPE: ClassVar[str] = "confirm"
    response: int
    give_hand: tuple[int, ...] = ()
    give_trade: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PlantMiddle:
    """Princes: plant every middle card of ``bean`` into own ``field`` (phases 0 and 3)."""

    TYPE: ClassVar[str] = "plant_middle"
    bean: Bean
    field: int


@dataclass(frozen=True, slots=True)
class DiscardMiddle:
    """Princes phase 0: put every middle card of ``bean`` on the discard pile."""

    TYPE: ClassVar[str] = "discard_middle"
    bean: Bean


@dataclass(frozen=True, slots=True)
class DiscardHand:
    """Princes phase 1: put the card at hand position ``card`` on the discard pile."""

    TYPE: ClassVar[str] = "discard_hand"
    card: int


@dataclass(frozen=True, slots=True)
class ClaimTask:
    """Princes: fulfil the task of the next vine card (or enter the Castle); the figure moves onto it."""

    TYPE: ClassVar[str] = "claim_task"


@dataclass(frozen=True, slots=True)
class PayTribute:
    """Princes: pay the tribute in gold instead of fulfilling the next task; the figure moves onto it."""

    TYPE: ClassVar[str] = "pay_tribute"


Action = Union[Plant, PlantTraded, Pass, BuyField, Harvest, Offer, EndTrading, Accept, Confirm,
               PlantMiddle, DiscardMiddle, DiscardHand, ClaimTask, PayTribute]

CLASSIC_ACTIONS = (Plant, PlantTraded, Pass, BuyField, Harvest, Offer, EndTrading, Accept, Confirm)
PRINCES_ACTIONS = (Plant, Pass, BuyField, Harvest, PlantMiddle, DiscardMiddle, DiscardHand, ClaimTask, PayTribute)
ACTION_TYPES: dict[str, type] = {cls.TYPE: cls for cls in CLASSIC_ACTIONS + PRINCES_ACTIONS}


def action_to_json(action: Action) -> dict[str, Any]:
    return wire.to_json(action)


def action_from_json(data: object) -> Action:
    return wire.from_json(ACTION_TYPES, data, "action")


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must choose what. ``options`` lists every legal action, except that for the
    trade kinds the offers, acceptances and confirmations are open-ended and are checked
    against the constraints in the seat's view instead."""

    seat: int
    kind: DecisionKind
    options: tuple[Action, ...]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind.value,
                "options": [action_to_json(a) for a in self.options]}


_new = object.__new__
_set_seat, _set_kind, _set_options = (getattr(Decision, name).__set__ for name in ("seat", "kind", "options"))


def new_decision(seat: int, kind: DecisionKind, options: tuple[Action, ...]) -> Decision:
    """``Decision(seat, kind, options)``, made in about half the time: the frozen ``__init__`` sets each field
    through ``object.__setattr__``; the referee makes one of these at nearly every step."""
    decision: Decision = _new(Decision)
    _set_seat(decision, seat)
    _set_kind(decision, kind)
    _set_options(decision, options)
    return decision
