"""Determinization: a complete ``ClassicGame`` built from one seat's ``View`` plus a guess of what it
cannot see. Search bots sample many such guesses and play each out (determinized Monte Carlo).

Pure functions, no I/O: a bot in the sandbox imports this module from memory.

What a view does not show (C-8): the other hands, the deck order, the discard pile below its top
card and every treasury but one's own. The public events do show every harvest and every field
purchase, so a seat that follows the events knows each treasury and the discard pile exactly
(since the last reshuffle); ``Hidden`` takes those as given. What stays unknown is which unseen
card is in which hand and where in the deck: ``unseen_cards`` is that multiset and
``sample_hidden`` deals it out at random.

The approximation: every unseen card is treated as equally likely to be anywhere among the other
hands and the deck. Exact only before the first reshuffle; afterwards the deck is really the old
discard pile and the hands hold older cards, and the sampler ignores that. It also ignores what
trading hints (a seat that passed on an offer probably lacked the bean), except for cards a seat
has shown this round (``known_in_hand``: the cards it offered or paid), which it must still hold.

``build_game`` supports the states where the public table and the hands fix everything the state
machine needs: ``plant_first``, ``plant_second``, ``trade_offer`` at the start of a trading round
(no open offer or response) and ``plant_traded``. A bot deciding mid-round (``trade_respond``,
``trade_confirm``) builds the round's start instead and replays the round with engine actions.

The games themselves are built by the engine from a view and a guess (``ClassicGame.from_view``,
``PrincesGame.from_view``, engine/hidden.py): this module only guesses.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from engine.actions import DecisionKind
from engine.cards import Bean
from engine.classic import ClassicGame
from engine.events import Discarded, Event, FieldBought, Harvested, Reshuffled, TookDiscard
from engine.hidden import CLASSIC_KINDS, Hidden, check_public
from engine.rules import Rules
from engine.views import PrincesView, View

if TYPE_CHECKING:
    from engine.princes import PrincesGame

__all__ = ["SUPPORTED_KINDS", "Hidden", "Tracker", "build_game", "build_princes_game", "check_public",
           "follow_princes_discard", "princes_unseen", "sample_hidden", "sample_princes_hidden", "unseen_cards",
           "visible_cards"]

SUPPORTED_KINDS = CLASSIC_KINDS


def visible_cards(view: View) -> Counter[Bean]:
    """Every card the view shows by bean: own hand, all fields, all trading areas (not the discard top:
    the whole discard pile is counted separately)."""
    seen: Counter[Bean] = Counter(view.hand)
    for fields in view.fields:
        for f in fields:
            if f.bean is not None:
                seen[f.bean] += f.count
    for area in view.trade_areas:
        for card in area:
            seen[card.bean] += 1
    return seen


def unseen_cards(rules: Rules, view: View, discard: Sequence[Bean],
                 treasuries: Sequence[Sequence[Bean]]) -> Counter[Bean]:
    """The cards that are in the other hands or the deck: the full deck minus the view's cards, the
    discard pile and the treasuries. Raises ``ValueError`` if these do not fit in the deck."""
    pool: Counter[Bean] = Counter({t.bean: t.count for t in rules.bean_types})
    used = visible_cards(view)
    used.update(discard)
    for treasury in treasuries:
        used.update(treasury)
    pool.subtract(used)
    negative = {b.value: n for b, n in pool.items() if n < 0}
    if negative:
        raise ValueError(f"more cards seen than the deck holds: {negative}")
    return +pool


def sample_hidden(rules: Rules, view: View, discard: Sequence[Bean], treasuries: Sequence[Sequence[Bean]],
                  rng: random.Random, known_in_hand: Mapping[int, Sequence[Bean]] | None = None) -> Hidden:
    """Deal the unseen cards at random: each other seat gets its hand size (including the cards
    ``known_in_hand`` says it holds, at random places), the rest is the deck in random order."""
    check_public(view, discard, treasuries)
    pool = unseen_cards(rules, view, discard, treasuries)
    known = {s: list(cards) for s, cards in (known_in_hand or {}).items() if s != view.seat}
    for seat, cards in known.items():
        for bean in cards:
            if pool[bean] <= 0:
                raise ValueError(f"seat {seat} cannot hold {bean.value}: none unseen")
            pool[bean] -= 1
    cards = list(pool.elements())
    rng.shuffle(cards)
    hands: list[tuple[Bean, ...]] = []
    for seat in range(view.players):
        if seat == view.seat:
            hands.append(tuple(view.hand))
            continue
        hand = known.get(seat, [])
        need = view.hand_sizes[seat] - len(hand)
        if need < 0 or need > len(cards):
            raise ValueError(f"seat {seat} holds {view.hand_sizes[seat]} cards; cannot deal its hand")
        hand = hand + [cards.pop() for _ in range(need)]
        rng.shuffle(hand)
        hands.append(tuple(hand))
    if len(cards) != view.deck_size:
        raise ValueError(f"{len(cards)} unseen cards left for a deck of {view.deck_size}")
    return Hidden(tuple(hands), tuple(cards), tuple(discard), tuple(tuple(t) for t in treasuries))


class Tracker:
    """Treasuries and discard pile of the classic game, followed through the public events (C-8.3, C-8.4):
    what ``sample_hidden`` and ``check_public`` take as given."""

    def __init__(self, players: int) -> None:
        self.treasuries: list[list[Bean]] = [[] for _ in range(players)]
        self.discard: list[Bean] = []

    def see(self, events: Iterable[Event]) -> None:
        """Follow ``events``, oldest first."""
        for e in events:
            if isinstance(e, Harvested):
                self.treasuries[e.seat].extend([e.bean] * e.coins)
                self.discard.extend([e.bean] * (e.beans - e.coins))
            elif isinstance(e, FieldBought):
                del self.treasuries[e.seat][len(self.treasuries[e.seat]) - len(e.paid):]
                self.discard.extend(e.paid)
            elif isinstance(e, Reshuffled):
                self.discard = []

    def consistent(self, view: View) -> bool:
        """Whether what was followed fits ``view`` (see ``check_public``)."""
        try:
            check_public(view, self.discard, self.treasuries)
        except ValueError:
            return False
        return True


def build_game(rules: Rules, view: View, hidden: Hidden, kind: DecisionKind, seed: int = 0) -> ClassicGame:
    """The ``ClassicGame`` whose state is ``view`` completed by ``hidden``, waiting for decision ``kind``
    (``ClassicGame.from_view``): ``game.view(view.seat) == view`` and ``game.card_count() == rules.deck_size``;
    future reshuffles use ``random.Random(seed)``. Raises ``ValueError`` for an inconsistent input or an
    unsupported ``kind`` (see the module docstring)."""
    return ClassicGame.from_view(rules, view, hidden, kind, seed)


# ----------------------------------------------------------------- Princes (duel, solo)
def princes_unseen(rules: Rules, view: PrincesView) -> Counter[Bean]:
    """The cards a Princes view does not place: the deck minus own hand, every field, the middle and
    the discard top. They are somewhere in the supply, the discard pile, the other hand, a treasury
    or the box."""
    pool: Counter[Bean] = Counter({t.bean: t.count for t in rules.bean_types})
    pool.subtract(view.hand)
    for fields in view.fields:
        for f in fields:
            if f.bean is not None:
                pool[f.bean] -= f.count
    for bean, count in view.middle:
        pool[bean] -= count
    if view.discard_top is not None:
        pool[view.discard_top] -= 1
    return +pool


def sample_princes_hidden(rules: Rules, view: PrincesView, rng: random.Random,
                          discard: Sequence[Bean] | None = None) -> Hidden:
    """A guess of what a Princes view hides: the other hand, the supply's order, the discard pile below its top
    (unless ``discard``, the whole pile as followed from the events, is given and fits the view), the box, the
    face-down vine cards, the others' gold (none) and the kinds of one's own coin cards. Every unplaced card is
    taken as equally likely anywhere."""
    princes = rules.princes
    if princes is None:
        raise ValueError(f"{rules.id} is not a Princes variant")
    pool = princes_unseen(rules, view)
    known = discard is not None and len(discard) == view.discard_size and (
        (discard[-1] if discard else None) is view.discard_top)
    if known and discard is not None:
        below = Counter(discard[:-1])
        if all(pool[b] >= n for b, n in below.items()):
            pool.subtract(below)
        else:
            known = False
    cards = list(pool.elements())
    rng.shuffle(cards)

    def take(n: int) -> tuple[Bean, ...]:
        got = [cards.pop() for _ in range(min(n, len(cards)))]
        return tuple(got + [rules.beans[0]] * (n - len(got)))  # only if the view was inconsistent

    hands, treasuries = [], []
    for seat in range(view.players):
        hands.append(tuple(view.hand) if seat == view.seat else take(view.hand_sizes[seat]))
        treasuries.append(take(view.coins) if seat == view.seat else ())
    deck = take(view.deck_size)
    if known and discard is not None:  # known implies a discard pile was given
        pile = tuple(discard)
    else:
        pile = take(max(view.discard_size - 1, 0)) + ((view.discard_top,) if view.discard_top else ())
    box = take(view.box)
    shown = set(view.vine)
    face_down = [t for t in princes.tasks if t not in shown]
    rng.shuffle(face_down)
    vine = tuple(t if t is not None else face_down.pop() for t in view.vine)
    return Hidden(tuple(hands), deck, pile, tuple(treasuries), box, vine)


def build_princes_game(rules: Rules, view: PrincesView, rng: random.Random,
                       discard: Sequence[Bean] | None = None) -> PrincesGame:
    """A ``PrincesGame`` that matches ``view`` in everything public and in the viewer's own hand and gold,
    with the rest guessed at random (``sample_princes_hidden``). The game waits for the viewer's decision
    ``view.phase``; it is for look-ahead only (its events and history start empty)."""
    from engine.princes import PrincesGame  # imported when asked: a bot of the classic game never loads it

    if rules.princes is None or view.phase is None:
        raise ValueError(f"{view.rules_id} view has no Princes decision to build a game for")
    seed = rng.getrandbits(63)
    return PrincesGame.from_view(rules, view, sample_princes_hidden(rules, view, rng, discard), seed)


def follow_princes_discard(pile: list[Bean], events: Sequence[object]) -> None:
    """Keep ``pile`` (the Princes discard pile, top last) up to date from public events: discards and
    cashed-in beans go on it, phase 2 takes from its top, a reshuffle empties it (gold paid goes to the
    box, not onto the pile)."""
    for event in events:
        if isinstance(event, Discarded):
            pile.extend(event.beans)
        elif isinstance(event, Harvested):
            pile.extend([event.bean] * (event.beans - event.coins))
        elif isinstance(event, TookDiscard):
            del pile[len(pile) - len(event.beans):]
        elif isinstance(event, Reshuffled):
            pile.clear()
