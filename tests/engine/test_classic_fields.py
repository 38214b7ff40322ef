"""Rules C-3 (fields) and C-4 (cashing in) of seeds/classic-rules.md.

On hand-built positions; test_classic_reference.py says how these modules are written and checks
that every numbered rule has a test.
"""
from __future__ import annotations

import pytest

from engine import BuyField, DecisionKind, Harvest, Pass, Plant, PlantTraded
from engine.events import FieldBought, Harvested, Planted
from engine_helpers import (
    BLUE, CHILI, GARDEN, GREEN, NOTES_TABLE, RED, SOY, STINK, assert_illegal, expected_coins, field_of, set_position,
    trading_position,
)

K = DecisionKind
rule = pytest.mark.rule


# --------------------------------------------------------------------------- C-3 fields
@rule("C-3.1")
def test_C_3_1_a_field_stacks_one_type_and_fields_are_numbered(game3):
    set_position(game3, hands=[[RED, RED, BLUE], [], []], fields=[[(RED, 2), None], [None, None], [None, None]],
                 deck=[GREEN] * 6)
    assert_illegal(game3, Plant(2), "C-3.1")
    assert_illegal(game3, Plant(-1), "C-3.1")
    game3.apply(Plant(0))
    assert field_of(game3, 0) == [(RED, 3), None]
    game3.apply(Plant(0))
    assert field_of(game3, 0) == [(RED, 4), None]


@rule("C-3.2")
def test_C_3_2_buying_the_third_field_pays_three_coins_onto_the_discard_pile(game3):
    set_position(game3, hands=[[RED], [], []], treasury=[[GREEN, STINK, SOY, CHILI], 0, 0], discard=[BLUE],
                 deck=[GREEN] * 6)
    assert BuyField() in game3.decision.options
    events = game3.apply(BuyField())
    assert events == [FieldBought(0, (STINK, SOY, CHILI))]
    assert game3.seats[0].treasury == [GREEN]
    assert game3.discard == [BLUE, STINK, SOY, CHILI]
    assert field_of(game3, 0) == [None, None, None]
    # the same seat decides again, now with three fields
    assert game3.decision.seat == 0 and game3.decision.kind is K.PLANT_FIRST
    assert set(game3.decision.options) == {Plant(0), Plant(1), Plant(2)}
    assert BuyField() not in game3.decision.options
    assert_illegal(game3, BuyField(), "C-3.2")  # only 1 coin left


@rule("C-3.2")
def test_C_3_2_no_fourth_field_even_with_coins(game3):
    set_position(game3, hands=[[RED], [], []], treasury=[9, 0, 0],
                 fields=[[None, None, None], [None, None], [None, None]], deck=[GREEN] * 6)
    assert BuyField() not in game3.decision.options
    err = assert_illegal(game3, BuyField(), "C-3.2")
    assert "3 fields" in str(err)


@rule("C-3.2")
def test_C_3_2_a_player_who_is_not_active_buys_when_asked_to_respond(game3):
    trading_position(game3, treasury=[0, 3, 0])
    game3.apply(Pass())
    assert game3.decision.seat == 1 and game3.decision.kind is K.TRADE_RESPOND
    assert BuyField() in game3.decision.options
    game3.apply(BuyField())
    assert len(game3.seats[1].field_beans) == 3 and game3.seats[1].coins == 0
    assert game3.decision.seat == 1 and game3.decision.kind is K.TRADE_RESPOND


@rule("C-3.2")
def test_C_3_2_too_few_coins_is_refused(game3):
    set_position(game3, hands=[[RED], [], []], treasury=[2, 0, 0], deck=[GREEN] * 6)
    assert BuyField() not in game3.decision.options
    assert_illegal(game3, BuyField(), "C-3.2")


@rule("C-3.3")
def test_C_3_3_planting_another_type_cashes_the_field_in_first(game3):
    set_position(game3, hands=[[STINK, SOY], [], []], fields=[[(BLUE, 5), (CHILI, 2)], [None, None], [None, None]],
                 discard=[RED], deck=[GREEN] * 6)
    assert set(game3.decision.options) == {Plant(0), Plant(1), Harvest(0), Harvest(1)}
    events = game3.apply(Plant(0))
    assert events == [Harvested(0, 0, BLUE, 5, 1), Planted(0, STINK, 0, "hand")]
    assert field_of(game3, 0) == [(STINK, 1), (CHILI, 2)]
    assert game3.seats[0].treasury == [BLUE]
    assert game3.discard == [RED, BLUE, BLUE, BLUE, BLUE]


