"""Rules C-7 (deck, end, score) of seeds/classic-rules.md.

On hand-built positions; test_classic_reference.py says how these modules are written and checks
that every numbered rule has a test.
"""
from __future__ import annotations

from collections import Counter

import pytest

from engine import DecisionKind, GameOverError, Pass, Plant, rank_by_coins
from engine.events import Drew, GameEnded, Harvested, Reshuffled, TurnedUp, TurnStarted
from engine_helpers import BLUE, CHILI, GARDEN, GREEN, RED, SOY, STINK, set_position, types_of

K = DecisionKind
rule = pytest.mark.rule


# --------------------------------------------------------------------------- C-7 deck, end, score
@rule("C-7.1")
def test_C_7_1_empty_deck_reshuffles_the_discard_pile(game3):
    set_position(game3, hands=[[BLUE], [], []], discard=[RED, RED, SOY, GREEN], deck=[])
    events = game3.apply(Plant(0))
    assert Reshuffled(4, 1) in events
    assert game3.reshuffles == 1 and game3.discard == []
    assert len(game3.deck) == 2
    assert Counter(game3.deck + game3.seats[0].trade) == Counter([RED, RED, SOY, GREEN])


@rule("C-7.1")
def test_C_7_1_at_most_two_reshuffles(game3):
    set_position(game3, hands=[[BLUE], [], []], discard=[RED, RED, SOY], deck=[GREEN], reshuffles=2)
    events = game3.apply(Plant(0))
    assert not any(isinstance(e, Reshuffled) for e in events)
    assert game3.over and game3.reshuffles == 2


@rule("C-7.2")
def test_C_7_2_third_exhaustion_ends_the_game_at_once_while_drawing(game3):
    set_position(game3, hands=[[SOY], [RED], []], fields=[[(BLUE, 4), None], [None, None], [None, None]],
                 deck=[GREEN, GREEN], discard=[CHILI], reshuffles=2, phase=K.PLANT_TRADED)
    assert game3.over and game3.decision is None and game3.legal_actions() == ()
    assert [e for e in game3.events if isinstance(e, Drew)] == [Drew(0, 2)]
    assert game3.active == 0  # no next turn
    assert not any(isinstance(e, TurnStarted) for e in game3.events)
    assert game3.result.coins == (1, 0, 0)
    with pytest.raises(GameOverError):
        game3.apply(Pass())


@rule("C-7.2")
def test_C_7_2_game_can_end_while_turning_up(game3):
    set_position(game3, hands=[[SOY], [], []], deck=[GREEN], reshuffles=2)
    events = game3.apply(Plant(0))
    assert types_of(events) == ["planted", "turned_up", "harvested", "game_ended"]
    assert events[1] == TurnedUp(0, (GREEN,))
    assert game3.over


@rule("C-7.3")
def test_C_7_3_final_scoring_ignores_the_single_bean_rule_and_discards_the_rest(game3):
    set_position(game3, hands=[[SOY], [RED, RED], [GARDEN]], reshuffles=2, deck=[],
                 fields=[[(BLUE, 1), (CHILI, 8)], [(GARDEN, 2), (STINK, 1)], [(RED, 1), None]],
                 treasury=[2, 0, 1], discard=[GREEN])
    events = game3.apply(Plant(1))  # soy onto the 8 chili (3 coins); turning up then ends the game
    assert game3.over
    harvested = [e for e in events if isinstance(e, Harvested)]
    assert Harvested(0, 0, BLUE, 1, 0) in harvested  # the lone blue was cashed although ...
    assert Harvested(1, 1, STINK, 1, 0) in harvested  # ... a lone stink beside 2 garden beans, too
    assert Harvested(1, 0, GARDEN, 2, 2) in harvested
    assert Harvested(2, 0, RED, 1, 0) in harvested
    assert all(n == 0 for s in game3.seats for n in s.field_counts)
    assert all(s.hand == [] and s.trade == [] for s in game3.seats)
    assert game3.result.coins == (2 + 3, 2, 1)
    for bean in (RED, GARDEN, SOY):  # hand cards were discarded
        assert bean in game3.discard


@rule("C-7.4")
def test_C_7_4_ranked_by_coins_ties_share_a_rank():
    assert rank_by_coins([5, 9, 5]) == (2, 1, 2)
    assert rank_by_coins([7, 7, 3, 1]) == (1, 1, 3, 4)
    assert rank_by_coins([4, 4, 4, 4, 4]) == (1, 1, 1, 1, 1)
    assert rank_by_coins([1, 2, 3]) == (3, 2, 1)


@rule("C-7.4")
def test_C_7_4_game_result_ranks_with_ties(game4):
    set_position(game4, hands=[[BLUE], [], [], []], reshuffles=2, deck=[], treasury=[3, 5, 5, 1])
    events = game4.apply(Plant(0))
    assert game4.result.coins == (3, 5, 5, 1)
    assert game4.result.ranks == (3, 1, 1, 4)
    assert events[-1] == GameEnded((3, 5, 5, 1), (3, 1, 1, 4))
