"""A decision as a numbered menu: each legal option in words, and the moves a person composes (offers,
paying with cards of their choice)."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Sequence

from engine.actions import (
    Accept, Action, BuyField, ClaimTask, Confirm, DecisionKind, DiscardHand, DiscardMiddle, EndTrading, Harvest,
    Offer, Pass, PayTribute, Plant, PlantMiddle, PlantTraded,
)
from engine.cards import Bean
from engine.narration import bean_name, cards, plural, task_text
from engine.rules import Rules
from engine.views import FieldView, PrincesView, View

from arena.formats import format_of
from arena.human.screen import field_text


class Compose(enum.Enum):
    """A move that asks further questions before it is an action."""

    OFFER = "offer"
    ACCEPT = "accept"


@dataclass(frozen=True)
class Choice:
    """One numbered line of the menu: an action as it stands, or a move to compose (``compose``)."""

    label: str
    action: Action | None = None
    compose: Compose | None = None


#: what the person is asked, by decision kind
QUESTIONS = {
    DecisionKind.PLANT_FIRST: "Plant your front card",
    DecisionKind.PLANT_SECOND: "Plant your next card, or not",
    DecisionKind.TRADE_OFFER: "Trade: make an offer, or end trading",
    DecisionKind.TRADE_RESPOND: "Trade: answer the active player",
    DecisionKind.TRADE_CONFIRM: "Trade: close one deal of this round, or none",
    DecisionKind.PLANT_TRADED: "Plant the cards of your trading area",
    DecisionKind.TAKE_MIDDLE: "Plant or discard what your opponent left in the middle",
    DecisionKind.DISCARD_HAND: "Discard a hand card, or keep them all",
    DecisionKind.KEEP_MIDDLE: "Plant whole kinds from the middle, then end your turn",
}
_PASS = {
    DecisionKind.PLANT_SECOND: "Do not plant a second card",
    DecisionKind.TRADE_OFFER: "Make no offer this round",
    DecisionKind.TRADE_RESPOND: "Pass",
    DecisionKind.TRADE_CONFIRM: "Close no deal this round",
    DecisionKind.DISCARD_HAND: "Keep the whole hand",
    DecisionKind.KEEP_MIDDLE: "End your turn",
}


def menu(rules: Rules, view: View | PrincesView, kind: DecisionKind, options: Sequence[Action],
         names: Sequence[str]) -> list[Choice]:
    """The numbered choices of one decision: every option offered, in its order, and what may be composed (an offer
    or a payment, in a format with a trading round: ``Format.trading``)."""
    choices = [Choice(describe(rules, view, kind, a, names), a) for a in options]
    trading = format_of(rules.id).trading
    if trading and isinstance(view, View) and kind in (DecisionKind.TRADE_OFFER, DecisionKind.TRADE_RESPOND):
        to = "" if kind is DecisionKind.TRADE_OFFER else f" to {names[view.active]}"
        choices.append(Choice(f"Make an offer{to}: cards to give, beans wanted…", compose=Compose.OFFER))
        if any(isinstance(a, Accept) for a in options) and _other_payments(view):
            choices.append(Choice("Accept, paying with hand cards you choose…", compose=Compose.ACCEPT))
    return choices


def _other_payments(view: View) -> bool:
    """Whether the offer's wants could be paid with other hand cards than the ones first found."""
    offer = view.trade.offer if view.trade else None
    return offer is not None and any(view.hand.count(b) > offer.want.count(b) for b in set(offer.want))


