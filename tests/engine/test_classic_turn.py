"""Rules C-5 (a turn: planting, turning up, planting traded cards, drawing) of seeds/classic-rules.md.

On hand-built positions; test_classic_reference.py says how these modules are written and checks
that every numbered rule has a test.
"""
from __future__ import annotations

import pytest

from engine import Accept, Confirm, DecisionKind, EndTrading, Harvest, Offer, Pass, Plant, PlantTraded
from engine.events import Drew, Passed, Planted, Traded, TurnedUp, TurnStarted
from engine_helpers import BLUE, CHILI, GREEN, RED, SOY, STINK, assert_illegal, field_of, set_position, trading_position

K = DecisionKind
rule = pytest.mark.rule


# --------------------------------------------------------------------------- C-5 a turn
@rule("C-5.1")
def test_C_5_1_planting_the_front_card_is_mandatory(game3):
    set_position(game3, hands=[[RED, BLUE], [], []], fields=[[(SOY, 2), None], [None, None], [None, None]],
                 deck=[SOY] * 6)
    assert game3.decision.kind is K.PLANT_FIRST
    assert set(game3.decision.options) == {Plant(0), Plant(1), Harvest(0)}
    assert_illegal(game3, Pass(), "C-5.1")
    assert_illegal(game3, EndTrading(), "C-6.7")
    assert_illegal(game3, PlantTraded(0, 0), "C-5.5")
    assert game3.apply(Plant(1)) == [Planted(0, RED, 1, "hand")]
    assert game3.decision.kind is K.PLANT_SECOND


@rule("C-5.1")
def test_C_5_1_empty_hand_skips_planting(game3):
    # seat 2 ends its turn; seat 0 starts with an empty hand and goes straight to turning up
    set_position(game3, hands=[[], [SOY], [RED]], active=2, deck=[BLUE, BLUE, BLUE, GREEN, CHILI, STINK],
                 phase=K.PLANT_TRADED)
    assert game3.active == 0
    assert game3.decision.seat == 0 and game3.decision.kind is K.TRADE_OFFER
    assert game3.seats[0].trade == [GREEN, CHILI]
    assert game3.seats[2].hand == [RED, BLUE, BLUE, BLUE]


@rule("C-5.2")
def test_C_5_2_second_planting_is_optional(game3):
    set_position(game3, hands=[[RED, BLUE, SOY], [], []], deck=[GREEN, CHILI, STINK])
    game3.apply(Plant(0))
    assert set(game3.decision.options) == {Plant(0), Plant(1), Pass(), Harvest(0)}
    events = game3.apply(Pass())
    assert events == [Passed(0, "plant_second"), TurnedUp(0, (GREEN, CHILI))]
    assert game3.seats[0].hand == [BLUE, SOY]


@rule("C-5.2")
def test_C_5_2_after_the_second_planting_trading_starts(game3):
    set_position(game3, hands=[[RED, BLUE, SOY], [], []], deck=[GREEN, CHILI, STINK])
    game3.apply(Plant(0))
    game3.apply(Plant(1))
    assert game3.seats[0].hand == [SOY]
    assert game3.decision.kind is K.TRADE_OFFER
    assert_illegal(game3, Plant(1), "C-5.1")  # no third card from the hand


@rule("C-5.2")
def test_C_5_2_no_second_planting_with_a_one_card_hand(game3):
    set_position(game3, hands=[[RED], [], []], deck=[GREEN, CHILI, STINK])
    game3.apply(Plant(0))
    assert game3.decision.kind is K.TRADE_OFFER


@rule("C-5.3")
def test_C_5_3_two_top_cards_turned_up_into_the_active_trading_area(game3):
    set_position(game3, hands=[[RED], [], []], deck=[GREEN, SOY, STINK, BLUE])
    events = game3.apply(Plant(0))
    assert events[-1] == TurnedUp(0, (GREEN, SOY))
    assert game3.seats[0].trade == [GREEN, SOY] and game3.seats[0].trade_locked == [False, False]
    assert [len(s.trade) for s in game3.seats[1:]] == [0, 0]
    assert list(reversed(game3.deck)) == [STINK, BLUE]


