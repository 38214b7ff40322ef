"""The decisions D-1 to D-6 of seeds/classic-rules.md that change play.

On hand-built positions; test_classic_reference.py says how these modules are written and checks
that every numbered rule has a test.
"""
from __future__ import annotations

import pytest

from engine import BuyField, ClassicGame, DecisionKind, Harvest, Offer, Pass, Plant, rules_for
from engine.events import FieldBought, Planted, Reshuffled, TurnedUp
from engine_helpers import BLUE, GARDEN, GREEN, RED, SOY, decision_of, set_position, trading_position

K = DecisionKind
rule = pytest.mark.rule


# --------------------------------------------------------------------------- decisions
@rule("D-1")
@pytest.mark.parametrize("rules_id,rounds", [("classic-v3", 2), ("classic-v2", 6)])
def test_D_1_a_turn_has_at_most_six_rounds_of_players_plus_one_decisions(rules_id, rounds):
    """Rounds kept alive by counter-offers alone: 6 under classic-v2, 2 since classic-v3 (no deal closed)."""
    game3 = ClassicGame(rules_for(rules_id), 3, 11)
    trading_position(game3, hands=[[BLUE] * 3, [RED] * 9, [SOY] * 9])
    trading_decisions = 0
    while decision_of(game3).kind is not K.PLANT_TRADED:
        d = decision_of(game3)
        trading_decisions += 1
        if d.kind is K.TRADE_OFFER:
            game3.apply(Offer(give_hand=(0,), want=(GARDEN,), to=1))
        elif d.kind is K.TRADE_RESPOND:
            game3.apply(Offer(give_hand=(0,), want=(GARDEN,)))  # a counter-offer every round
        else:
            game3.apply(Pass())
        assert trading_decisions <= 6 * (3 + 1)
    assert trading_decisions == rounds * (3 + 1)


@rule("D-2")
def test_D_2_trading_area_cards_are_discarded_not_planted_when_the_game_ends(game3):
    set_position(game3, hands=[[SOY], [], []], fields=[[None, None], [None, None], [None, None]],
                 deck=[GREEN], reshuffles=2)
    events = game3.apply(Plant(0))
    assert game3.over
    assert [e for e in events if isinstance(e, Planted)] == [Planted(0, SOY, 0, "hand")]
    assert GREEN in game3.discard and game3.seats[0].trade == []
    assert game3.result.coins == (0, 0, 0)


@rule("D-4")
def test_D_4_the_three_most_recent_coins_pay_for_a_field(game3):
    set_position(game3, hands=[[RED], [], []], treasury=[[BLUE, BLUE, BLUE], 0, 0],
                 fields=[[(SOY, 4), None], [None, None], [None, None]], deck=[GREEN] * 6)
    game3.apply(Harvest(0))
    assert game3.seats[0].treasury == [BLUE, BLUE, BLUE, SOY, SOY]
    events = game3.apply(BuyField())
    assert events == [FieldBought(0, (BLUE, SOY, SOY))]
    assert game3.seats[0].treasury == [BLUE, BLUE]
    assert game3.view(1).discard_top is SOY


@rule("D-6")
def test_D_6_reshuffling_an_empty_discard_pile_counts(game3):
    set_position(game3, hands=[[SOY], [], []], deck=[], discard=[])
    events = game3.apply(Plant(0))
    assert [e for e in events if isinstance(e, Reshuffled)] == [Reshuffled(0, 1), Reshuffled(0, 2)]
    assert game3.over and game3.reshuffles == 2


@rule("D-6")
def test_D_6_second_reshuffle_of_an_empty_pile_ends_at_the_second_exhaustion(game3):
    set_position(game3, hands=[[SOY], [], []], deck=[GREEN], discard=[], reshuffles=1)
    events = game3.apply(Plant(0))
    assert [e for e in events if isinstance(e, Reshuffled)] == [Reshuffled(0, 2)]
    assert TurnedUp(0, (GREEN,)) in events and game3.over