def describe(rules: Rules, view: View | PrincesView, kind: DecisionKind, action: Action, names: Sequence[str]) -> str:
    """An option in words, with what it does to the person's fields."""
    me = view.seat
    money, monies = rules.money
    fields = view.fields[me]
    if isinstance(action, Plant):
        return f"Plant the {bean_name(rules, view.hand[0])} {_into(rules, fields, action.field, view.hand[0])}"
    if isinstance(action, PlantTraded) and isinstance(view, View):
        bean = view.trade_areas[me][action.card].bean
        return (f"Plant the {bean_name(rules, bean)} (card {action.card + 1} of your trading area) "
                f"{_into(rules, fields, action.field, bean)}")
    if isinstance(action, Harvest):
        return f"Cash in field {action.field + 1}: {field_text(rules, fields[action.field])}"
    if isinstance(action, BuyField):
        return f"Buy a third field for {plural(rules.field_price, money, monies)}"
    if isinstance(action, Pass):
        if kind is DecisionKind.TRADE_CONFIRM and rules.dealless_rounds:
            return f"{_PASS[kind]} ({rules.dealless_rounds} rounds in a row without a deal end trading, C-6.7)"
        return _PASS.get(kind, "Pass")
    if isinstance(action, EndTrading):
        return "End trading"
    if isinstance(action, Accept) and isinstance(view, View) and view.trade and view.trade.offer:
        offer = view.trade.offer
        return (f"Accept: give {paid(rules, view.hand, action.give_hand)} for {cards(rules, offer.give)}")
    if isinstance(action, Confirm) and isinstance(view, View) and view.trade:
        return _confirm(rules, view, action, names)
    if isinstance(action, PlantMiddle) and isinstance(view, PrincesView):
        count = dict(view.middle).get(action.bean, 0)
        return (f"Plant the {plural(count, 'card')} of {bean_name(rules, action.bean)} from the middle "
                f"{_into(rules, fields, action.field, action.bean, count)}")
    if isinstance(action, DiscardMiddle) and isinstance(view, PrincesView):
        count = dict(view.middle).get(action.bean, 0)
        return f"Discard the {plural(count, 'card')} of {bean_name(rules, action.bean)} from the middle"
    if isinstance(action, DiscardHand):
        return f"Discard hand card {action.card + 1}, a {bean_name(rules, view.hand[action.card])}"
    if isinstance(action, ClaimTask) and isinstance(view, PrincesView):
        task = view.next_task
        return "Enter the Castle" if task == "castle" else f"Fulfil the task {task_text(task or '')}"
    if isinstance(action, PayTribute) and rules.princes is not None:
        return (f"Pay {rules.princes.tribute_price} gold as tribute: your figure moves onto the next card "
                "without fulfilling its task")
    return repr(action)  # an action this menu has no words for: still shown, still legal


def paid(rules: Rules, hand: Sequence[Bean], positions: Sequence[int]) -> str:
    """Hand cards by position, in words with their numbers: ``Soy bean (card 3)``."""
    return ", ".join(f"{bean_name(rules, hand[i])} (card {i + 1})" for i in positions) or "nothing"


def _into(rules: Rules, fields: Sequence[FieldView], field: int, bean: Bean, count: int = 1) -> str:
    current = fields[field]
    if current.bean is None or current.count == 0:
        return f"into empty field {field + 1}"
    if current.bean is bean:
        return f"onto field {field + 1}, making {current.count + count}"
    money, monies = rules.money
    worth = rules.bean_type(current.bean).coins_for(current.count)
    return (f"into field {field + 1}, cashing in its {current.count} × {bean_name(rules, current.bean)} "
            f"for {plural(worth, money, monies)} first")


def _confirm(rules: Rules, view: View, action: Confirm, names: Sequence[str]) -> str:
    assert view.trade is not None
    response = view.trade.responses[action.response]
    who = names[response.seat]
    if response.accept and view.trade.offer is not None:
        offer = view.trade.offer
        return f"Close the deal with {who}: you give {cards(rules, offer.give)}, you get {cards(rules, offer.want)}"
    area = view.trade_areas[view.seat]
    give = [f"{bean_name(rules, view.hand[i])} (card {i + 1})" for i in action.give_hand]
    give += [f"{bean_name(rules, area[i].bean)} (trading area)" for i in action.give_trade]
    return (f"Close {who}'s counter-offer: you give {', '.join(give) or 'nothing'}, "
            f"you get {cards(rules, response.give)}")


def offer_words(rules: Rules, view: View, offer: Offer, names: Sequence[str]) -> str:
    """A composed offer in words, before it is sent."""
    area = view.trade_areas[view.seat]
    give = [f"{bean_name(rules, view.hand[i])} (card {i + 1})" for i in offer.give_hand if 0 <= i < len(view.hand)]
    give += [f"{bean_name(rules, area[i].bean)} (trading area)" for i in offer.give_trade if 0 <= i < len(area)]
    to = "everybody" if offer.to is None else names[offer.to]
    want = cards(rules, offer.want)
    return f"give {', '.join(give) or 'nothing'} for {want} to {to}"
