"""Rules P-4 (the turn, phases 0 to 4) and P-5 (the supply) of seeds/princes-rules.md.

On hand-built positions; test_princes_reference.py says how these modules are written and checks
that every numbered rule and task card has a test.
"""
from __future__ import annotations

import random

import pytest

from engine import DiscardHand, DiscardMiddle, Pass, Plant, PlantMiddle, duel_rules
from engine.events import Drew, EndTriggered, Planted, Reshuffled, TookDiscard, TurnedUp, TurnStarted
from strategy.policies import random_action
from engine_helpers import decision_of, result_of
from princes_helpers import BLUE, CHILI, GREEN, K, RED, SOY, STINK, assert_illegal, duel, fields_of, set_position

rule = pytest.mark.rule


# --------------------------------------------------------------------------- P-4 the turn
@rule("P-4.1")
def test_P_4_1_phase_0_plants_or_discards_every_kind_left_whole():
    game = set_position(duel(), hands=[[SOY], []], fields=[[(CHILI, 2), None], [None, None]],
                        middle={CHILI: 2, RED: 1, GREEN: 1}, phase=K.TAKE_MIDDLE)
    assert Pass() not in decision_of(game).options
    assert_illegal(game, Pass(), "P-4.1")
    assert_illegal(game, DiscardMiddle(SOY), "P-4.1")
    events = game.apply(PlantMiddle(CHILI, 0))
    assert events == [Planted(0, CHILI, 0, "middle")] * 2 and fields_of(game, 0) == [(CHILI, 4), None]
    game.apply(DiscardMiddle(GREEN))
    assert game.discard == [GREEN] and decision_of(game).kind is K.TAKE_MIDDLE
    game.apply(PlantMiddle(RED, 1))
    assert game.middle == {} and decision_of(game).kind is K.PLANT_FIRST


@rule("P-4.1")
def test_P_4_1_phase_0_is_skipped_when_the_middle_is_empty():
    game = set_position(duel(), hands=[[SOY], [BLUE]], deck=[RED] * 10, phase=K.KEEP_MIDDLE)
    game.apply(Pass())
    assert game.active == 1 and decision_of(game).kind is K.PLANT_FIRST


@rule("P-4.2")
def test_P_4_2_phase_1_plants_the_front_card_then_maybe_the_second():
    game = set_position(duel(), hands=[[SOY, SOY, RED], []], deck=[BLUE] * 10)
    assert Pass() not in decision_of(game).options
    assert_illegal(game, Pass(), "P-4.2")
    game.apply(Plant(0))
    assert decision_of(game).kind is K.PLANT_SECOND and Pass() in decision_of(game).options
    game.apply(Plant(0))
    assert fields_of(game, 0) == [(SOY, 2), None] and game.seats[0].hand == [RED]
    assert decision_of(game).kind is K.DISCARD_HAND  # the discard was not used yet
    assert_illegal(game, Plant(1), "P-4.2")


@rule("P-4.3")
def test_P_4_3_one_hand_card_discarded_before_between_or_after_planting():
    for moment in ("before", "between", "after"):
        game = set_position(duel(), hands=[[SOY, RED, GREEN], []], deck=[BLUE] * 10)
        if moment == "before":
            game.apply(DiscardHand(1))
        game.apply(Plant(0))
        if moment == "between":
            game.apply(DiscardHand(0))
        game.apply(Pass())
        if moment == "after":
            assert decision_of(game).kind is K.DISCARD_HAND
            game.apply(DiscardHand(1))
        assert game.log.p1_discards == 1 and len(game.discard) == 1, moment
        assert decision_of(game).kind is K.KEEP_MIDDLE
        assert_illegal(game, DiscardHand(0), "P-4.3")
    game = set_position(duel(), hands=[[SOY, RED], []], deck=[BLUE] * 10)
    game.apply(DiscardHand(0))
    assert not any(isinstance(a, DiscardHand) for a in decision_of(game).options)
    assert_illegal(game, DiscardHand(0), "P-4.3")
    game = set_position(duel(), hands=[[SOY], []], deck=[BLUE] * 10)
    assert_illegal(game, DiscardHand(3), "P-4.3")


@rule("P-4.4")
def test_P_4_4_phase_2_turns_up_three_stacked_by_kind():
    game = set_position(duel(), hands=[[SOY], []], deck=[RED, GREEN, RED, BLUE, BLUE])
    events = game.apply(Plant(0))
    events += game.apply(Pass())
    assert TurnedUp(0, (RED, GREEN, RED)) in events
    assert game.middle == {RED: 2, GREEN: 1} and game.view(1).middle == ((RED, 2), (GREEN, 1))


