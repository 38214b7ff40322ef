"""Rules C-1 (components) and C-2 (setup) of seeds/classic-rules.md.

On hand-built positions; test_classic_reference.py says how these modules are written and checks
that every numbered rule has a test.
"""
from __future__ import annotations

from collections import Counter

import pytest

from engine import Bean, ClassicGame, Confirm, DecisionKind, EndTrading, Offer, Pass, Plant, classic_rules
from engine.events import Traded, TurnStarted
from engine_helpers import (
    BLACK, BLUE, CHILI, GARDEN, GREEN, NOTES_TABLE, RED, SOY, STINK, all_cards, decide, expected_coins, field_of,
    decision_of, set_position, trading_position,
)

K = DecisionKind
rule = pytest.mark.rule


# --------------------------------------------------------------------------- C-1 components
@rule("C-1.1")
def test_C_1_1_deck_has_104_cards_of_eight_types_matching_the_notes_table():
    rules = classic_rules()
    assert rules.deck_size == 104
    assert {t.bean: (t.count, t.beanometer) for t in rules.bean_types} == NOTES_TABLE
    counts = sorted(t.count for t in rules.bean_types)
    assert counts == list(range(6, 21, 2))  # every even count 6..20 exactly once
    for players in (3, 4, 5):
        game = ClassicGame(rules, players, seed=players)
        assert all_cards(game) == Counter({b: n for b, (n, _) in NOTES_TABLE.items()})


@rule("C-1.1")
@pytest.mark.parametrize("bean", list(NOTES_TABLE))
def test_C_1_1_beanometer_pays_the_table_at_every_count(bean):
    rules = classic_rules()
    count = NOTES_TABLE[bean][0]
    for n in range(count + 1):
        assert rules.coins_for(bean, n) == expected_coins(bean, n), (bean, n)
        assert rules.bean_type(bean).coins_for(n) == expected_coins(bean, n)


@rule("C-1.1")
def test_C_1_1_beanometer_matches_the_seed_sentences_for_blue_and_garden():
    rules = classic_rules()
    # seed 002: 1-3 blue 0 coins, 4-5 one, 6-7 two, 8-9 three, 10+ four
    assert [rules.coins_for(BLUE, n) for n in range(1, 21)] == [0] * 3 + [1] * 2 + [2] * 2 + [3] * 2 + [4] * 11
    # seed 002: one garden bean nothing, two are 2 coins, three or more 3 coins
    assert [rules.coins_for(GARDEN, n) for n in range(1, 7)] == [0, 2, 3, 3, 3, 3]


@rule("C-1.2")
@pytest.mark.parametrize("players", [0, 1, 2, 6, 7])
def test_C_1_2_games_are_for_three_to_five_players(players):
    with pytest.raises(ValueError) as info:
        ClassicGame(classic_rules(), players, seed=1)
    assert repr(players) in str(info.value)


@rule("C-1.2")
@pytest.mark.parametrize("players", [3, 4, 5])
def test_C_1_2_three_four_and_five_players_are_dealt(players):
    game = ClassicGame(classic_rules(), players, seed=5)
    assert len(game.seats) == players
    assert len(game.deck) == 104 - 5 * players


# --------------------------------------------------------------------------- C-2 setup
class _ArrangedRandom:
    """Stands in for random.Random: the 'shuffle' puts a chosen sequence on top of the deck."""

    top: list[Bean] = []

    def __init__(self, seed):
        pass

    def shuffle(self, cards):
        rest = Counter(cards) - Counter(self.top)
        body = [b for b, n in sorted(rest.items(), key=lambda kv: kv[0].value) for _ in range(n)]
        cards[:] = body + list(reversed(self.top))  # the top of the deck is the end of the list


@rule("C-2.1")
def test_C_2_1_five_cards_dealt_one_at_a_time_around_the_table(monkeypatch):
    order = [BLUE, CHILI, STINK, GREEN, SOY, BLACK, RED, GARDEN, BLUE, CHILI, STINK, GREEN, SOY, BLACK, RED]
    _ArrangedRandom.top = order
    monkeypatch.setattr("engine.game.random.Random", _ArrangedRandom)  # where every game shuffles its deck
    game = ClassicGame(classic_rules(), 3, seed=0)
    for seat in range(3):
        assert game.seats[seat].hand == order[seat::3]
    assert len(game.deck) == 104 - 15
    assert all_cards(game) == Counter({b: n for b, (n, _) in NOTES_TABLE.items()})


@rule("C-2.1")
def test_C_2_1_the_deal_depends_on_the_seed_only():
    a, b, c = (ClassicGame(classic_rules(), 4, seed=s) for s in (7, 7, 8))
    assert [s.hand for s in a.seats] == [s.hand for s in b.seats]
    assert a.deck == b.deck
    assert ([s.hand for s in a.seats], a.deck) != ([s.hand for s in c.seats], c.deck)
    assert all(len(s.hand) == 5 for s in a.seats)


@rule("C-2.2")
def test_C_2_2_hand_order_kept_when_trading_from_the_middle_and_drawing(game3):
    trading_position(game3)
    decide(game3, Pass())  # active passes; seat 1 to respond
    assert game3.to_move == 1
    # seat 1 gives positions 3 and 1 (blue, garden) as a gift, which the active player takes
    game3.apply(Offer(give_hand=(3, 1), to=0))
    game3.apply(Pass())  # seat 2
    events = game3.apply(Confirm(0))
    assert Traded(0, 1, (), (BLUE, GARDEN)) in events
    assert game3.seats[1].hand == [STINK, RED]
    assert game3.seats[0].trade == [GREEN, SOY, BLUE, GARDEN]
    # the hand is never reordered by planting or drawing either
    game3.apply(EndTrading())
    while game3.decision.kind is K.PLANT_TRADED:
        game3.apply(game3.decision.options[0])
    assert game3.seats[0].hand == [BLUE, RED, CHILI, BLACK, BLACK, BLACK]


@rule("C-2.2")
def test_C_2_2_planting_takes_the_front_card(game3):
    set_position(game3, hands=[[RED, BLUE, SOY], [], []], deck=[GREEN] * 6)
    game3.apply(Plant(0))
    assert game3.seats[0].hand == [BLUE, SOY]
    assert field_of(game3, 0) == [(RED, 1), None]


@rule("C-2.3")
@pytest.mark.parametrize("players", [3, 4, 5])
def test_C_2_3_two_empty_fields_empty_trading_area_no_coins_seat_0_first(players):
    game = ClassicGame(classic_rules(), players, seed=3)
    for s in game.seats:
        assert s.field_counts == [0, 0] and s.field_beans == [None, None]
        assert s.trade == [] and s.treasury == [] and s.coins == 0
    assert decision_of(game).seat == 0 and decision_of(game).kind is K.PLANT_FIRST
    assert game.events == [TurnStarted(0, 0)]
