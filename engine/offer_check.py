"""Whether an offer is legal, judged from what the offering seat sees (its ``View``), before it is sent.

The engine applies the same rules to its own state (``ClassicGame._do_offer``); this is for a seat that
composes an offer by hand (a person's seat), so that it is told why before anything is sent. Tests check
that both agree on every offer of many random games.
"""
from __future__ import annotations

from engine.actions import DecisionKind, Offer
from engine.rules import Rules
from engine.views import View


def offer_problem(rules: Rules, view: View, kind: DecisionKind, offer: Offer) -> str | None:
    """Why ``offer`` by ``view``'s seat cannot be made at a ``kind`` decision (with its rule), or None."""
    seat, active = view.seat, view.active
    if kind is DecisionKind.TRADE_OFFER:
        to = offer.to
        if to is not None and (not 0 <= to < view.players or to == seat):
            return f"C-6.1: there is no other seat {to!r} to trade with"
    elif kind is DecisionKind.TRADE_RESPOND:
        to = active if offer.to is None else offer.to
        if to != active:
            return f"C-6.1: trades are only with the active player (seat {active})"
    else:
        return f"C-6.8: no offer can be made at a {kind.value} decision"
    area = view.trade_areas[seat]
    if offer.give_trade and seat != active:
        return "C-6.2: only the active player trades from the trading area"
    for positions, size, where in ((offer.give_hand, len(view.hand), "hand"),
                                   (offer.give_trade, len(area), "trading area")):
        if len(set(positions)) != len(positions):
            return f"C-6.2: a {where} position is named twice"
        for i in positions:
            if not 0 <= i < size:
                return f"C-6.2: there is no card at {where} position {i!r} (it holds {size})"
    if any(area[i].locked for i in offer.give_trade):
        return "C-6.3: a card received in a trade is planted, never traded again"
    for bean in offer.want:
        try:
            rules.bean_type(bean)
        except ValueError:
            return f"C-1.1: {bean.value!r} is not a bean of this game"
    if not offer.give_hand and not offer.give_trade and not offer.want:
        return "C-6.8: an offer gives or wants at least one card"
    if not offer.want and not rules.gifts_by_consent and to is None:
        return "C-6.5: a gift needs a named receiver"
    if rules.bounded_offers:
        payable = _payable(view, to)
        if len(offer.want) > payable:
            return f"C-6.9: it wants {len(offer.want)} cards, and no partner could pay more than {payable} now"
    return None


def _payable(view: View, to: int | None) -> int:
    """C-6.9: the most cards a partner could pay for an offer of ``view``'s seat to ``to`` (None: everybody)."""
    active = view.active
    if view.seat != active:  # a counter-offer: the active player pays from the hand and untraded turn-ups
        return view.hand_sizes[active] + sum(not card.locked for card in view.trade_areas[active])
    partners = [to] if to is not None else [k for k in range(view.players) if k != view.seat]
    return max(view.hand_sizes[k] for k in partners)
