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
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from engine.actions import DecisionKind
from engine.cards import Bean
from engine.classic import ClassicGame, SeatState
from engine.events import Event, FieldBought, Harvested, Reshuffled
from engine.rules import Rules
from engine.views import PrincesView, View

if TYPE_CHECKING:
    from engine.princes import PrincesGame

SUPPORTED_KINDS = (DecisionKind.PLANT_FIRST, DecisionKind.PLANT_SECOND, DecisionKind.TRADE_OFFER,
                   DecisionKind.PLANT_TRADED)


@dataclass(frozen=True)
class Hidden:
    """One full assignment of the cards a view leaves open.

    ``hands[s]`` is seat ``s``'s hand, front first (the viewer's own must equal ``view.hand``);
    ``deck`` ends with its top card, ``discard`` with its top card; ``treasuries[s]`` are seat
    ``s``'s coin cards, oldest first.
    """

    hands: tuple[tuple[Bean, ...], ...]
    deck: tuple[Bean, ...]
    discard: tuple[Bean, ...]
    treasuries: tuple[tuple[Bean, ...], ...]


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


def check_public(view: View, discard: Sequence[Bean], treasuries: Sequence[Sequence[Bean]]) -> None:
    """Raise ``ValueError`` unless the discard pile and the treasuries fit the view."""
    if len(discard) != view.discard_size:
        raise ValueError(f"discard pile of {len(discard)} cards, the view says {view.discard_size}")
    if (discard[-1] if discard else None) is not view.discard_top:
        raise ValueError("discard pile top does not match the view")
    if len(treasuries) != view.players:
        raise ValueError(f"{len(treasuries)} treasuries for {view.players} seats")
    if len(treasuries[view.seat]) != view.coins:
        raise ValueError(f"own treasury of {len(treasuries[view.seat])} coins, the view says {view.coins}")


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
    """The ``ClassicGame`` whose state is ``view`` completed by ``hidden``, waiting for decision ``kind``.

    ``game.view(view.seat) == view`` and ``game.card_count() == rules.deck_size``; future reshuffles
    use ``random.Random(seed)``. Raises ``ValueError`` for an inconsistent input or an unsupported
    ``kind`` (see the module docstring).
    """
    _check(rules, view, hidden, kind)
    # Every attribute ``ClassicGame.__init__`` sets is set here (a test compares the two), without
    # paying for its shuffle and deal: search bots build thousands of these per decision.
    game = ClassicGame.__new__(ClassicGame)
    game.rules = rules
    game.players = view.players
    game.seed = seed
    game._rng = random.Random(seed)
    game.seats = [SeatState(hand=list(hidden.hands[seat]),
                            field_beans=[f.bean for f in view.fields[seat]],
                            field_counts=[f.count for f in view.fields[seat]],
                            treasury=list(hidden.treasuries[seat]),
                            trade=[c.bean for c in view.trade_areas[seat]],
                            trade_locked=[c.locked for c in view.trade_areas[seat]])
                  for seat in range(view.players)]
    game.deck = list(hidden.deck)
    game.discard = list(hidden.discard)
    game.reshuffles = view.reshuffles
    game.turn = view.turn
    game.active = view.active
    game.events = []
    game.history = []
    game.over = False
    game.result = None
    game.offer = None
    game.responses = []
    game._respond_queue = []
    game._round_quiet = True
    game._dealless = 0  # not in the view: a sample assumes the round may still run its full course
    game.final_hands = None  # a game being decided has not ended
    game._round_dealt = False
    game._plant_queue = []
    game._decision = None
    game.trade_round = view.trade.round if view.trade is not None else 0
    game.phase = kind
    n = view.players
    if kind is DecisionKind.PLANT_TRADED:
        order = [(view.active + k) % n for k in range(n)]
        first = next(k for k, seat in enumerate(order) if view.trade_areas[seat])
        game.to_move = order[first]
        game._plant_queue = [order[k] for k in range(n - 1, first, -1)]
    else:
        game.to_move = view.active
    return game