# --------------------------------------------------------------------------- C-4 cashing in
@rule("C-4.1")
@pytest.mark.parametrize("bean", list(NOTES_TABLE))
def test_C_4_1_cash_in_puts_coin_cards_in_treasury_and_rest_on_discard(game3, bean):
    n = NOTES_TABLE[bean][1][2]  # the 3-coin threshold (garden: 3)
    n = n + 1 if n else 4
    set_position(game3, hands=[[BLUE], [], []], fields=[[(bean, n), None], [None, None], [None, None]],
                 treasury=[[RED], 0, 0], discard=[GREEN], deck=[SOY] * 6)
    coins = expected_coins(bean, n)
    events = game3.apply(Harvest(0))
    assert events == [Harvested(0, 0, bean, n, coins)]
    assert game3.seats[0].treasury == [RED] + [bean] * coins
    assert game3.discard == [GREEN] + [bean] * (n - coins)
    assert field_of(game3, 0) == [None, None]


@rule("C-4.1")
def test_C_4_1_a_field_worth_nothing_goes_wholly_to_the_discard_pile(game3):
    set_position(game3, hands=[[BLUE], [], []], fields=[[(BLUE, 3), (GARDEN, 1)], [None, None], [None, None]],
                 deck=[SOY] * 6)
    game3.apply(Harvest(0))
    assert game3.seats[0].treasury == [] and game3.discard == [BLUE] * 3


@rule("C-4.2")
def test_C_4_2_single_bean_field_cannot_be_cashed_while_another_has_more(game3):
    set_position(game3, hands=[[GREEN, BLUE], [], []], fields=[[(BLUE, 1), (CHILI, 3)], [None, None], [None, None]],
                 deck=[SOY] * 6)
    options = game3.decision.options
    assert Harvest(1) in options and Harvest(0) not in options
    assert Plant(1) in options and Plant(0) not in options
    assert_illegal(game3, Harvest(0), "C-4.2")
    assert_illegal(game3, Plant(0), "C-4.2")


@rule("C-4.2")
def test_C_4_2_same_type_may_join_a_single_bean_field(game3):
    set_position(game3, hands=[[BLUE], [], []], fields=[[(BLUE, 1), (CHILI, 3)], [None, None], [None, None]],
                 deck=[SOY] * 6)
    assert Plant(0) in game3.decision.options
    game3.apply(Plant(0))
    assert field_of(game3, 0) == [(BLUE, 2), (CHILI, 3)]


@rule("C-4.2")
@pytest.mark.parametrize("other", [None, (CHILI, 1)])
def test_C_4_2_single_bean_field_may_be_cashed_when_no_field_has_more(game3, other):
    set_position(game3, hands=[[GREEN], [], []], fields=[[(BLUE, 1), other], [None, None], [None, None]],
                 deck=[SOY] * 6)
    assert Harvest(0) in game3.decision.options and Plant(0) in game3.decision.options
    events = game3.apply(Plant(0))
    assert events[:2] == [Harvested(0, 0, BLUE, 1, 0), Planted(0, GREEN, 0, "hand")]
    assert game3.discard == [BLUE]


@rule("C-4.2")
def test_C_4_2_applies_with_three_fields_and_when_planting_traded_cards(game3):
    set_position(game3, trade=[[GREEN], [], []], fields=[[(BLUE, 1), (CHILI, 1), (RED, 2)], [None, None], [None, None]],
                 deck=[SOY] * 6, phase=K.PLANT_TRADED)
    assert game3.decision.kind is K.PLANT_TRADED and game3.decision.seat == 0
    assert set(game3.decision.options) == {PlantTraded(0, 2), Harvest(2)}
    assert_illegal(game3, PlantTraded(0, 0), "C-4.2")
    assert_illegal(game3, Harvest(1), "C-4.2")


@rule("C-4.3")
def test_C_4_3_voluntary_harvest_then_the_same_seat_decides_again(game3):
    set_position(game3, hands=[[GREEN, SOY], [], []], fields=[[(RED, 4), None], [None, None], [None, None]],
                 deck=[SOY] * 6)
    game3.apply(Plant(1))
    assert game3.decision.kind is K.PLANT_SECOND
    events = game3.apply(Harvest(0))
    assert events == [Harvested(0, 0, RED, 4, 3)]
    assert game3.decision.seat == 0 and game3.decision.kind is K.PLANT_SECOND
    assert game3.seats[0].coins == 3


@rule("C-4.3")
def test_C_4_3_harvest_of_an_empty_or_missing_field_is_refused(game3):
    set_position(game3, hands=[[GREEN], [], []], fields=[[(RED, 4), None], [None, None], [None, None]],
                 deck=[SOY] * 6)
    assert Harvest(1) not in game3.decision.options
    assert_illegal(game3, Harvest(1), "C-4.3")
    assert_illegal(game3, Harvest(2), "C-4.3")


@rule("C-4.3")
def test_C_4_3_a_responding_player_may_harvest(game3):
    trading_position(game3, fields=[[None, None], [(SOY, 4), None], [None, None]])
    game3.apply(Pass())
    assert Harvest(0) in game3.decision.options
    game3.apply(Harvest(0))
    assert game3.seats[1].coins == 2 and game3.decision.seat == 1
