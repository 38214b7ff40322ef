"""Rules C-6.1 to C-6.5 of seeds/classic-rules.md (trading: who offers what to whom, locked cards, fields,
gifts).

On hand-built positions; test_classic_reference.py says how these modules are written and checks
that every numbered rule has a test.
"""
from __future__ import annotations

import dataclasses

import pytest

from engine import (
    Accept, ClassicGame, Confirm, DecisionKind, EndTrading, Harvest, Offer, Pass, PlantTraded, action_from_json,
)
from engine.events import Offered, Traded
from engine_helpers import (
    BLUE, CHILI, GARDEN, GREEN, RED, SOY, STINK, assert_illegal, decide, field_of, snapshot, trading_position,
)

K = DecisionKind
rule = pytest.mark.rule


# --------------------------------------------------------------------------- C-6 trading
@rule("C-6.1")
def test_C_6_1_non_active_offer_to_non_active_refused(game3):
    trading_position(game3)
    game3.apply(Pass())
    assert game3.to_move == 1
    assert_illegal(game3, Offer(give_hand=(0,), want=(SOY,), to=2), "C-6.1")


@rule("C-6.1")
@pytest.mark.parametrize("to", [0, 3, -1])
def test_C_6_1_active_offers_only_to_another_seat(game3, to):
    trading_position(game3)
    assert_illegal(game3, Offer(give_trade=(0,), want=(GARDEN,), to=to), "C-6.1")


@rule("C-6.2")
def test_C_6_2_non_active_cannot_give_trading_area_cards(game3):
    trading_position(game3, trade=[[GREEN, SOY], [RED], []], locked=[[False, False], [False], []])
    game3.apply(Pass())
    assert_illegal(game3, Offer(give_trade=(0,), want=(SOY,)), "C-6.2")


@rule("C-6.2")
@pytest.mark.parametrize("action", [
    Offer(give_hand=(1, 1), want=(SOY,), to=1),
    Offer(give_hand=(3,), want=(SOY,), to=1),
    Offer(give_trade=(2,), want=(SOY,), to=1),
    Offer(give_trade=(0, 0), to=1),
])
def test_C_6_2_positions_must_exist_and_be_named_once(game3, action):
    trading_position(game3)
    assert_illegal(game3, action, "C-6.2")


@rule("C-6.2")
def test_C_6_2_active_gives_hand_and_turned_up_cards_together_unequal_quantities(game3):
    trading_position(game3)
    events = game3.apply(Offer(give_hand=(2,), give_trade=(0,), want=(SOY,), to=2))
    assert events[0] == Offered(0, 2, (CHILI, GREEN), (SOY,), 0)
    game3.apply(Pass())  # seat 1
    game3.apply(Accept((1,)))  # seat 2 pays with its second soy
    events = game3.apply(Confirm(0))
    assert Traded(0, 2, (CHILI, GREEN), (SOY,)) in events
    assert game3.seats[0].hand == [BLUE, RED]
    assert game3.seats[0].trade == [SOY, SOY] and game3.seats[0].trade_locked == [False, True]
    assert game3.seats[2].hand == [SOY, CHILI]
    assert game3.seats[2].trade == [CHILI, GREEN] and game3.seats[2].trade_locked == [True, True]


@rule("C-6.3")
def test_C_6_3_received_cards_are_locked_and_cannot_be_traded_again(game3):
    trading_position(game3)
    game3.apply(Pass())
    game3.apply(Offer(give_hand=(1,), to=0))  # seat 1 gives a garden bean to the active player
    game3.apply(Pass())  # seat 2
    game3.apply(Confirm(0))  # who takes it
    assert game3.seats[0].trade == [GREEN, SOY, GARDEN]
    assert game3.seats[0].trade_locked == [False, False, True]
    assert game3.seats[0].hand == [BLUE, RED, CHILI]  # never into a hand
    # next round: the received garden bean may not be offered on
    assert game3.decision.kind is K.TRADE_OFFER and game3.trade_round == 1
    assert_illegal(game3, Offer(give_trade=(2,), want=(RED,), to=1), "C-6.3")
    assert_illegal(game3, Offer(give_trade=(2,), to=1), "C-6.3")


@rule("C-6.3")
def test_C_6_3_locked_cards_cannot_pay_for_a_counter_offer(game3):
    trading_position(game3, trade=[[GREEN, GARDEN], [], []], locked=[[False, True], [], []])
    game3.apply(Pass())
    game3.apply(Offer(give_hand=(0,), want=(GARDEN,)))  # seat 1 wants a garden bean
    game3.apply(Pass())
    assert game3.decision.kind is K.TRADE_CONFIRM
    assert [a for a in game3.decision.options if isinstance(a, Confirm)] == []
    assert_illegal(game3, Confirm(0, give_trade=(1,)), "C-6.3")


