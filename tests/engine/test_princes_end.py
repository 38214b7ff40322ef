"""Rules P-7 (the end of the duel) of seeds/princes-rules.md.

On hand-built positions; test_princes_reference.py says how these modules are written and checks
that every numbered rule and task card has a test.
"""
from __future__ import annotations


import pytest

from engine import ClaimTask, GameOverError, Pass, Plant, duel_rules
from engine.events import Drew, EndTriggered, GameEnded, Harvested, TributePaid, TurnedUp
from engine_helpers import result_of
from princes_helpers import BLUE, CHILI, GREEN, K, RED, SOY, STINK, duel, set_position

rule = pytest.mark.rule


# --------------------------------------------------------------------------- P-7 the end of the duel
@rule("P-7.1")
def test_P_7_1_entering_the_castle_ends_the_game_at_once():
    game = set_position(duel(), hands=[[SOY, RED], [BLUE]], treasury=[5, 0], positions=[28, 10])
    events = game.apply(ClaimTask())
    assert events[1] == EndTriggered("castle", 0) and game.over and game.decision is None
    assert not any(isinstance(e, (TurnedUp, Drew)) for e in events)
    with pytest.raises(GameOverError):
        game.apply(Plant(0))


@rule("P-7.2")
def test_P_7_2_both_players_harvest_and_sell_hands_and_middle_are_discarded():
    game = set_position(duel(), hands=[[SOY], [BLUE, RED]], treasury=[5, 0], positions=[28, 28],
                        fields=[[(RED, 1), (CHILI, 3)], [(BLUE, 1), (STINK, 5)]], middle={GREEN: 1})
    events = game.apply(ClaimTask())
    assert Harvested(0, 0, RED, 1, 0) in events and Harvested(1, 0, BLUE, 1, 0) in events  # no lone-bean rule
    assert Harvested(1, 1, STINK, 5, 2) in events
    assert all(s.hand == [] and not any(s.field_counts) for s in game.seats) and game.middle == {}
    assert result_of(game).coins == (6, 2)


@rule("P-7.3")
def test_P_7_3_the_opponent_pays_tribute_for_every_card_left_until_broke():
    game = set_position(duel(), hands=[[SOY], [BLUE]], treasury=[5, 7], positions=[28, 24])
    events = game.apply(ClaimTask())
    paid = [e for e in events if isinstance(e, TributePaid)]
    assert [e.position for e in paid] == [25, 26, 27, 28] and all(e.seat == 1 for e in paid)
    assert result_of(game).coins == (5, 3)
    game = set_position(duel(), hands=[[SOY], [BLUE]], treasury=[5, 2], positions=[28, 20])
    events = game.apply(ClaimTask())
    assert [e.position for e in events if isinstance(e, TributePaid)] == [21, 22]
    assert result_of(game).coins == (5, 0) and game.seats[1].position == 22


@rule("P-7.4")
def test_P_7_4_most_gold_wins_and_ties_share_the_rank():
    game = set_position(duel(), hands=[[SOY], [BLUE]], treasury=[5, 9], positions=[28, 26])
    game.apply(ClaimTask())
    assert result_of(game).coins == (5, 7) and result_of(game).ranks == (2, 1)
    game = set_position(duel(), hands=[[SOY], [BLUE]], treasury=[5, 7], positions=[28, 26])
    events = game.apply(ClaimTask())
    assert result_of(game).ranks == (1, 1) and events[-1] == GameEnded((5, 5), (1, 1))


@rule("P-7.5")
def test_P_7_5_supply_end_scores_without_tribute():
    limit = duel_rules().reshuffles
    game = set_position(duel(), hands=[[SOY], [BLUE]], treasury=[1, 3], positions=[2, 20],
                        phase=K.KEEP_MIDDLE, reshuffles=limit)
    events = game.apply(Pass())
    assert not any(isinstance(e, TributePaid) for e in events)
    assert result_of(game).coins == (1, 3) and result_of(game).ranks == (2, 1)
