"""The parts of a person's seat, each against the real engine: coins counted from public events, every
option in words, payments composed, the terminal's reading of lines."""
from __future__ import annotations

import fcntl
import io
import os
import random
import struct
import termios
import time
from dataclasses import replace
from typing import Any

import pytest
from rich.console import Console

from arena.human.compose import compose_accept
from arena.human.menu import describe, menu
from arena.formats import format_of
from arena.human.screen import Counted, classic_screen, goal, princes_screen
from arena.human.terminal import LeftTheTable, OutOfTime, Terminal
from engine import Accept, Bean, DecisionKind, Pass, PayTribute, Plant, PlantTraded, View, new_game, rules_for
from engine.views import FieldView, OfferView, TradeCard, TradeView
from strategy.policies import random_action

VARIANTS = [("classic", 4), ("classic-v1", 3), ("duel", 2), ("solo", 1)]


def scripted(lines: str) -> tuple[Terminal, io.StringIO]:
    """A terminal whose person types ``lines`` (then closes the input); what it shows, as text."""
    read, write = os.pipe()
    os.write(write, lines.encode())
    os.close(write)
    out = io.StringIO()
    return Terminal.of(out, read, width=200), out


@pytest.mark.parametrize("variant, players", VARIANTS)
def test_coins_counted_from_public_events_are_every_seats_coins(variant: str, players: int) -> None:
    rules = rules_for(variant)
    for seed in range(15):
        game = new_game(rules, players, seed)
        rng = random.Random(seed)
        while not game.over:
            game.apply(random_action(game, rng))
        counted = Counted(players)
        counted.add(game.events)
        assert counted.coins == list(game.coins()), (variant, seed)


@pytest.mark.parametrize("variant, players", VARIANTS)
def test_every_option_of_random_games_is_put_in_words_and_every_screen_drawn(variant: str, players: int) -> None:
    rules = rules_for(variant)
    names = [f"p{k}" for k in range(players)]
    kinds = set()
    for seed in range(4):
        game = new_game(rules, players, seed)
        rng = random.Random(seed)
        while not game.over:
            decision = game.decision
            assert decision is not None
            view = game.view(decision.seat)
            kinds.add(decision.kind)
            choices = menu(rules, view, decision.kind, decision.options, names)
            for choice in choices[: len(decision.options)]:
                assert choice.action is not None and choice.label != repr(choice.action), \
                    choice  # a label in words, never the action's repr
            if rng.random() < 0.05:
                out = io.StringIO()
                Terminal.of(out, 0, width=200).show(
                    classic_screen(rules, view, names, Counted(players)) if isinstance(view, View)
                    else princes_screen(rules, view, names, Counted(players)))
                assert "Your hand:" in out.getvalue() and f"Turn {view.turn + 1}" in out.getvalue()
            game.apply(random_action(game, rng))
    assert len(kinds) >= 4, kinds


@pytest.mark.parametrize("variant", [v for v, _ in VARIANTS])
def test_the_seat_asks_the_format_whether_a_turn_has_a_trading_round(variant: str) -> None:
    rules = rules_for(variant)
    trading = format_of(variant).trading
    assert trading == (variant.startswith("classic"))
    assert ("trade" in goal(rules)) == trading and ("vine" in goal(rules)) != trading
    game = new_game(rules, dict(VARIANTS)[variant], 5)
    rng = random.Random(5)
    composed = False
    while not game.over:
        decision = game.decision
        assert decision is not None
        choices = menu(rules, game.view(decision.seat), decision.kind, decision.options, ["a", "b", "c", "d"])
        composed |= any(choice.compose is not None for choice in choices)
        game.apply(random_action(game, rng))
    assert composed == trading  # an offer to compose only where a turn has a trading round


def test_names_are_shown_as_they_are_never_read_as_markup() -> None:
    rules = rules_for("duel")
    view = new_game(rules, 2, 3).view(0)
    names = ["[/]", "[bold]x[-]"]  # a closing tag with nothing to close would stop rich's markup parser
    out = io.StringIO()
    Terminal.of(out, 0, width=200).show(
        classic_screen(rules, view, names, Counted(2)) if isinstance(view, View)
        else princes_screen(rules, view, names, Counted(2)))
    assert "[/] (you) ★" in out.getvalue() and "[bold]x[-]" in out.getvalue()


def test_a_vine_laid_out_is_told_in_one_line_and_a_card_turned_later_in_a_sentence() -> None:
    from arena.human.player import HumanPlayer
    from engine.events import VineRevealed
    from engine.vine import SHORT

    rules = rules_for("duel")
    game = new_game(rules, 2, 5)
    laid = [e for e in game.events if isinstance(e, VineRevealed)]
    assert rules.princes is not None and len(laid) == rules.princes.cards  # the duel lays out the whole vine
    terminal, out = scripted("")
    person = HumanPlayer("ann", terminal, ["ann", "bob"])
    person._tell(rules, game.events, "Since your last decision")
    told = out.getvalue()
    assert " ".join(told.split()).count(f"Vine cards 1–{len(laid)} are turned face up: ") == 1
    assert "is turned face up" not in told  # no sentence per card
    assert all(f"{e.position} {SHORT[e.task]}" in " ".join(told.split()) for e in laid)
    assert "Turn 1: ann is the active player." in told  # the events after the run are told as ever
    terminal, out = scripted("")
    HumanPlayer("ann", terminal, ["ann", "bob"])._tell(rules, laid[:2] + game.events[-1:], "Since")
    assert out.getvalue().count("is turned face up:") == 2  # two in a row: a sentence each


