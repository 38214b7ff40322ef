"""Rules C-6.6 to C-6.9 of seeds/classic-rules.md (trading: accepting and confirming, the end of trading,
the order of answers, bounded offers).

On hand-built positions; test_classic_reference.py says how these modules are written and checks
that every numbered rule has a test.
"""
from __future__ import annotations

from collections import Counter

import pytest

from engine import Accept, ClassicGame, Confirm, DecisionKind, EndTrading, Harvest, Offer, Pass, rules_for
from engine.events import Accepted, Offered, Passed, Traded, TradingEnded
from engine.views import OfferView
from engine_helpers import (
    BLACK, BLUE, CHILI, GARDEN, GREEN, RED, SOY, STINK, assert_illegal, decide, new_game, decision_of, set_position,
    trading_position, types_of,
)

K = DecisionKind
rule = pytest.mark.rule


# --------------------------------------------------------------------------- C-6 trading: deals and the end
@rule("C-6.6")
def test_C_6_6_offer_to_one_seat_accepted_then_confirmed(game3):
    trading_position(game3)
    events = game3.apply(Offer(give_trade=(0,), want=(GARDEN,), to=1))
    assert events == [Offered(0, 1, (GREEN,), (GARDEN,), 0)]
    assert game3.decision.seat == 1
    assert set(game3.decision.options) == {Pass(), Accept((1,)), Harvest(0)}
    assert game3.apply(Accept((1,))) == [Accepted(1, 0)]
    # nothing has moved yet
    assert game3.seats[1].hand == [STINK, GARDEN, RED, BLUE] and game3.seats[0].trade == [GREEN, SOY]
    # seat 2 is not the addressee
    assert game3.decision.seat == 2 and Accept((0,)) not in game3.decision.options
    assert_illegal(game3, Accept(()), "C-6.6")
    game3.apply(Pass())
    assert game3.decision.seat == 0 and game3.decision.kind is K.TRADE_CONFIRM
    assert Confirm(0) in game3.decision.options
    events = game3.apply(Confirm(0))
    assert events[0] == Traded(0, 1, (GREEN,), (GARDEN,))
    assert game3.seats[0].trade == [SOY, GARDEN] and game3.seats[0].trade_locked == [False, True]
    assert game3.seats[1].trade == [GREEN] and game3.seats[1].hand == [STINK, RED, BLUE]
    assert game3.decision.kind is K.TRADE_OFFER and game3.trade_round == 1


@rule("C-6.6")
def test_C_6_6_offer_to_everybody_any_seat_accepts_one_deal_closes(game4):
    set_position(game4, hands=[[BLUE, RED], [STINK], [CHILI, SOY], [GREEN, CHILI]], trade=[[SOY, SOY], [], [], []],
                 deck=[BLACK] * 9, phase=K.TRADE_OFFER)
    game4.apply(Offer(give_hand=(0,), give_trade=(0, 1), want=(CHILI,)))
    assert game4.decision.seat == 1 and Accept((0,)) not in game4.decision.options
    assert_illegal(game4, Accept((0,)), "C-6.6")  # a stink bean does not pay for a chili
    game4.apply(Pass())
    game4.apply(Accept((0,)))  # seat 2
    game4.apply(Accept((1,)))  # seat 3
    assert len(game4.view(1).trade.responses) == 2
    assert set(a for a in game4.decision.options if isinstance(a, Confirm)) == {Confirm(0), Confirm(1)}
    events = game4.apply(Confirm(1))
    assert events[0] == Traded(0, 3, (BLUE, SOY, SOY), (CHILI,))
    assert game4.seats[2].hand == [CHILI, SOY] and game4.seats[2].trade == []
    assert game4.seats[3].hand == [GREEN] and game4.seats[3].trade == [BLUE, SOY, SOY]
    assert game4.seats[0].hand == [RED] and game4.seats[0].trade == [CHILI]


@rule("C-6.6")
def test_C_6_6_counter_offer_confirmed_with_trading_area_and_hand_cards(game3):
    trading_position(game3)
    game3.apply(Pass())
    # seat 1 offers stink and red (positions 0, 2) for a soy and a blue
    events = game3.apply(Offer(give_hand=(0, 2), want=(SOY, BLUE)))
    assert events == [Offered(1, 0, (STINK, RED), (SOY, BLUE), 0)]
    game3.apply(Pass())
    assert game3.decision.kind is K.TRADE_CONFIRM
    assert game3.seats[1].hand == [STINK, GARDEN, RED, BLUE]  # nothing moved yet
    assert_illegal(game3, Confirm(0, give_hand=(1,), give_trade=(1,)), "C-6.6")  # red is not blue
    assert_illegal(game3, Confirm(0, give_hand=(0,)), "C-6.6")  # too few cards
    assert_illegal(game3, Confirm(1), "C-6.6")  # no such response
    events = game3.apply(Confirm(0, give_hand=(0,), give_trade=(1,)))
    assert events[0] == Traded(0, 1, (BLUE, SOY), (STINK, RED))
    assert game3.seats[0].hand == [RED, CHILI] and game3.seats[0].trade == [GREEN, STINK, RED]
    assert game3.seats[0].trade_locked == [False, True, True]
    assert game3.seats[1].hand == [GARDEN, BLUE] and game3.seats[1].trade == [BLUE, SOY]


