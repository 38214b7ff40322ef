"""The fixed, capped action space every environment of this package shares (docs/training.md has the table).

An index names an action *shape*, the same at every decision, so that a policy's output ``i`` always means
the same kind of move. At a decision, an index is legal when the engine lists that action among its options
(or, for an offer slot, when the offer the slot builds from the seat's view passes the engine's own check,
``engine.offer_check.offer_problem``). Beyond the caps below an option has no index: a decision always keeps
at least one legal index (the engine lists the mandatory plantings, passes and ``EndTrading`` first).

Offers are open-ended in the rules; here only the active player's offers to everybody at the opening of
trading are expressible, built from its trading area and fields (``OFFER_SLOTS``); counter-offers are not.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from engine.actions import (
    Accept, Action, BuyField, ClaimTask, Confirm, DecisionKind, DiscardHand, DiscardMiddle, EndTrading, Harvest,
    Offer, Pass, PayTribute, Plant, PlantMiddle, PlantTraded,
)
from engine.cards import Bean
from engine.offer_check import offer_problem
from engine.rules import Rules
from engine.views import PrincesView, View

FIELDS = 3  # the most fields a seat can own (both rule sets)
TRADE_CAP = 6  # trading-area positions with an index (two turned up plus cards received in trades)
HAND_CAP = 12  # hand positions ``DiscardHand`` can name
CONFIRM_CAP = 4  # responses of a round ``Confirm`` can close (one per other seat of a 5-seat table)
BEANS: tuple[Bean, ...] = tuple(Bean)  # every bean of every rule set, in the enum's order
TRADE_AREA_OFFERS = 2  # offer slots per single turned-up card (positions 0 and 1 of the trading area)


@dataclass(frozen=True, slots=True)
class OfferSlot:
    """An offer to everybody: give the trading-area card at ``card`` (``None``: every card whose bean grows in
    none of the seat's fields), want one bean of the seat's field ``field`` (``None``: nothing, a gift)."""

    card: int | None
    field: int


OFFER_SLOTS: tuple[OfferSlot, ...] = tuple(
    OfferSlot(card, field) for card in (*range(TRADE_AREA_OFFERS), None) for field in range(FIELDS))

_FIXED: tuple[Action, ...] = (
    Pass(), EndTrading(), BuyField(), ClaimTask(), PayTribute(), Accept(),
    *(Plant(f) for f in range(FIELDS)),
    *(Harvest(f) for f in range(FIELDS)),
    *(PlantTraded(c, f) for c in range(TRADE_CAP) for f in range(FIELDS)),
    *(DiscardMiddle(b) for b in BEANS),
    *(PlantMiddle(b, f) for b in BEANS for f in range(FIELDS)),
    *(DiscardHand(c) for c in range(HAND_CAP)),
    *(Confirm(r) for r in range(CONFIRM_CAP)),
)
ACCEPT = 5  # ``Accept`` with the payment the engine suggests (its option's hand positions)
_CONFIRM0 = len(_FIXED) - CONFIRM_CAP
OFFER0 = len(_FIXED)
N_ACTIONS = OFFER0 + len(OFFER_SLOTS)
_INDEX: dict[Action, int] = {a: i for i, a in enumerate(_FIXED) if i != ACCEPT and i < _CONFIRM0}


def index_of(action: Action) -> int | None:
    """The index of an engine option, or None when it is beyond the caps (Accept and Confirm by their
    response, whatever cards the engine suggests to pay with)."""
    if isinstance(action, Accept):
        return ACCEPT
    if isinstance(action, Confirm):
        return _CONFIRM0 + action.response if action.response < CONFIRM_CAP else None
    return _INDEX.get(action)


def describe(index: int) -> str:
    """A short name of index ``index`` (docs, debugging)."""
    if not 0 <= index < N_ACTIONS:
        raise ValueError(f"no action index {index!r} (there are {N_ACTIONS})")
    if index >= OFFER0:
        slot = OFFER_SLOTS[index - OFFER0]
        give = "homeless trade cards" if slot.card is None else f"trade card {slot.card}"
        return f"offer({give} for field {slot.field}'s bean)"
    if index == ACCEPT:
        return "accept"
    return repr(_FIXED[index])


def slot_offer(view: View, slot: OfferSlot) -> Offer | None:
    """The offer ``slot`` makes from ``view`` (None when the slot makes no offer there)."""
    area = view.trade_areas[view.seat]
    growing = {f.bean for f in view.fields[view.seat] if f.bean is not None}
    if slot.card is None:
        give = tuple(i for i, c in enumerate(area) if not c.locked and c.bean not in growing)
    else:
        give = (slot.card,) if slot.card < len(area) and not area[slot.card].locked else ()
    bean = view.fields[view.seat][slot.field].bean if slot.field < len(view.fields[view.seat]) else None
    if not give or bean is None:
        return None
    return Offer(give_trade=give, want=(bean,))


@dataclass(frozen=True, slots=True)
class Choices:
    """The legal indices of one decision and the engine action each one plays."""

    actions: dict[int, Action]

    def mask(self) -> list[int]:
        """1 at every legal index, 0 elsewhere (length ``N_ACTIONS``)."""
        return [1 if i in self.actions else 0 for i in range(N_ACTIONS)]

    def legal(self) -> list[int]:
        return sorted(self.actions)


def choices(rules: Rules, view: View | PrincesView, kind: DecisionKind, options: Sequence[Action]) -> Choices:
    """The indexed choices of a decision: the engine's options that have an index, then the offer slots."""
    actions: dict[int, Action] = {}
    for option in options:
        i = index_of(option)
        if i is not None and i not in actions:
            actions[i] = option
    if kind is DecisionKind.TRADE_OFFER and isinstance(view, View) and view.trade is not None \
            and view.trade.round == 0:
        for k, slot in enumerate(OFFER_SLOTS):
            offer = slot_offer(view, slot)
            if offer is not None and offer_problem(rules, view, kind, offer) is None:
                actions[OFFER0 + k] = offer
    if not actions:  # never seen: every option beyond the caps; the first stays playable as index 0
        actions[0] = options[0]
    return Choices(actions)