def test_a_plant_that_cashes_in_a_field_says_so() -> None:
    rules = rules_for("classic")
    game = new_game(rules, 3, 2)
    view = game.view(0)
    soy, chili = Bean.SOY, Bean.CHILI
    fields = ((FieldView(soy, 3), FieldView(None, 0)), *view.fields[1:])
    view = _replace(view, hand=(chili, soy), fields=fields)
    assert describe(rules, view, DecisionKind.PLANT_FIRST, Plant(0), ["you", "b", "c"]) == \
        "Plant the Chili bean into field 1, cashing in its 3 × Soy bean for 1 coin first"
    assert describe(rules, view, DecisionKind.PLANT_FIRST, Plant(1), ["you", "b", "c"]) == \
        "Plant the Chili bean into empty field 2"


def test_paying_for_an_offer_with_chosen_cards_is_checked_before_it_is_sent() -> None:
    rules = rules_for("classic")
    view = _replace(new_game(rules, 3, 2).view(1), hand=(Bean.SOY, Bean.CHILI, Bean.SOY, Bean.RED), active=0,
                    trade=TradeView(0, 6, OfferView(0, None, (Bean.GREEN,), (Bean.SOY, Bean.RED)), ()))
    term, out = scripted("1 2\n9\n3 4\nn\n4 1\ny\n")
    assert compose_accept(term, rules, view, None) == Accept((3, 0))
    shown = out.getvalue()
    assert "The offer wants Soy bean, Red bean; those are Soy bean, Chili bean. Pick again." in shown
    assert "'9' is not a number from 1 to 4; try again" in shown
    term, out = scripted("back\n")
    assert compose_accept(term, rules, view, None) is None


def test_the_terminal_reads_whole_lines_keeps_a_deadline_and_reports_closed_input() -> None:
    term, out = scripted("first\n  second  \n")
    assert term.ask("? ") == "first" and term.ask("? ") == "second"
    with pytest.raises(LeftTheTable):
        term.ask("? ")
    read, write = os.pipe()
    try:
        term = Terminal.of(io.StringIO(), read)
        with pytest.raises(OutOfTime):
            term.ask("? ", time.monotonic() + 0.05)
        os.write(write, b"late\n")
        assert term.ask("? ", time.monotonic() + 60) == "late"  # the line typed after the deadline is the next
    finally:
        os.close(read)
        os.close(write)


def _replace(view: object, **changes: Any) -> View:
    assert isinstance(view, View)
    return replace(view, **changes)


def test_what_was_typed_before_a_question_is_shown_is_discarded_at_a_terminal() -> None:
    master, slave = os.openpty()
    try:
        term = Terminal.of(io.StringIO(), slave)
        os.write(master, b"1\n2\n")  # keys pressed while the bots played
        queued = time.monotonic() + 30
        while _waiting(slave) < 4:  # the line discipline takes them in a moment of its own
            assert time.monotonic() < queued, "the pseudo-terminal never delivered what was typed"
            time.sleep(0.01)
        term.discard_typed_ahead()
        assert _waiting(slave) == 0
        os.write(master, b"3\n")
        assert term.ask("? ", time.monotonic() + 60) == "3"
    finally:
        os.close(master)
        os.close(slave)


def test_a_script_on_a_pipe_keeps_every_line() -> None:
    term, _ = scripted("1\n2\n")
    term.discard_typed_ahead()  # a pipe is a script, not a person typing ahead
    assert term.ask("? ") == "1"


def test_words_for_trading_area_cards_tribute_and_discarding() -> None:
    rules = rules_for("classic")
    view = new_game(rules, 3, 2).view(0)
    assert isinstance(view, View)
    view = _replace(view, trade_areas=((TradeCard(Bean.SOY, False), TradeCard(Bean.SOY, False)), (), ()))
    labels = [describe(rules, view, DecisionKind.PLANT_TRADED, PlantTraded(card, 0), ["a", "b", "c"])
              for card in (0, 1)]
    assert labels[0] != labels[1] and "(card 2 of your trading area)" in labels[1]
    assert describe(rules, view, DecisionKind.TRADE_CONFIRM, Pass(), ["a", "b", "c"]) == \
        "Close no deal this round (2 rounds in a row without a deal end trading, C-6.7)"
    duel = rules_for("duel")
    assert describe(duel, new_game(duel, 2, 1).view(0), DecisionKind.PLANT_FIRST, PayTribute(), ["a", "b"]) == \
        "Pay 1 gold as tribute: your figure moves onto the next card without fulfilling its task"


def _waiting(fd: int) -> int:
    """Bytes typed at terminal ``fd`` and not read yet."""
    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])


def test_a_wait_for_a_line_ends_at_a_stop_whose_interrupt_was_lost() -> None:
    """A SIGTERM or SIGHUP whose KeyboardInterrupt Python lost (raised in a garbage-collection callback, where it
    is only printed) left the person's prompt waiting on the terminal for ever; the wait now asks the stop check
    between looks, so it ends within ``LOOK_SECONDS``."""
    read, write = os.pipe()  # a terminal where nobody types
    looks: list[float] = []

    def stop() -> None:
        looks.append(time.monotonic())
        if len(looks) == 3:  # the signal came, and its interrupt was lost: only the check knows
            raise KeyboardInterrupt

    try:
        terminal = Terminal(Console(file=io.StringIO(), width=200), read, stop=stop)
        with pytest.raises(KeyboardInterrupt):
            terminal.ask("Your choice: ")
        assert len(looks) == 3  # it looked again while it waited, not only before
    finally:
        os.close(read)
        os.close(write)