@rule("C-5.3")
def test_C_5_3_turned_up_cards_may_be_traded_away(game3):
    trading_position(game3)
    game3.apply(Offer(give_trade=(1, 0), to=2))  # a gift of both turned-up cards
    game3.apply(Pass())  # seat 1
    game3.apply(Accept(()))  # seat 2 takes it
    events = game3.apply(Confirm(0))
    assert Traded(0, 2, (SOY, GREEN), ()) in events
    assert game3.seats[0].trade == [] and game3.seats[2].trade == [SOY, GREEN]


@rule("C-5.4")
def test_C_5_4_trading_follows_turning_up(game3):
    set_position(game3, hands=[[RED], [], []], deck=[GREEN, SOY, STINK, BLUE])
    game3.apply(Plant(0))
    d = game3.decision
    assert d.seat == 0 and d.kind is K.TRADE_OFFER and set(d.options) == {EndTrading(), Pass(), Harvest(0)}
    assert game3.view(1).trade is not None and game3.view(1).trade.round == 0


@rule("C-5.5")
def test_C_5_5_every_player_plants_trading_area_active_first_then_round_the_table(game4):
    set_position(game4, active=2, trade=[[RED], [], [GREEN, SOY], [CHILI, CHILI]],
                 locked=[[True], [], [False, True], [True, True]], deck=[BLUE] * 9, phase=K.PLANT_TRADED)
    order = []
    while game4.decision.kind is K.PLANT_TRADED:
        seat = game4.decision.seat
        order.append(seat)
        if seat == 2 and len(game4.seats[2].trade) == 2:
            # any order: the second card first
            assert PlantTraded(1, 0) in game4.decision.options
            assert game4.apply(PlantTraded(1, 0)) == [Planted(2, SOY, 0, "trade")]
            assert game4.apply(PlantTraded(0, 1)) == [Planted(2, GREEN, 1, "trade")]
            order.append(2)
            continue
        game4.apply(game4.decision.options[0])
    assert order == [2, 2, 3, 3, 0]  # seat 1 has nothing to plant and is skipped
    assert [s.trade for s in game4.seats[:3]] == [[], [], []]
    assert game4.seats[3].trade == [BLUE, BLUE]  # seat 3's turn: empty hand, so it turned up at once
    assert field_of(game4, 2) == [(SOY, 1), (GREEN, 1)]
    assert field_of(game4, 3) == [(CHILI, 2), None]
    assert field_of(game4, 0) == [(RED, 1), None]
    assert game4.active == 3  # then the turn passed on


@rule("C-5.5")
def test_C_5_5_planting_traded_cards_is_mandatory_and_only_after_trading(game3):
    set_position(game3, trade=[[RED], [GREEN], []], deck=[BLUE] * 9, phase=K.PLANT_TRADED)
    assert_illegal(game3, Pass(), "C-5.5")
    assert_illegal(game3, PlantTraded(1, 0), "C-5.5")
    assert_illegal(game3, Plant(0), "C-5.1")
    trading_position(game3)
    assert_illegal(game3, PlantTraded(0, 0), "C-5.5")


@rule("C-5.6")
def test_C_5_6_active_player_draws_three_to_the_back_of_the_hand(game3):
    set_position(game3, hands=[[SOY], [RED], []], deck=[RED, GREEN, BLUE, CHILI, STINK], phase=K.PLANT_TRADED)
    assert game3.seats[0].hand == [SOY, RED, GREEN, BLUE]
    assert game3.seats[1].hand == [RED]
    assert Drew(0, 3) in game3.events
    assert list(reversed(game3.deck)) == [CHILI, STINK]


@rule("C-5.7")
def test_C_5_7_the_next_seat_becomes_active_wrapping_round(game3):
    set_position(game3, hands=[[SOY], [RED], [BLUE]], active=2, turn=7, deck=[GREEN] * 9, phase=K.PLANT_TRADED)
    assert game3.active == 0 and game3.turn == 8
    assert game3.events[-1] == TurnStarted(0, 8)
    assert game3.decision.seat == 0 and game3.decision.kind is K.PLANT_FIRST
