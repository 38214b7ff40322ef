"""The parts of a person's seat, each against the real engine: coins counted from public events, every
option in words, payments composed, the terminal's reading of lines."""
from __future__ import annotations

import io
import os
import random
import time
from dataclasses import replace
from typing import Any

import pytest

from arena.human.compose import compose_accept
from arena.human.menu import describe, menu
from arena.human.screen import Counted, classic_screen, princes_screen
from arena.human.terminal import LeftTheTable, OutOfTime, Terminal
from engine import Accept, Bean, DecisionKind, Plant, View, new_game, rules_for
from engine.views import FieldView, OfferView, TradeView
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


def test_names_are_shown_as_they_are_never_read_as_markup() -> None:
    rules = rules_for("duel")
    view = new_game(rules, 2, 3).view(0)
    names = ["[/]", "[bold]x[-]"]  # a closing tag with nothing to close would stop rich's markup parser
    out = io.StringIO()
    Terminal.of(out, 0, width=200).show(
        classic_screen(rules, view, names, Counted(2)) if isinstance(view, View)
        else princes_screen(rules, view, names, Counted(2)))
    assert "[/] (you) ★" in out.getvalue() and "[bold]x[-]" in out.getvalue()


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
