"""What the person sees at a decision: their view of the table, drawn as text tables (rich).

Everything here comes from the seat's own view and the public events it was sent (C-8): the other seats'
coins are not in a view (C-8.3), so they are shown as counted from the public harvests, purchases and
tributes, as a careful player counts them.
"""
from __future__ import annotations

from typing import Sequence

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from engine.cards import Bean
from engine.events import Event, FieldBought, Harvested, TributePaid
from engine.narration import bean_name, cards, plural
from engine.rules import Rules
from engine.views import FieldView, OfferView, PrincesView, TradeCard, View
from engine.vine import SHORT

from arena.formats import format_of

FRONT = "◂ front"  # marks the hand's front card: the next one to plant


class Counted:
    """Every seat's coins as counted from the public events seen so far."""

    def __init__(self, players: int) -> None:
        self.coins = [0] * players

    def add(self, events: Sequence[Event]) -> None:
        for e in events:
            if isinstance(e, Harvested):
                self.coins[e.seat] += e.coins
            elif isinstance(e, (FieldBought, TributePaid)):
                self.coins[e.seat] -= len(e.paid)


def field_text(rules: Rules, field: FieldView) -> str:
    """``3 × Chili bean (1 coin)``, or ``empty``."""
    if field.bean is None or field.count == 0:
        return "empty"
    money, monies = rules.money
    worth = rules.bean_type(field.bean).coins_for(field.count)
    return f"{field.count} × {bean_name(rules, field.bean)} ({plural(worth, money, monies)})"


def fields_text(rules: Rules, fields: Sequence[FieldView]) -> str:
    return "  ".join(f"{k + 1}: {field_text(rules, f)}" for k, f in enumerate(fields))


def area_text(rules: Rules, area: Sequence[TradeCard]) -> str:
    return ", ".join(bean_name(rules, c.bean) + (" (received)" if c.locked else "") for c in area) or "—"


def hand_lines(rules: Rules, hand: Sequence[Bean]) -> list[str]:
    """The hand in order, numbered from 1, the front card marked."""
    if not hand:
        return ["Your hand is empty."]
    return [f"  {k + 1}. {bean_name(rules, b)}" + (f"  {FRONT}" if k == 0 else "") for k, b in enumerate(hand)]


def offer_text(rules: Rules, offer: OfferView, names: Sequence[str], active: int) -> str:
    """An offer or response of the trading round, in words."""
    who = names[offer.seat]
    if offer.accept:
        return f"{who} accepts the offer of {names[active]}"
    to = "everybody" if offer.to is None else names[offer.to]
    if not offer.want:
        return f"{who} offers {cards(rules, offer.give)} to {to} as a gift"
    return f"{who} offers {cards(rules, offer.give)} for {cards(rules, offer.want)} to {to}"


def bean_table(rules: Rules) -> Table:
    """Every bean of the game: its cards in the deck and what a field of it is worth."""
    money, monies = rules.money
    table = Table(title="The beans (a field of N cards is worth …)", box=box.SIMPLE, title_justify="left")
    table.add_column("bean")
    table.add_column("cards", justify="right")
    table.add_column("worth")
    for t in rules.bean_types:
        worth = ", ".join(f"{need} → {plural(k, money, monies)}" for k, need in enumerate(t.beanometer, start=1)
                          if need is not None)
        table.add_row(t.name, str(t.count), worth)
    return table


def classic_screen(rules: Rules, view: View, names: Sequence[str], counted: Counted) -> Group:
    """The classic table from ``view``'s seat."""
    seats = _seats(rules, view.seat, view.active, names, counted, view.hand_sizes, view.coins, view.fields,
                   ("trading area", [area_text(rules, area) for area in view.trade_areas]))
    lines = [_piles(rules, view.turn, names[view.active], view.deck_size, view.discard_size, view.discard_top,
                    view.reshuffles)]
    if view.trade is not None:
        t = view.trade
        lines.append(f"Trading, round {t.round + 1} of at most {t.max_rounds}.")
        if t.offer is not None:
            lines.append("  Offer: " + offer_text(rules, t.offer, names, view.active) + ".")
        for number, response in enumerate(t.responses, start=1):
            lines.append(f"  Response {number}: " + offer_text(rules, response, names, view.active) + ".")
    return Group(Text("\n".join(lines)), seats, Text("Your hand:\n" + "\n".join(hand_lines(rules, view.hand))))