@rule("P-4.5")
def test_P_4_5_phase_2_takes_matching_cards_from_the_top_of_the_discard_pile():
    game = set_position(duel(), hands=[[SOY], []], deck=[RED, GREEN, STINK, BLUE, BLUE],
                        discard=[GREEN, CHILI, GREEN, RED, RED])
    events = game.apply(Plant(0))  # a one-card hand: planting leads straight into phase 2
    assert TookDiscard(0, (RED, RED, GREEN)) in events
    assert game.middle == {RED: 3, GREEN: 2, STINK: 1} and game.discard == [GREEN, CHILI]


@rule("P-4.6")
def test_P_4_6_phase_3_plants_whole_kinds_into_one_field_and_leaves_the_rest():
    game = set_position(duel(), hands=[[], [SOY]], fields=[[(RED, 1), None], [None, None]],
                        middle={RED: 2, GREEN: 1}, phase=K.KEEP_MIDDLE, deck=[BLUE] * 8)
    assert not any(isinstance(a, DiscardMiddle) for a in decision_of(game).options)
    assert_illegal(game, DiscardMiddle(RED), "P-4.1")
    assert_illegal(game, PlantMiddle(SOY, 1), "P-4.6")
    game.apply(PlantMiddle(RED, 0))
    assert fields_of(game, 0) == [(RED, 3), None] and game.log.p3_planted == [(RED, 2)]
    game.apply(Pass())
    assert game.middle == {GREEN: 1} and game.active == 1 and decision_of(game).kind is K.TAKE_MIDDLE
    game2 = set_position(duel(), hands=[[SOY], []])
    assert_illegal(game2, PlantMiddle(RED, 0), "P-4.6")


@rule("P-4.7")
def test_P_4_7_phase_4_draws_two_to_the_back_then_the_other_player_moves():
    game = set_position(duel(), hands=[[SOY], [BLUE]], phase=K.KEEP_MIDDLE, deck=[RED, GREEN, BLUE])
    events = game.apply(Pass())
    assert Drew(0, 2) in events and game.seats[0].hand == [SOY, RED, GREEN]
    assert events[-1] == TurnStarted(1, 1) and game.active == 1 and game.to_move == 1


@rule("P-4.8")
def test_P_4_8_only_the_active_player_is_ever_asked():
    game = duel(12)
    rng = random.Random(12)
    while not game.over:
        decision = decision_of(game)
        assert decision.seat == game.active == game.to_move
        game.apply(random_action(game, rng))


# --------------------------------------------------------------------------- P-5 supply
@rule("P-5.1")
def test_P_5_1_an_empty_supply_is_rebuilt_from_the_discard_pile():
    game = set_position(duel(), hands=[[SOY], [BLUE]], phase=K.KEEP_MIDDLE, deck=[RED], discard=[GREEN, CHILI])
    events = game.apply(Pass())
    assert Reshuffled(2, 1) in events and Drew(0, 2) in events and game.reshuffles == 1
    assert game.discard == []


@rule("P-5.2")
def test_P_5_2_supply_exhausted_by_phase_2_matching_cards_first_then_reshuffle():
    game = set_position(duel(), hands=[[SOY], []], deck=[RED, GREEN, BLUE], discard=[CHILI, STINK, BLUE])
    events = game.apply(Plant(0))  # a one-card hand: planting leads straight into phase 2
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("TookDiscard") < kinds.index("Reshuffled")
    assert game.middle == {RED: 1, GREEN: 1, BLUE: 2} and sorted(game.deck, key=str) == sorted([CHILI, STINK], key=str)


@rule("P-5.2")
def test_P_5_2_supply_short_of_three_turns_up_what_there_is():
    game = set_position(duel(), hands=[[SOY], []], deck=[RED], discard=[GREEN, RED])
    events = game.apply(Plant(0))  # a one-card hand: planting leads straight into phase 2
    assert TurnedUp(0, (RED,)) in events and TookDiscard(0, (RED,)) in events
    assert Reshuffled(1, 1) in events and game.deck == [GREEN] and game.middle == {RED: 2}


@rule("P-5.3")
def test_P_5_3_the_game_ends_when_the_supply_is_exhausted_past_the_limit():
    limit = duel_rules().reshuffles
    game = set_position(duel(), hands=[[SOY], [BLUE]], fields=[[(RED, 3), None], [None, None]],
                        phase=K.KEEP_MIDDLE, deck=[GREEN], discard=[CHILI], reshuffles=limit)
    events = game.apply(Pass())
    assert EndTriggered("supply", None) in events and game.over and game.end_reason == "supply"
    assert Drew(0, 1) in events
    assert result_of(game).coins == (2, 0) and result_of(game).ranks == (1, 2)