def _check(rules: Rules, view: View, hidden: Hidden, kind: DecisionKind) -> None:
    if view.rules_id != rules.id:
        raise ValueError(f"view of {view.rules_id}, rules {rules.id}")
    if kind not in SUPPORTED_KINDS:
        raise ValueError(f"cannot build a game waiting for {kind.value} (hand positions of offers are unknown)")
    n = view.players
    if len(hidden.hands) != n or len(hidden.treasuries) != n:
        raise ValueError("one hand and one treasury per seat are needed")
    if tuple(hidden.hands[view.seat]) != tuple(view.hand):
        raise ValueError("the viewer's hand differs from the view")
    for seat in range(n):
        if len(hidden.hands[seat]) != view.hand_sizes[seat]:
            raise ValueError(f"seat {seat}: hand of {len(hidden.hands[seat])}, the view says {view.hand_sizes[seat]}")
    if len(hidden.deck) != view.deck_size:
        raise ValueError(f"deck of {len(hidden.deck)}, the view says {view.deck_size}")
    check_public(view, hidden.discard, hidden.treasuries)
    total: Counter[Bean] = Counter(hidden.deck)
    total.update(hidden.discard)
    for seat in range(n):
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


def build_princes_game(rules: Rules, view: PrincesView, rng: random.Random,
                       discard: Sequence[Bean] | None = None) -> PrincesGame:
    """A ``PrincesGame`` that matches ``view`` in everything public and in the viewer's own hand and gold,
    with the rest guessed at random: the other hand, the supply's order, the discard pile below its top
    (unless ``discard``, the whole pile as followed from the events, is given and fits the view),
    the face-down vine cards, the others' gold (0) and the kinds of coin cards. Every unplaced card is
    taken as equally likely anywhere. The game waits for the viewer's decision ``view.phase``; it is for
    look-ahead only (its events and history start empty)."""
    from engine.princes import PrincesGame, TurnLog

    princes = rules.princes
    if princes is None or view.phase is None:
        raise ValueError(f"{view.rules_id} view has no Princes decision to build a game for")
    game = PrincesGame(rules, view.players, rng.getrandbits(63))
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

    def take(n: int) -> list[Bean]:
        got = [cards.pop() for _ in range(min(n, len(cards)))]
        return got + [rules.beans[0]] * (n - len(got))  # only if the view was inconsistent

    for seat, s in enumerate(game.seats):
        s.hand = list(view.hand) if seat == view.seat else take(view.hand_sizes[seat])
        s.field_beans = [f.bean for f in view.fields[seat]]
        s.field_counts = [f.count for f in view.fields[seat]]
        s.treasury = take(view.coins) if seat == view.seat else []
        s.position = view.figures[seat]
    game.deck = take(view.deck_size)
    if known and discard is not None:  # known implies a discard pile was given
        game.discard = list(discard)
    else:
        game.discard = take(max(view.discard_size - 1, 0)) + ([view.discard_top] if view.discard_top else [])
    game.box = take(view.box)
    game.middle = dict(view.middle)
    hidden = [t for t in princes.tasks if t not in set(view.vine)]
    rng.shuffle(hidden)
    game.vine = [t if t is not None else hidden.pop() for t in view.vine]
    game.castle = view.castle
    game.revealed = sum(t is not None for t in view.vine)
    for name, position in view.neutral:
        setattr(game, name, position)
    game.reshuffles, game.turn, game.active, game.to_move = view.reshuffles, view.turn, view.active, view.seat
    game.phase = DecisionKind(view.phase)
    t = view.this_turn
    game.log = TurnLog(t.phase, list(t.phase1_plants), t.phase1_discards, t.phase1_over, list(t.phase2_turned),
                       list(t.phase2_from_discard), list(t.phase3_planted), list(t.harvests), t.started, t.claimed,
                       t.tributes)
    game.events, game.history = [], []
    game._decision = None
    return game


def follow_princes_discard(pile: list[Bean], events: Sequence[object]) -> None:
    """Keep ``pile`` (the Princes discard pile, top last) up to date from public events: discards and
    cashed-in beans go on it, phase 2 takes from its top, a reshuffle empties it (gold paid goes to the
    box, not onto the pile)."""
    from engine.events import Discarded, Harvested, Reshuffled, TookDiscard

    for event in events:
        if isinstance(event, Discarded):
            pile.extend(event.beans)
        elif isinstance(event, Harvested):
            pile.extend([event.bean] * (event.beans - event.coins))
        elif isinstance(event, TookDiscard):
            del pile[len(pile) - len(event.beans):]
        elif isinstance(event, Reshuffled):
            pile.clear()