@rule("C-6.3")
def test_C_6_3_received_cards_must_be_planted(game3):
    trading_position(game3)
    game3.apply(Offer(give_trade=(0,), to=1))  # gift of the green bean to seat 1
    game3.apply(Accept(()))  # seat 1 takes it
    game3.apply(Pass())  # seat 2
    game3.apply(Confirm(0))
    game3.apply(EndTrading())
    # seat 0 plants its soy, then seat 1 must plant the green it received
    assert game3.decision.seat == 0
    game3.apply(PlantTraded(0, 1))
    assert game3.decision.seat == 1 and game3.decision.kind is K.PLANT_TRADED
    assert all(isinstance(a, (PlantTraded, Harvest)) for a in game3.decision.options)
    game3.apply(PlantTraded(0, 1))
    assert field_of(game3, 1) == [(RED, 1), (GREEN, 1)]


@rule("C-6.4")
def test_C_6_4_no_action_names_a_field_card():
    offer_fields = {f.name for f in dataclasses.fields(Offer)}
    assert offer_fields == {"give_hand", "give_trade", "want", "to"}
    assert {f.name for f in dataclasses.fields(Confirm)} == {"response", "give_hand", "give_trade"}
    assert {f.name for f in dataclasses.fields(Accept)} == {"give_hand"}
    data = {"type": "offer", "give_hand": [], "give_field": [0], "want": ["blue"]}
    with pytest.raises(ValueError) as info:
        action_from_json(data)
    assert "give_field" in str(info.value)


@rule("C-6.4")
def test_C_6_4_a_whole_negotiation_leaves_fields_alone(game3):
    trading_position(game3)
    before = [field_of(game3, s) for s in range(3)]
    decide(game3, Offer(give_trade=(0,), want=(GARDEN,), to=1), Accept((1,)), Pass(), Confirm(0))
    assert [field_of(game3, s) for s in range(3)] == before


@rule("C-6.5")
def test_C_6_5_a_gift_from_the_active_player_waits_for_the_receiver(game3):
    trading_position(game3)
    events = game3.apply(Offer(give_hand=(2,), to=2))
    assert events == [Offered(0, 2, (CHILI,), (), 0)]  # nothing moved
    assert game3.seats[2].trade == [] and game3.seats[0].hand == [BLUE, RED, CHILI]
    assert game3.decision.seat == 1 and Accept(()) not in game3.decision.options  # not the addressee
    game3.apply(Pass())
    assert game3.decision.seat == 2 and Accept(()) in game3.decision.options
    game3.apply(Accept(()))
    assert game3.decision.kind is K.TRADE_CONFIRM
    events = game3.apply(Confirm(0))
    assert Traded(0, 2, (CHILI,), ()) in events
    assert game3.seats[2].trade == [CHILI] and game3.seats[2].trade_locked == [True]
    assert game3.seats[0].hand == [BLUE, RED]


@rule("C-6.5")
def test_C_6_5_a_declined_gift_changes_nothing(game3):
    trading_position(game3)
    before = snapshot(game3)
    game3.apply(Offer(give_hand=(2,), to=2))
    game3.apply(Pass())  # seat 1
    game3.apply(Pass())  # seat 2, the receiver, declines
    assert game3.decision.kind is K.TRADE_OFFER and game3.trade_round == 1  # a new round
    assert snapshot(game3)[:3] == before[:3]  # every seat's cards, the deck and the discard pile


@rule("C-6.5")
def test_C_6_5_a_gift_to_the_active_player_needs_the_active_players_confirmation(game3):
    trading_position(game3)
    game3.apply(Pass())
    events = game3.apply(Offer(give_hand=(2, 0), to=None))  # to=None means the active player
    assert events == [Offered(1, 0, (RED, STINK), (), 0)]
    game3.apply(Pass())  # seat 2
    assert game3.decision.kind is K.TRADE_CONFIRM and Confirm(0) in game3.decision.options
    game3.apply(Pass())  # the active player declines it
    assert game3.seats[1].hand == [STINK, GARDEN, RED, BLUE] and game3.seats[0].trade == [GREEN, SOY]
    game3.apply(Offer(give_trade=(0,), want=(GARDEN,), to=2))  # round 2: nothing was forced on anyone
    game3.apply(Offer(give_hand=(2, 0), to=None))  # seat 1 tries again, seat 0 accepts this time
    game3.apply(Pass())  # seat 2
    events = game3.apply(Confirm(0))
    assert Traded(0, 1, (), (RED, STINK)) in events
    assert game3.seats[0].trade[-2:] == [RED, STINK] and game3.seats[1].hand == [GARDEN, BLUE]


@rule("C-6.5")
def test_C_6_5_classic_v1_games_keep_their_forced_gifts():
    from engine import ClassicGame, rules_for

    def old() -> ClassicGame:
        return trading_position(ClassicGame(rules_for("classic-v1"), 3, 11))

    game = old()
    assert game.rules.id == "classic-v1" and not game.rules.gifts_by_consent and not game.rules.bounded_offers
    events = game.apply(Offer(give_hand=(2,), to=2))
    assert events[:2] == [Offered(0, 2, (CHILI,), (), 0), Traded(0, 2, (CHILI,), ())]
    assert_illegal(old(), Offer(give_hand=(0,), to=None), "C-6.5")  # v1: a gift needed a named receiver
    old().apply(Offer(give_hand=(0,), want=(SOY,) * 9))  # v1 had no C-6.9
