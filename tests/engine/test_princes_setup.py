"""Rules P-1 (components) and P-2 (setup) of seeds/princes-rules.md.

On hand-built positions; test_princes_reference.py says how these modules are written and checks
that every numbered rule and task card has a test.
"""
from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

from engine import DiscardHand, Pass, PayTribute, Plant, PrincesGame, Rules, duel_rules, new_game, rules_for, solo_rules
from engine.events import TurnStarted, VineRevealed
from engine.princes import CHECKS
from engine.vine import TASKS
from engine_helpers import decision_of
from princes_helpers import (
    BLACK, BLUE, CHILI, COMPOSITION, GREEN, K, RED, SOY, STINK, all_cards, duel, princes_of, set_position, solo,
)

rule = pytest.mark.rule
REFERENCE = Path(__file__).resolve().parents[2] / "seeds" / "princes-rules.md"


# --------------------------------------------------------------------------- P-1 components
@rule("P-1.1")
def test_P_1_1_deck_is_the_base_deck_without_garden_beans():
    for rules in (duel_rules(), solo_rules()):
        assert rules.deck_size == 98
        assert Bean_names(rules) == ["blue", "chili", "stink", "green", "soy", "black_eyed", "red"]
        assert rules.coins_for(BLUE, 10) == 4 and rules.coins_for(RED, 2) == 1
    for game in (duel(3), solo(3)):
        assert all_cards(game) == COMPOSITION and game.card_count() == 98


def Bean_names(rules: Rules) -> list[str]:
    return [b.value for b in rules.beans]


@rule("P-1.2")
@pytest.mark.parametrize("variant,players,bad", [("duel", 2, (1, 3)), ("solo", 1, (0, 2))])
def test_P_1_2_duel_is_for_two_players_solo_for_one(variant, players, bad):
    rules = rules_for(variant)
    assert len(new_game(rules, players, 1).seats) == players
    for n in bad:
        with pytest.raises(ValueError, match=repr(n)):
            new_game(rules, n, 1)


@rule("P-1.3")
def test_P_1_3_vine_is_28_cards_in_4_rows_of_7_shuffled_from_the_seed_castle_after():
    rules = duel_rules()
    assert princes_of(rules).rows * princes_of(rules).row_length == 28
    a, b, c = duel(5), duel(5), duel(6)
    assert sorted(a.vine) == sorted(TASKS) and a.vine == b.vine and a.vine != c.vine
    assert a.castle == 29
    assert rules_for("duel-v1").id == "duel-v1" and rules_for("solo").id == "solo-v1"


@rule("P-1.4")
def test_P_1_4_every_task_text_of_the_reference_is_the_engine_s_and_has_a_check():
    text = REFERENCE.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (V\d\d) \| (.+?) \|", text, flags=re.M))
    assert rows == TASKS
    assert set(CHECKS) == set(TASKS) and len(TASKS) == 28
    known = ["In Phase 1 you add 2 beans to one or two existing bean fields.",
             "All other figures are ahead of your figure.", "In Phase 1 you plant two beans of the same kind.",
             "You have Blue bean(s) in one of your fields.", "Any player has at least 2 Red beans planted."]
    assert [TASKS[f"V0{i}"] for i in range(1, 6)] == known


# --------------------------------------------------------------------------- P-2 setup
@rule("P-2.1")
def test_P_2_1_five_cards_dealt_alternately_from_the_shuffled_deck():
    game = duel(9)
    again = random.Random(9)
    deck = [t.bean for t in duel_rules().bean_types for _ in range(t.count)]
    again.shuffle(deck)
    top = deck[::-1]
    assert game.seats[0].hand == top[0:10:2] and game.seats[1].hand == top[1:10:2]
    assert len(game.deck) == 98 - 10
    assert len(solo(9).seats[0].hand) == 5


@rule("P-2.2")
def test_P_2_2_hand_keeps_its_order_discard_takes_a_named_position_draws_go_to_the_back():
    game = set_position(duel(), hands=[[RED, BLUE, SOY, GREEN], []], deck=[CHILI, CHILI, CHILI, STINK, BLACK])
    game.apply(DiscardHand(2))
    assert game.seats[0].hand == [RED, BLUE, GREEN]
    game.apply(Plant(0))
    game.apply(Pass())  # no second planting -> phase 2 -> phase 3
    game.apply(Pass())
    assert game.seats[0].hand == [BLUE, GREEN, STINK, BLACK]


@rule("P-2.3")
def test_P_2_3_two_empty_fields_no_gold_figures_at_the_start_seat_0_first():
    for game in (duel(2), solo(2)):
        for s in game.seats:
            assert s.field_counts == [0, 0] and s.treasury == [] and s.position == 0
        assert game.middle == {} and game.box == []
        assert decision_of(game).seat == 0 and decision_of(game).kind is K.PLANT_FIRST
    assert duel(2).events[-1] == TurnStarted(0, 0)


@rule("P-2.4")
def test_P_2_4_duel_vine_face_up_unless_the_face_down_flag_is_set():
    game = duel(4)
    assert game.revealed == 28 and None not in game.view(1).vine
    assert [e.position for e in game.events if isinstance(e, VineRevealed)] == list(range(1, 29))
    rules = dataclasses.replace(duel_rules(),
                                princes=dataclasses.replace(princes_of(duel_rules()), vine_face_down=True))
    hidden = PrincesGame(rules, 2, 4)
    view = hidden.view(0)
    assert view.vine[:4] == tuple(hidden.vine[:4]) and view.vine[4:] == (None,) * 24


@rule("P-2.4")
def test_P_2_4_face_down_cards_turn_up_four_ahead_of_the_leading_figure():
    rules = dataclasses.replace(duel_rules(),
                                princes=dataclasses.replace(princes_of(duel_rules()), vine_face_down=True))
    game = PrincesGame(rules, 2, 4)
    vine = game.vine
    set_position(game, vine=vine, hands=[[BLUE], []], treasury=[1, 0], positions=[0, 0])
    game.revealed = 4
    game.apply(PayTribute())
    assert game.seats[0].position == 1 and game.revealed == 5
    assert game.events[-1] == VineRevealed(5, vine[4])
