"""What one seat's view leaves open, as a value: ``Hidden``, one full guess of it, and the checks that a guess
fits the view. ``ClassicGame.from_view`` and ``PrincesGame.from_view`` build a game from a view and a guess, as
OpenSpiel's ``ResampleFromInfostate`` does: a search bot samples guesses and plays each one out."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from engine.actions import DecisionKind
from engine.cards import Bean
from engine.rules import Rules
from engine.views import PrincesView, View

#: the decisions a classic game can be rebuilt at from a view: those where the public table and the hands fix
#: everything the state machine needs (a round under way needs the hand positions of its offers, never shown)
CLASSIC_KINDS = (DecisionKind.PLANT_FIRST, DecisionKind.PLANT_SECOND, DecisionKind.TRADE_OFFER,
                 DecisionKind.PLANT_TRADED)


@dataclass(frozen=True)
class Hidden:
    """One full assignment of the cards a view leaves open.

    ``hands[s]`` is seat ``s``'s hand, front first (the viewer's own must equal ``view.hand``); ``deck`` ends
    with its top card, ``discard`` with its top card; ``treasuries[s]`` are seat ``s``'s coin cards, oldest
    first. The Princes games also hide the ``box`` (gold paid out of the game) and the face-down cards of the
    ``vine`` (every card's task id, those face up as the view shows them); a classic guess leaves both empty.
    """

    hands: tuple[tuple[Bean, ...], ...]
    deck: tuple[Bean, ...]
    discard: tuple[Bean, ...]
    treasuries: tuple[tuple[Bean, ...], ...]
    box: tuple[Bean, ...] = ()
    vine: tuple[str, ...] = ()


def check_public(view: View, discard: Sequence[Bean], treasuries: Sequence[Sequence[Bean]]) -> None:
    """Raise ``ValueError`` unless a classic discard pile and treasuries fit the view."""
    if len(discard) != view.discard_size:
        raise ValueError(f"discard pile of {len(discard)} cards, the view says {view.discard_size}")
    if (discard[-1] if discard else None) is not view.discard_top:
        raise ValueError("discard pile top does not match the view")
    if len(treasuries) != view.players:
        raise ValueError(f"{len(treasuries)} treasuries for {view.players} seats")
    if len(treasuries[view.seat]) != view.coins:
        raise ValueError(f"own treasury of {len(treasuries[view.seat])} coins, the view says {view.coins}")


def check_classic(rules: Rules, view: View, hidden: Hidden, kind: DecisionKind) -> None:
    """Raise ``ValueError`` unless ``hidden`` completes ``view`` to a whole deck and a game waiting for ``kind``
    can be built from them (``CLASSIC_KINDS``, each in the position it needs)."""
    if view.rules_id != rules.id:
        raise ValueError(f"view of {view.rules_id}, rules {rules.id}")
    if kind not in CLASSIC_KINDS:
        raise ValueError(f"cannot build a game waiting for {kind.value} (hand positions of offers are unknown)")
    _check_hands(view, hidden)
    if len(hidden.deck) != view.deck_size:
        raise ValueError(f"deck of {len(hidden.deck)}, the view says {view.deck_size}")
    check_public(view, hidden.discard, hidden.treasuries)
    total: Counter[Bean] = Counter(hidden.deck)
    total.update(hidden.discard)
    for seat in range(view.players):
        total.update(hidden.hands[seat])
        total.update(hidden.treasuries[seat])
        total.update(c.bean for c in view.trade_areas[seat])
        for f in view.fields[seat]:
            if f.bean is not None:
                total[f.bean] += f.count
    expected = Counter({t.bean: t.count for t in rules.bean_types})
    if +total != expected:
        raise ValueError(f"cards do not add up to the deck: {dict(total - expected)} extra, "
                         f"{dict(expected - total)} missing")
    trade = view.trade
    any_traded = any(view.trade_areas)
    if kind is DecisionKind.TRADE_OFFER:
        if trade is None or trade.offer is not None or trade.responses:
            raise ValueError("trade_offer needs a view at the start of a trading round")
    elif trade is not None:
        raise ValueError(f"{kind.value} needs a view outside trading")
    elif kind is DecisionKind.PLANT_TRADED:
        if not any_traded:
            raise ValueError("plant_traded needs a card in some trading area")
    elif any_traded or not view.hand_sizes[view.active]:
        raise ValueError(f"{kind.value} needs empty trading areas and a hand to plant from")


def check_princes(rules: Rules, view: PrincesView, hidden: Hidden) -> None:
    """Raise ``ValueError`` unless ``hidden`` has the shape ``view`` asks for: a hand of each seat's size (the
    viewer's own as shown), a treasury a seat, a deck of the view's size and the face-up vine cards as shown.
    Whether the cards add up to the deck is not checked: a guess may stand in for cards it could not place."""
    if view.rules_id != rules.id or rules.princes is None:
        raise ValueError(f"view of {view.rules_id}, rules {rules.id}")
    if view.phase is None:
        raise ValueError(f"{view.rules_id} view has no decision to build a game for")
    _check_hands(view, hidden)
    if len(hidden.treasuries) != view.players or len(hidden.treasuries[view.seat]) != view.coins:
        raise ValueError(f"a treasury a seat is needed, the viewer's of {view.coins} gold")
    if len(hidden.deck) != view.deck_size:
        raise ValueError(f"deck of {len(hidden.deck)}, the view says {view.deck_size}")
    if len(hidden.vine) != len(view.vine) or any(t is not None and t != g for t, g in zip(view.vine, hidden.vine)):
        raise ValueError(f"vine {hidden.vine!r} does not show the view's face-up cards {view.vine!r}")


def _check_hands(view: View | PrincesView, hidden: Hidden) -> None:
    if len(hidden.hands) != view.players or len(hidden.treasuries) != view.players:
        raise ValueError("one hand and one treasury per seat are needed")
    if tuple(hidden.hands[view.seat]) != tuple(view.hand):
        raise ValueError("the viewer's hand differs from the view")
    for seat in range(view.players):
        if len(hidden.hands[seat]) != view.hand_sizes[seat]:
            raise ValueError(f"seat {seat}: hand of {len(hidden.hands[seat])}, the view says {view.hand_sizes[seat]}")