@rule("C-6.6")
def test_C_6_6_unequal_counter_offer_one_card_for_two(game3):
    trading_position(game3)
    game3.apply(Pass())
    game3.apply(Pass())
    game3.apply(Offer(give_hand=(2,), want=(SOY, RED)))  # seat 2: one chili for soy + red
    options = [a for a in game3.decision.options if isinstance(a, Confirm)]
    assert len(options) == 1
    game3.apply(options[0])
    assert Counter(game3.seats[2].trade) == Counter([SOY, RED])
    assert game3.seats[2].hand == [SOY, SOY]
    assert Counter(game3.seats[0].hand + game3.seats[0].trade) == Counter([BLUE, CHILI, GREEN, CHILI])


@rule("C-6.6")
def test_C_6_6_confirming_an_acceptance_names_no_cards_and_passing_moves_nothing(game3):
    trading_position(game3)
    decide(game3, Offer(give_trade=(0,), want=(GARDEN,), to=1), Accept((1,)), Pass())
    assert_illegal(game3, Confirm(0, give_hand=(0,)), "C-6.6")
    before = [(list(s.hand), list(s.trade)) for s in game3.seats]
    assert game3.apply(Pass()) == [Passed(0, "trade_confirm")]
    assert [(s.hand, s.trade) for s in game3.seats] == before
    assert game3.decision.kind is K.TRADE_OFFER


@rule("C-6.6")
def test_C_6_6_accept_and_confirm_are_refused_out_of_place(game3):
    trading_position(game3)
    assert_illegal(game3, Accept((0,)), "C-6.6")
    assert_illegal(game3, Confirm(0), "C-6.6")
    game3.apply(Pass())
    assert_illegal(game3, Accept((1,)), "C-6.6")  # there is no offer this round


@rule("C-6.7")
def test_C_6_7_active_player_ends_trading_when_they_like(game3):
    trading_position(game3)
    events = game3.apply(EndTrading())
    assert events[0] == TradingEnded(0, 0)
    assert game3.decision.kind is K.PLANT_TRADED and game3.decision.seat == 0


@rule("C-6.7")
def test_C_6_7_only_the_active_player_ends_trading(game3):
    trading_position(game3)
    game3.apply(Pass())
    assert_illegal(game3, EndTrading(), "C-6.7")


@rule("C-6.7")
def test_C_6_7_trading_ends_after_six_rounds():
    """Six rounds, each closing a deal: the sixth ends trading all the same."""
    game = new_game(3, seed=11)
    set_position(game, hands=[[BLUE] * 8, [RED] * 8, [SOY]], trade=[[GREEN, SOY], [], []],
                 deck=[BLACK] * 12, phase=K.TRADE_OFFER)
    deals = 0
    while decision_of(game).kind is not K.PLANT_TRADED:
        decide(game, Offer(give_hand=(0,), want=(RED,), to=1), Accept((0,)), Pass(), Confirm(0))
        deals += 1
    assert deals == 6 and TradingEnded(0, 6) in game.events
    assert [e.round for e in game.events if isinstance(e, Offered)] == [0, 1, 2, 3, 4, 5]


@rule("C-6.7")
def test_C_6_7_classic_v2_trading_ends_after_six_rounds_without_deals():
    """The retired classic-v2 had no bound on rounds without a deal: six offers nobody took."""
    game = ClassicGame(rules_for("classic-v2"), 3, 11)
    trading_position(game)
    offers = 0
    while decision_of(game).kind is not K.PLANT_TRADED:
        kind = decision_of(game).kind
        if kind is K.TRADE_OFFER:
            game.apply(Offer(give_trade=(0,), want=(GARDEN,), to=1))
            offers += 1
        else:
            game.apply(Pass())
    assert offers == 6
    assert TradingEnded(0, 6) in game.events


@rule("C-6.7")
def test_C_6_7_two_rounds_in_a_row_without_a_deal_end_trading(game3):
    trading_position(game3)
    decide(game3, Offer(give_trade=(0,), want=(GARDEN,), to=1), Pass(), Pass())
    assert game3.decision.kind is K.TRADE_OFFER and game3.trade_round == 1  # not quiet: a second round
    events = decide(game3, Pass(), Offer(give_hand=(0,), want=(CHILI,)), Pass(), Pass())
    assert events[-1] == TradingEnded(0, 2) and game3.decision.kind is K.PLANT_TRADED