def princes_screen(rules: Rules, view: PrincesView, names: Sequence[str], counted: Counted) -> Group:
    """A duel or solo table from ``view``'s seat: the fields, the middle, the vine and its figures."""
    seats = _seats(rules, view.seat, view.active, names, counted, view.hand_sizes, view.coins, view.fields,
                   ("figure on", [_place(p, view.castle) for p in view.figures]))
    for name, position in view.neutral:
        seats.add_row(Text(f"{name} figure"), "", "", "", _place(position, view.castle))
    lines = [_piles(rules, view.turn, names[view.active], view.deck_size, view.discard_size, view.discard_top,
                    view.reshuffles) + f" · {view.box} cards out of the game (the box)"]
    if view.middle:
        lines.append("The middle: " + ", ".join(f"{n} × {bean_name(rules, b)}" for b, n in view.middle) + ".")
    task = view.next_task
    lines.append("Your next card: " + ("the Castle" if task == "castle" else "face down" if task is None
                                        else SHORT.get(task, task)) + ".")
    return Group(Text("\n".join(lines)), seats, _vine(view, names),
                 Text("Your hand:\n" + "\n".join(hand_lines(rules, view.hand))))


def _seats(rules: Rules, me: int, active: int, names: Sequence[str], counted: Counted, hands: Sequence[int],
           coins: int, fields: Sequence[Sequence[FieldView]], last: tuple[str, Sequence[str]]) -> Table:
    """A row per seat: its name (yours and the active one marked), hand size, coins, fields, and ``last``."""
    table = Table(box=box.SIMPLE, show_edge=False)
    # only your own coins are in your view (C-8.3): the others' are counted from the public harvests and sales
    for column in ("seat", "hand", f"{rules.money[1]} (others' counted)", "fields", last[0]):
        table.add_column(column)
    for k, name in enumerate(names):
        table.add_row(*(Text(cell) for cell in (  # Text: a name is shown as it is, never read as markup
            name + (" (you)" if k == me else "") + (" ★" if k == active else ""), str(hands[k]),
            str(coins) if k == me else str(counted.coins[k]), fields_text(rules, fields[k]), last[1][k])))
    return table


def _vine(view: PrincesView, names: Sequence[str]) -> Table:
    """The vine where it matters: the card of each figure and the four after it, and the Castle."""
    vine = Table(title="The vine", box=box.SIMPLE, show_edge=False, title_justify="left")
    for column in ("card", "task", "here"):
        vine.add_column(column, justify="right" if column == "card" else "left")
    figures = [*((names[k], p) for k, p in enumerate(view.figures)), *((f"{n} figure", p) for n, p in view.neutral)]
    shown = sorted({k for _, p in figures for k in range(max(1, p), min(len(view.vine), p + 4) + 1)})
    for k in [*shown, view.castle]:
        task = "the Castle" if k == view.castle else view.vine[k - 1]
        vine.add_row(str(k), "face down" if task is None else SHORT.get(task, task),
                     Text(", ".join(who for who, p in figures if p == k)))
    return vine


def _place(position: int, castle: int) -> str:
    return "the start" if position == 0 else "the Castle" if position == castle else f"card {position}"


def _piles(rules: Rules, turn: int, active: str, deck: int, discard: int, top: Bean | None, reshuffles: int) -> str:
    shown = "" if top is None else f" (top: {bean_name(rules, top)})"
    return (f"Turn {turn + 1} · {active} is active (★) · deck {deck} · discard pile {discard}{shown} · "
            f"{plural(reshuffles, 'reshuffle')} so far")


def goal(rules: Rules) -> str:
    """What the person plays for, in a sentence or two (the rules: seeds/classic-rules.md, princes-rules.md): the
    trading game's (``Format.trading``), or the Princes game's, alone (solo) or against another."""
    if format_of(rules.id).trading:
        return (f"Goal: the most coins when the deck runs out after its {plural(rules.reshuffles, 'reshuffle')} "
                "(C-7.2); a card you receive in a trade must be planted (C-6.3).")
    p = rules.princes
    if p is None:
        raise ValueError(f"rules {rules.id!r} have no trading round and no Princes constants: no goal to show")
    if p.solo:
        return (f"Goal: move your figure along the vine (fulfil each card's task, or pay {p.tribute_price} gold to "
                f"pass it) and enter the Castle with {p.castle_gold} gold before a neutral figure gets there (S-6).")
    return (f"Goal: the most gold. Move your figure along the vine (fulfil each card's task, or pay "
            f"{p.tribute_price} gold to pass it); the first to enter the Castle (with {p.castle_gold} gold) ends the "
            "game, and the other then pays for every card still ahead of them (P-7).")
