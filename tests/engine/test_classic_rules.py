"""One or more tests per numbered rule of seeds/classic-rules.md, on hand-built positions.

Each test carries its rule id in its name and as ``@pytest.mark.rule(...)``. Positions are built with
``engine_helpers.set_position``; refused actions are checked with ``assert_illegal`` (right rule id,
action quoted in the message, state untouched).
"""
from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from engine import (
    Accept, Bean, BuyField, ClassicGame, Confirm, DecisionKind, EndTrading, GameOverError, Harvest,
    IllegalAction, Offer, Pass, Plant, PlantTraded, action_from_json, classic_rules, rank_by_coins, rules_for,
)
from engine.events import (
    Accepted, Drew, FieldBought, GameEnded, Harvested, Offered, Passed, Planted, Reshuffled, Traded,
    TradingEnded, TurnedUp, TurnStarted,
)
from engine.views import OfferView
from engine_helpers import (
    BLACK, BLUE, CHILI, GARDEN, GREEN, RED, SOY, STINK, all_cards, assert_illegal, field_of, new_game,
    decision_of, set_position, snapshot, types_of,
)

K = DecisionKind
rule = pytest.mark.rule

# The card table of the rules notes (count; beans for 1/2/3/4 coins), typed in here on purpose so
# that seeds/beans.json is checked against an independent copy.
NOTES_TABLE = {
    BLUE: (20, (4, 6, 8, 10)),
    CHILI: (18, (3, 6, 8, 9)),
    STINK: (16, (3, 5, 7, 8)),
    GREEN: (14, (3, 5, 6, 7)),
    SOY: (12, (2, 4, 6, 7)),
    BLACK: (10, (2, 4, 5, 6)),
    RED: (8, (2, 3, 4, 5)),
    GARDEN: (6, (None, 2, 3, None)),
}


def expected_coins(bean: Bean, n: int) -> int:
    best = 0
    for coins, needed in enumerate(NOTES_TABLE[bean][1], start=1):
        if needed is not None and n >= needed:
            best = coins
    return best


def decide(game: ClassicGame, *actions) -> list:
    """Apply actions in turn, each checked to come from the seat that is to move; returns all events."""
    out = []
    for action in actions:
        out.extend(game.apply(action))
    return out


def trading_position(game: ClassicGame, **overrides) -> ClassicGame:
    """3 players, seat 0 active at the start of trading, two cards turned up (green, soy)."""
    kw = dict(
        hands=[[BLUE, RED, CHILI], [STINK, GARDEN, RED, BLUE], [SOY, SOY, CHILI]],
        trade=[[GREEN, SOY], [], []],
        fields=[[(BLUE, 2), None], [(RED, 1), None], [None, None]],
        deck=[BLACK] * 12,
        phase=K.TRADE_OFFER,
    )
    kw.update(overrides)
    return set_position(game, **kw)


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
        text = str(view.to_json())
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


# --------------------------------------------------------------------------- C-8 views
@rule("C-8.1")
def test_C_8_1_own_hand_in_order_others_only_sizes(game3):
    trading_position(game3)
    view = game3.view(1)
    assert view.hand == (STINK, GARDEN, RED, BLUE)
    assert view.hand_sizes == (3, 4, 3)
    other = game3.view(1).to_json()
    game3.seats[0].hand = [GARDEN, GARDEN, GARDEN]
    game3.seats[2].hand = [RED, BLUE, STINK]
    assert game3.view(1).to_json() == other
    assert game3.view(0).hand == (GARDEN, GARDEN, GARDEN)


@rule("C-8.2")
def test_C_8_2_fields_and_trading_areas_are_seen_by_everybody(game3):
    trading_position(game3, trade=[[GREEN, SOY], [RED], []], locked=[[False, False], [True], []])
    for seat in range(3):
        view = game3.view(seat)
        assert [[(f.bean, f.count) for f in fs] for fs in view.fields] == [
            [(BLUE, 2), (None, 0)], [(RED, 1), (None, 0)], [(None, 0), (None, 0)]]
        assert [[(c.bean, c.locked) for c in area] for area in view.trade_areas] == [
            [(GREEN, False), (SOY, False)], [(RED, True)], []]


