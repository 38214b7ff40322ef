"""Rules P-3 (fields and gold) of seeds/princes-rules.md.

On hand-built positions; test_princes_reference.py says how these modules are written and checks
that every numbered rule and task card has a test.
"""
from __future__ import annotations


import pytest

from engine import BuyField, Harvest, PayTribute, Plant
from engine.events import FieldBought, Harvested
from engine_helpers import decision_of
from princes_helpers import (
    BLUE, CHILI, COMPOSITION, GREEN, K, RED, SOY, all_cards, assert_illegal, duel, fields_of, set_position,
)

rule = pytest.mark.rule


# --------------------------------------------------------------------------- P-3 fields and gold
@rule("P-3.1")
def test_P_3_1_planting_another_kind_cashes_the_field_in_first():
    game = set_position(duel(), hands=[[SOY, BLUE], []], fields=[[(BLUE, 6), (CHILI, 2)], [None, None]],
                        discard=[RED])
    events = game.apply(Plant(0))
    assert Harvested(0, 0, BLUE, 6, 2) in events and fields_of(game, 0) == [(SOY, 1), (CHILI, 2)]
    assert game.seats[0].treasury == [BLUE, BLUE] and game.discard == [RED] + [BLUE] * 4
    assert_illegal(game, Plant(2), "P-3.1")


@rule("P-3.2")
def test_P_3_2_a_lone_bean_is_not_cashed_in_while_another_field_holds_more():
    game = set_position(duel(), hands=[[SOY], []], fields=[[(BLUE, 1), (CHILI, 2)], [None, None]])
    assert Plant(0) not in decision_of(game).options and Harvest(0) not in decision_of(game).options
    assert_illegal(game, Plant(0), "P-3.2")
    assert_illegal(game, Harvest(0), "P-3.2")


@rule("P-3.3")
def test_P_3_3_harvest_at_any_own_decision_the_same_seat_decides_again():
    game = set_position(duel(), hands=[[SOY], []], fields=[[(RED, 3), None], [None, None]])
    events = game.apply(Harvest(0))
    assert events == [Harvested(0, 0, RED, 3, 2)] and decision_of(game).kind is K.PLANT_FIRST
    assert_illegal(game, Harvest(1), "P-3.3")


@rule("P-3.4")
def test_P_3_4_third_field_for_three_gold_into_the_box_at_most_three_fields():
    game = set_position(duel(), hands=[[SOY], []], treasury=[[GREEN, RED, SOY, CHILI], 0])
    events = game.apply(BuyField())
    assert events == [FieldBought(0, (RED, SOY, CHILI))] and game.box == [RED, SOY, CHILI]
    assert game.seats[0].treasury == [GREEN] and fields_of(game, 0) == [None, None, None]
    assert decision_of(game).kind is K.PLANT_FIRST
    assert_illegal(game, BuyField(), "P-3.4")
    game.seats[0].treasury = [BLUE] * 5
    assert_illegal(game, BuyField(), "P-3.4")


@rule("P-3.5")
def test_P_3_5_gold_paid_leaves_the_game_the_box_is_counted_and_public():
    game = duel(8)
    s = game.seats[0]
    bean = game.deck.pop()
    s.treasury = [bean]
    game._decision = None
    game.apply(PayTribute())
    assert game.box == [bean] and game.card_count() == 98 and all_cards(game) == COMPOSITION
    assert game.view(1).box == 1 and game.view(0).box == 1
