"""Every event as one sentence, for every viewer (the terminal, the site, a person's seat).

The sentences are the engine's, so that no viewer keeps its own copy: a viewer shows them as they are.
"""
from __future__ import annotations

from typing import Sequence

from engine.cards import Bean
from engine.events import (
    Accepted, Discarded, Drew, EndTriggered, Event, FieldBought, FigureMoved, GameEnded, Harvested, Offered,
    Passed, Planted, Reshuffled, TaskClaimed, TookDiscard, TradingEnded, Traded, TributePaid, TurnedUp,
    TurnStarted, VineRevealed,
)
from engine.rules import Rules
from engine.vine import CASTLE, TASKS

#: what a seat that passes declines, by decision kind
_PASSES = {
    "plant_second": "does not plant a second card", "trade_offer": "makes no offer this round",
    "trade_respond": "passes", "trade_confirm": "closes no deal this round",
    "discard_hand": "keeps the whole hand", "keep_middle": "ends the turn",
}
_SOURCES = {"hand": "the hand", "middle": "the middle", "trade": "the trading area"}
_ENDINGS = {"neutral": "A neutral figure reached the Castle: the game is lost.",
            "supply": "The supply is exhausted: the game ends."}


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 coin``, ``2 coins``: a count with its noun in the right number."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def bean_name(rules: Rules, bean: Bean) -> str:
    """A bean's printed name (``Chili bean``), or its wire name for a bean these rules lack."""
    try:
        return rules.bean_type(bean).name
    except ValueError:
        return bean.value


def cards(rules: Rules, beans: Sequence[Bean]) -> str:
    """Cards as words, equal beans counted together in the order first seen: ``2 × Chili bean, Soy bean``."""
    if not beans:
        return "nothing"
    counts: dict[Bean, int] = {}
    for bean in beans:
        counts[bean] = counts.get(bean, 0) + 1
    return ", ".join((f"{n} × " if n > 1 else "") + bean_name(rules, b) for b, n in counts.items())


def task_text(task: str) -> str:
    """A vine task's text without its final stop, quoted (a reader knows a task by its text, not its id)."""
    return f"“{TASKS[task].rstrip('.')}”" if task in TASKS else f"task {task}"


def describe(event: Event, names: Sequence[str], rules: Rules, active: int) -> str:
    """``event`` as one sentence; ``names`` names the seats, ``active`` is the seat whose turn it is."""
    def name(seat: int | None) -> str:
        return "everybody" if seat is None else names[seat]

    money, monies = rules.money
    e = event
    if isinstance(e, TurnStarted):
        return f"Turn {e.turn + 1}: {name(e.seat)} is the active player."
    if isinstance(e, Planted):
        return (f"{name(e.seat)} plants a {bean_name(rules, e.bean)} from {_SOURCES.get(e.source, e.source)} "
                f"in field {e.field + 1}.")
    if isinstance(e, Harvested):
        return (f"{name(e.seat)} cashes in field {e.field + 1}: {e.beans} × {bean_name(rules, e.bean)} "
                f"for {plural(e.coins, money, monies)}.")
    if isinstance(e, FieldBought):
        return f"{name(e.seat)} buys a third field for {plural(len(e.paid), money, monies)}."
    if isinstance(e, Passed):
        return f"{name(e.seat)} {_PASSES.get(e.kind, f'passes ({e.kind})')}."
    if isinstance(e, TurnedUp):
        return f"{name(e.seat)} turns up {cards(rules, e.beans)}."
    if isinstance(e, Offered):
        if not e.want and not rules.gifts_by_consent:  # classic-v1: a gift moves at once (C-6.5)
            return f"{name(e.seat)} gives {cards(rules, e.give)} to {name(e.to)} (no consent needed)."
        if not e.want:  # only an offer: the cards move with a traded event, if it is accepted
            return (f"{name(e.seat)} offers {cards(rules, e.give)} to {name(e.to)} as a gift, "
                    f"asking nothing back (round {e.round + 1}).")
        return (f"{name(e.seat)} offers {cards(rules, e.give)} for {cards(rules, e.want)} to {name(e.to)} "
                f"(round {e.round + 1}).")
    if isinstance(e, Accepted):
        return f"{name(e.seat)} accepts the offer of {name(active)}."
    if isinstance(e, Traded):
        if not e.a_gave:
            return f"Deal: {name(e.b)} gives {cards(rules, e.b_gave)} to {name(e.a)} as a gift."
        if not e.b_gave:
            return f"Deal: {name(e.a)} gives {cards(rules, e.a_gave)} to {name(e.b)} as a gift."
        return f"Deal: {name(e.a)} gives {cards(rules, e.a_gave)} to {name(e.b)} for {cards(rules, e.b_gave)}."
    if isinstance(e, TradingEnded):
        return (f"{name(e.seat)} ends trading after {plural(e.rounds, 'round')}." if e.rounds
                else f"{name(e.seat)} ends trading without an offer.")
    if isinstance(e, Drew):
        return f"{name(e.seat)} draws {plural(e.cards, 'card')}."
    if isinstance(e, Reshuffled):
        return f"The discard pile is shuffled into a new deck of {plural(e.deck, 'card')} (reshuffle {e.reshuffles})."
    if isinstance(e, GameEnded):
        scores = ", ".join(f"{names[i]} {plural(c, money, monies)}" for i, c in enumerate(e.coins))
        won_or_lost = (": won." if e.ranks[0] == 1 else ": lost.") if rules.against_the_deck else "."
        return f"Game over. {scores}" + won_or_lost
    if isinstance(e, Discarded):
        return f"{name(e.seat)} discards {cards(rules, e.beans)} from {_SOURCES.get(e.source, e.source)}."
    if isinstance(e, TookDiscard):
        return f"{name(e.seat)} takes {cards(rules, e.beans)} from the discard pile into the middle."
    if isinstance(e, TaskClaimed):
        if e.task == CASTLE:
            return f"{name(e.seat)} enters the Castle."
        return f"{name(e.seat)} fulfils the task {task_text(e.task)} and moves onto card {e.position}."
    if isinstance(e, TributePaid):
        return f"{name(e.seat)} pays {len(e.paid)} gold as tribute and moves onto card {e.position}."
    if isinstance(e, FigureMoved):
        castle = e.position == rules.castle
        return f"The {e.figure} figure moves " + ("into the Castle." if castle else f"onto card {e.position}.")
    if isinstance(e, VineRevealed):
        return f"Vine card {e.position} is turned face up: {task_text(e.task)}."
    if isinstance(e, EndTriggered):
        if e.reason == "castle":
            return f"{'A player' if e.seat is None else name(e.seat)} reached the Castle: the game ends."
        return _ENDINGS.get(e.reason, f"The game ends ({e.reason}).")
    return type(e).__name__


def deal_sentence(rules: Rules, players: int) -> str:
    """What step 0 (the deal) shows."""
    vine = "; the vine is laid out" if rules.castle is not None else ""
    who = "the player" if players == 1 else f"each of {players} players"
    return f"The cards are dealt: {rules.hand_size} to {who}{vine}."