@rule("C-6.7")
def test_C_6_7_a_deal_starts_the_count_of_rounds_without_a_deal_again(game3):
    trading_position(game3, hands=[[BLUE] * 4, [RED] * 4, [SOY]])
    decide(game3, Offer(give_trade=(0,), want=(GARDEN,), to=1), Pass(), Pass())  # no deal
    decide(game3, Offer(give_hand=(0,), want=(RED,), to=1), Accept((0,)), Pass(), Confirm(0))  # a deal
    decide(game3, Offer(give_hand=(0,), want=(GARDEN,), to=1), Pass(), Pass())  # no deal
    assert game3.decision.kind is K.TRADE_OFFER and game3.trade_round == 3
    events = decide(game3, Offer(give_hand=(0,), want=(GARDEN,), to=1), Pass(), Pass())
    assert events[-1] == TradingEnded(0, 4)


@rule("C-6.7")
def test_C_6_7_a_quiet_round_ends_trading(game3):
    trading_position(game3)
    events = decide(game3, Pass(), Pass(), Pass())
    assert types_of(events) == ["passed", "passed", "passed", "trading_ended"]
    assert events[-1] == TradingEnded(0, 1)
    assert game3.decision.kind is K.PLANT_TRADED


@rule("C-6.7")
def test_C_6_7_a_round_with_a_counter_offer_is_not_quiet(game3):
    trading_position(game3)
    decide(game3, Pass(), Offer(give_hand=(0,), want=(CHILI,)), Pass(), Pass())
    assert game3.decision.kind is K.TRADE_OFFER and game3.trade_round == 1


@rule("C-6.8")
def test_C_6_8_responders_answer_in_seat_order_after_the_active_player(game4):
    set_position(game4, hands=[[BLUE], [RED], [SOY], [GREEN]], active=2, trade=[[], [], [CHILI, STINK], []],
                 deck=[BLACK] * 9, phase=K.TRADE_OFFER)
    game4.apply(Offer(give_trade=(0,), want=(BLUE,)))
    seen = []
    while game4.decision.kind is K.TRADE_RESPOND:
        seen.append(game4.decision.seat)
        game4.apply(Pass())
    assert seen == [3, 0, 1]


@rule("C-6.8")
def test_C_6_8_offers_are_public_without_hand_positions(game3):
    trading_position(game3)
    game3.apply(Offer(give_hand=(2,), give_trade=(0,), want=(SOY,)))
    for seat in range(3):
        view = game3.view(seat)
        assert view.trade.offer == OfferView(0, None, (CHILI, GREEN), (SOY,))
        text = str(game3.view_json(seat))
        assert "give_hand" not in text and "give_trade" not in text
    game3.apply(Offer(give_hand=(3,), want=(GREEN,)))  # seat 1 counters
    assert game3.view(2).trade.responses == (OfferView(1, 0, (BLUE,), (GREEN,)),)


@rule("C-6.8")
def test_C_6_8_one_offer_per_round_and_no_offer_outside_trading(game3):
    trading_position(game3)
    game3.apply(Offer(give_trade=(0,), want=(GARDEN,), to=1))
    assert game3.decision.kind is K.TRADE_RESPOND and game3.to_move == 1
    set_position(game3, hands=[[RED], [], []], deck=[BLUE] * 4)
    assert_illegal(game3, Offer(give_hand=(0,), want=(SOY,), to=1), "C-6.8")
    trading_position(game3)
    assert_illegal(game3, Offer(to=1), "C-6.8")  # gives and wants nothing


@rule("C-6.9")
def test_C_6_9_an_offer_wants_no_more_than_its_partner_could_pay(game3):
    trading_position(game3)  # hands: seat 1 holds 4 cards, seat 2 holds 3
    assert_illegal(game3, Offer(give_trade=(0,), want=(SOY,) * 4, to=2), "C-6.9")
    assert_illegal(game3, Offer(give_trade=(0,), want=(SOY,) * 5), "C-6.9")  # everybody: the largest hand is 4
    assert_illegal(game3, Offer(give_trade=(0,), want=(SOY,) * 10_000, to=1), "C-6.9")
    game3.apply(Offer(give_trade=(0,), want=(RED,) * 4))
    assert game3.decision.kind is K.TRADE_RESPOND


@rule("C-6.9")
def test_C_6_9_a_counter_offer_wants_no_more_than_the_active_player_holds(game3):
    trading_position(game3)  # the active seat 0 holds 3 hand cards and 2 untraded turn-ups
    game3.apply(Pass())
    assert game3.to_move == 1
    assert_illegal(game3, Offer(give_hand=(0,), want=(BLUE,) * 6), "C-6.9")
    game3.apply(Offer(give_hand=(0,), want=(BLUE, RED, CHILI, GREEN, SOY)))
    assert game3.to_move == 2