@rule("C-8.3")
def test_C_8_3_own_coins_only(game3):
    trading_position(game3, treasury=[4, 2, 7])
    assert [game3.view(s).coins for s in range(3)] == [4, 2, 7]
    before = game3.view(1).to_json()
    game3.seats[0].treasury = [RED] * 9
    game3.seats[2].treasury = []
    assert game3.view(1).to_json() == before


@rule("C-8.4")
def test_C_8_4_discard_top_and_sizes_only_never_the_deck_order(game3):
    trading_position(game3, discard=[GREEN, SOY, RED], deck=[BLUE, CHILI, STINK, GARDEN], reshuffles=1)
    view = game3.view(2)
    assert (view.discard_top, view.discard_size, view.deck_size, view.reshuffles) == (RED, 3, 4, 1)
    before = view.to_json()
    game3.deck.reverse()
    game3.discard[:2] = [BLACK, BLACK]
    assert game3.view(2).to_json() == before
    game3.discard.append(GARDEN)
    assert game3.view(2).discard_top is GARDEN


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


# --------------------------------------------------------------------------- the error itself
@rule("C-6.1")
def test_C_6_1_illegal_action_error_names_the_rule_and_quotes_the_action(game3):
    trading_position(game3)
    action = Offer(give_hand=(0,), want=(SOY,), to=0)
    with pytest.raises(IllegalAction) as info:
        game3.apply(action)
    assert info.value.rule == "C-6.1" and info.value.action == action
    assert 'illegal action {"type":"offer","give_hand":[0],"give_trade":[],"want":["soy"],"to":0}' in str(info.value)
    assert isinstance(info.value, ValueError)
    err = assert_illegal(game3, "plant", "C-0")
    assert "'plant'" in str(err)


# --------------------------------------------------------------------------- coverage of the reference
BEHAVIOUR_DECISIONS = {"D-1", "D-2", "D-4", "D-6"}  # the decisions that change play (D-3 is C-7.4, D-5 is C-4.3)


def test_every_numbered_rule_has_a_marked_test_with_its_id_in_the_name():
    import re
    import sys
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "seeds" / "classic-rules.md").read_text(encoding="utf-8")
    ids = set(re.findall(r"^\| (C-\d+\.\d+) \|", text, flags=re.M))
    assert len(ids) == 35, sorted(ids)  # C-1 2, C-2 3, C-3 3, C-4 3, C-5 7, C-6 9, C-7 4, C-8 4
    assert BEHAVIOUR_DECISIONS <= set(re.findall(r"\*\*(D-\d+) ", text))
    module = sys.modules[__name__]
    marked: dict[str, list[str]] = {}
    for name, fn in vars(module).items():
        if not name.startswith("test_"):
            continue
        for mark in getattr(fn, "pytestmark", []):
            if mark.name == "rule":
                marked.setdefault(mark.args[0], []).append(name)
    for rule_id in sorted(ids | BEHAVIOUR_DECISIONS):
        tests = marked.get(rule_id, [])
        tag = rule_id.replace("-", "_").replace(".", "_")
        assert any(t.startswith(f"test_{tag}_") for t in tests), f"no test for {rule_id} (marked: {tests})"


def test_a_position_is_built_through_the_public_api() -> None:
    """``from_position`` (and ``set_position``) build a situation without touching private state."""
    from engine import PrincesGame, duel_rules

    game = ClassicGame.from_position(classic_rules(), 3, hands=[[BLUE, SOY], [RED], []],
                                     fields=[[(BLUE, 3), None], [None, None], [None, None]],
                                     deck=[CHILI, GREEN, STINK], treasury=[2, 0, 0])
    view = game.view(0)
    assert view.hand == (BLUE, SOY) and view.coins == 2 and view.deck_size == 3
    assert decision_of(game).kind is K.PLANT_FIRST and Plant(0) in decision_of(game).options
    game.apply(Plant(0))
    assert game.seats[0].field_counts == [4, 0] and Harvest(0) in game.legal_actions()
    duel = PrincesGame.from_position(duel_rules(), 2, hands=[[RED], [BLUE]], positions=[3, 1])
    assert duel.view(0).hand == (RED,) and duel.view(1).figures == (3, 1)
