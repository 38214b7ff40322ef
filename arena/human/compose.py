"""Moves a person composes step by step: an offer (cards to give, beans wanted, to whom), and paying for an
accepted offer with hand cards of their choice. Each answer is checked as it is typed, the whole move
before it is sent (``engine.offer_check``), so that nothing illegal leaves the seat."""
from __future__ import annotations

from typing import Sequence

from engine.actions import Accept, DecisionKind, Offer
from engine.cards import same_cards
from engine.narration import bean_name, cards
from engine.offer_check import offer_problem
from engine.rules import Rules
from engine.views import View

from arena.human.menu import offer_words, paid
from arena.human.terminal import Terminal, number

BACK = "back"  # typed at any step: return to the menu


class Back(Exception):
    """The person typed ``back``: return to the decision's menu."""


def pick(term: Terminal, prompt: str, size: int, deadline: float | None, repeat: bool = False,
         allowed: Sequence[int] | None = None) -> tuple[int, ...]:
    """Numbers from 1 to ``size`` typed on one line (Enter: none), as 0-based positions; asked again, with
    the reason, until the line is one; ``repeat``: a number may be typed more than once."""
    while True:
        line = term.ask(prompt, deadline)
        if line.lower() == BACK:
            raise Back()
        words = line.replace(",", " ").split()
        problem = None
        numbers: list[int] = []
        for word in words:
            value = number(word)
            if value is None or not 1 <= value <= size:
                problem = f"{word!r} is not a number from 1 to {size}"
                break
            if allowed is not None and value - 1 not in allowed:
                problem = f"card {word} cannot be traded (it was received in a trade)"
                break
            if value - 1 in numbers and not repeat:
                problem = f"{word} is named twice"
                break
            numbers.append(value - 1)
        if problem is None:
            return tuple(numbers)
        term.say(f"{problem}; try again (or '{BACK}').")


def compose_offer(term: Terminal, rules: Rules, view: View, kind: DecisionKind, names: Sequence[str],
                  deadline: float | None) -> Offer | None:
    """An offer the engine will accept, or None (the person went back to the menu)."""
    me, active = view.seat, view.active
    area = view.trade_areas[me]
    tradable = [i for i, card in enumerate(area) if not card.locked] if me == active else []
    beans = rules.beans
    term.say(f"Compose an offer ('{BACK}' at any question returns to the menu).")
    try:
        while True:
            term.say("Your hand: " + "  ".join(f"{k + 1}. {bean_name(rules, b)}" for k, b in enumerate(view.hand)))
            give_hand = pick(term, "Hand cards to give (their numbers, e.g. '2 4'; Enter: none): ", len(view.hand),
                             deadline) if view.hand else ()
            give_trade: tuple[int, ...] = ()
            if tradable:
                term.say("Your trading area: " + "  ".join(f"{k + 1}. {bean_name(rules, c.bean)}"
                                                          for k, c in enumerate(area) if k in tradable))
                give_trade = pick(term, "Trading-area cards to give (Enter: none): ", len(area), deadline,
                                  allowed=tradable)
            term.say("Beans: " + "  ".join(f"{k + 1}. {bean_name(rules, b)}" for k, b in enumerate(beans)))
            wanted = pick(term, "Beans you want (numbers; repeat one for two cards, e.g. '3 3'; Enter: none): ",
                          len(beans), deadline, repeat=True)
            to: int | None = active
            if not (give_hand or give_trade or wanted):  # refused whoever it is for: not asked
                empty = Offer(to=None if kind is DecisionKind.TRADE_OFFER else active)
                term.say(f"That offer cannot be made ({offer_problem(rules, view, kind, empty)}); "
                         "compose it again.")
                continue
            if kind is DecisionKind.TRADE_OFFER:
                others = [k for k in range(view.players) if k != me]
                listing = "  ".join(f"{n + 1}. {names[k]}" for n, k in enumerate(others))
                chosen = pick(term, f"To whom? {listing}  (Enter: everybody): ", len(others), deadline)
                if len(chosen) > 1:
                    term.say("Name one seat, or press Enter for everybody; compose it again.")
                    continue
                to = others[chosen[0]] if chosen else None
            offer = Offer(give_hand, give_trade, tuple(beans[k] for k in wanted), to)
            problem = offer_problem(rules, view, kind, offer)
            if problem is not None:
                term.say(f"That offer cannot be made ({problem}); compose it again.")
                continue
            if _yes(term, f"Offer: {offer_words(rules, view, offer, names)}. Send it? (y/n) ", deadline):
                return offer
            term.say(f"Not sent; compose it again ('{BACK}' for the menu).")
    except Back:
        return None


def compose_accept(term: Terminal, rules: Rules, view: View, deadline: float | None) -> Accept | None:
    """Accept the round's offer, paid with the hand cards the person picks; None: back to the menu."""
    assert view.trade is not None and view.trade.offer is not None
    want = view.trade.offer.want
    term.say("Your hand: " + "  ".join(f"{k + 1}. {bean_name(rules, b)}" for k, b in enumerate(view.hand)))
    try:
        while True:
            positions = pick(term, f"Hand cards to pay {cards(rules, want)} with: ", len(view.hand), deadline)
            if same_cards(tuple(view.hand[i] for i in positions), want):  # C-6.6, as the engine checks
                if _yes(term, f"Accept, giving {paid(rules, view.hand, positions)}? (y/n) ", deadline):
                    return Accept(positions)
                term.say(f"Not accepted; pick the cards again ('{BACK}' for the menu).")
                continue
            term.say(f"The offer wants {cards(rules, want)}; those are "
                     f"{cards(rules, [view.hand[i] for i in positions])}. Pick again.")
    except Back:
        return None


def _yes(term: Terminal, prompt: str, deadline: float | None) -> bool:
    while True:
        answer = term.ask(prompt, deadline).lower()
        if answer in ("y", "yes"):
            return True
        if answer in ("n", "no"):
            return False
        if answer == BACK:
            raise Back()
        term.say(f"{answer!r}: type y or n.")
