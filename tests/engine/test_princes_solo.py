"""Rules S-1 to S-7 (the solo game) of seeds/princes-rules.md.

On hand-built positions; test_princes_reference.py says how these modules are written and checks
that every numbered rule and task card has a test.
"""
from __future__ import annotations

import dataclasses

import pytest

from engine import ClaimTask, DiscardMiddle, Pass, PayTribute, PlantMiddle
from engine.events import Discarded, EndTriggered, FigureMoved, Harvested, TurnedUp
from engine_helpers import decision_of, result_of
from princes_helpers import BLUE, GREEN, K, RED, SOY, assert_illegal, princes_of, set_position, solo

rule = pytest.mark.rule


# --------------------------------------------------------------------------- S solo
@rule("S-1")
def test_S_1_solo_has_no_phase_0():
    game = set_position(solo(), hands=[[SOY]], phase=K.KEEP_MIDDLE, middle={RED: 1}, deck=[BLUE] * 9, violet=0)
    game.apply(Pass())
    assert decision_of(game).kind is K.PLANT_FIRST and game.middle == {}
    game = set_position(solo(), hands=[[SOY]], phase=K.KEEP_MIDDLE, middle={RED: 1}, deck=[BLUE] * 9)
    assert_illegal(game, DiscardMiddle(RED), "S-1")


@rule("S-2")
@pytest.mark.parametrize("start,end", [(0, 1), (6, 7), (7, 8), (8, 10), (14, 16), (15, 18), (21, 24), (27, 29),
                                       (28, 29)])
def test_S_2_violet_moves_one_two_three_three_by_row_before_phase_1(start, end):
    game = set_position(solo(), hands=[[SOY]], phase=K.KEEP_MIDDLE, deck=[BLUE] * 9, violet=start, red=0,
                        positions=[28])
    game.rules = dataclasses.replace(game.rules, princes=dataclasses.replace(game.princes, neutrals_to_lose=2))
    game.princes = princes_of(game.rules)
    events = game.apply(Pass())
    assert FigureMoved("violet", end) in events and game.violet == end


@rule("S-3")
def test_S_3_red_starts_before_row_4_and_steps_when_violet_is_ahead():
    assert solo(1).red == 21 or any(e == FigureMoved("red", 22) for e in solo(1).events)
    game = set_position(solo(), hands=[[SOY]], phase=K.KEEP_MIDDLE, deck=[BLUE] * 9, violet=3, red=21, positions=[4])
    events = game.apply(Pass())
    assert game.violet == 4 and game.red == 21 and not any(e == FigureMoved("red", 22) for e in events)
    game = set_position(solo(), hands=[[SOY]], phase=K.KEEP_MIDDLE, deck=[BLUE] * 9, violet=3, red=21, positions=[3])
    events = game.apply(Pass())
    assert FigureMoved("red", 22) in events and game.red == 22
    first = solo(5)
    assert first.violet == 1 and first.red == 22  # turn 1: violet steps ahead of the player at once


@rule("S-4")
def test_S_4_unplanted_middle_cards_are_discarded_after_phase_3():
    game = set_position(solo(), hands=[[SOY]], phase=K.KEEP_MIDDLE, middle={RED: 2, GREEN: 1}, deck=[BLUE] * 9)
    game.apply(PlantMiddle(GREEN, 0))
    events = game.apply(Pass())
    assert Discarded(0, (RED, RED), "middle") in events and game.discard == [RED, RED]


@rule("S-5")
def test_S_5_four_cards_face_up_in_front_of_the_player_neutrals_play_no_role():
    game = solo(7)
    assert game.revealed == 4
    set_position(game, vine=game.vine, hands=[[SOY]], treasury=[3], violet=20, red=25)
    game.revealed = 4
    game.apply(PayTribute())
    game.apply(PayTribute())
    assert game.revealed == 6 and game.view(0).vine[5] == game.vine[5] and game.view(0).vine[6] is None


@rule("S-6")
def test_S_6_the_player_wins_by_entering_the_castle_before_a_neutral_figure():
    game = set_position(solo(), hands=[[SOY]], treasury=[5], positions=[28], violet=20, red=28)
    game.apply(ClaimTask())
    assert game.over and game.end_reason == "castle" and result_of(game).ranks == (1,)


@rule("S-6")
@pytest.mark.parametrize("violet,red", [(28, 10), (10, 28)])
def test_S_6_a_neutral_figure_in_the_castle_first_is_a_loss(violet, red):
    game = set_position(solo(), hands=[[SOY]], phase=K.KEEP_MIDDLE, deck=[BLUE] * 9, violet=violet, red=red,
                        positions=[5], treasury=[6])
    events = game.apply(Pass())
    assert EndTriggered("neutral", None) in events and result_of(game).ranks == (2,) and result_of(game).coins == (6,)
    assert not any(isinstance(e, TurnedUp) for e in events[events.index(EndTriggered("neutral", None)):])


@rule("S-7")
def test_S_7_solo_result_is_gold_after_final_harvest_rank_1_win_2_loss():
    game = set_position(solo(), hands=[[SOY]], treasury=[5], positions=[28], fields=[[(RED, 4), None]])
    events = game.apply(ClaimTask())
    assert Harvested(0, 0, RED, 4, 3) in events and result_of(game).coins == (8,) and result_of(game).ranks == (1,)
