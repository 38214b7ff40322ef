"""One or more tests per numbered rule of seeds/princes-rules.md and one per Vine task card.

Each test carries its rule or task id in its name and as ``@pytest.mark.rule(...)``. Positions are built
with ``princes_helpers.set_position``; refused actions are checked with ``assert_illegal``.
"""
from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path
from typing import Any

import pytest

from engine import (
    Bean, BuyField, ClaimTask, DiscardHand, DiscardMiddle, GameOverError, Harvest, Pass, PayTribute, Plant, PlantMiddle,
    PrincesGame, PrincesRules, Rules, duel_rules, new_game, rules_for, solo_rules,
)
from engine.events import (
    Discarded, Drew, EndTriggered, FieldBought, FigureMoved, GameEnded, Harvested, Planted, Reshuffled, TaskClaimed,
    TookDiscard, TributePaid, TurnedUp, TurnStarted, VineRevealed,
)
from engine.defaults import default_action
from strategy.policies import princes_greedy_action, random_action
from engine.princes import CHECKS, TurnLog
from engine.vine import TASKS
from engine_helpers import decision_of, result_of
from princes_helpers import (
    BLACK, BLUE, CHILI, COMPOSITION, GREEN, K, RED, SOY, STINK, all_cards, assert_illegal, duel, fields_of,
    princes_game, princes_of, set_position, solo,
)

rule = pytest.mark.rule
REFERENCE = Path(__file__).resolve().parents[2] / "seeds" / "princes-rules.md"


def with_vine(*tasks: str) -> list[str]:
    """A vine whose first cards are ``tasks``, the rest "V04"."""
    return list(tasks) + ["V04"] * (28 - len(tasks))


# --------------------------------------------------------------------------- P-1 components
@rule("P-1.1")
def test_P_1_1_deck_is_the_base_deck_without_garden_beans():
    for rules in (duel_rules(), solo_rules()):
        assert rules.deck_size == 98
        assert Bean_names(rules) == ["blue", "chili", "stink", "green", "soy", "black_eyed", "red"]
        assert rules.coins_for(BLUE, 10) == 4 and rules.coins_for(RED, 2) == 1
    for game in (duel(3), solo(3)):
        assert all_cards(game) == COMPOSITION and game.card_count() == 98


def Bean_names(rules: Rules) -> list[str]:
    return [b.value for b in rules.beans]


@rule("P-1.2")
@pytest.mark.parametrize("variant,players,bad", [("duel", 2, (1, 3)), ("solo", 1, (0, 2))])
def test_P_1_2_duel_is_for_two_players_solo_for_one(variant, players, bad):
    rules = rules_for(variant)
    assert len(new_game(rules, players, 1).seats) == players
    for n in bad:
        with pytest.raises(ValueError, match=repr(n)):
            new_game(rules, n, 1)


@rule("P-1.3")
def test_P_1_3_vine_is_28_cards_in_4_rows_of_7_shuffled_from_the_seed_castle_after():
    rules = duel_rules()
    assert princes_of(rules).rows * princes_of(rules).row_length == 28
    a, b, c = duel(5), duel(5), duel(6)
    assert sorted(a.vine) == sorted(TASKS) and a.vine == b.vine and a.vine != c.vine
    assert a.castle == 29
    assert rules_for("duel-v1").id == "duel-v1" and rules_for("solo").id == "solo-v1"


@rule("P-1.4")
def test_P_1_4_every_task_text_of_the_reference_is_the_engine_s_and_has_a_check():
    text = REFERENCE.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (V\d\d) \| (.+?) \|", text, flags=re.M))
    assert rows == TASKS
    assert set(CHECKS) == set(TASKS) and len(TASKS) == 28
    known = ["In Phase 1 you add 2 beans to one or two existing bean fields.",
             "All other figures are ahead of your figure.", "In Phase 1 you plant two beans of the same kind.",
             "You have Blue bean(s) in one of your fields.", "Any player has at least 2 Red beans planted."]
    assert [TASKS[f"V0{i}"] for i in range(1, 6)] == known


# --------------------------------------------------------------------------- P-2 setup
@rule("P-2.1")
def test_P_2_1_five_cards_dealt_alternately_from_the_shuffled_deck():
    game = duel(9)
    again = random.Random(9)
    deck = [t.bean for t in duel_rules().bean_types for _ in range(t.count)]
    again.shuffle(deck)
    top = deck[::-1]
    assert game.seats[0].hand == top[0:10:2] and game.seats[1].hand == top[1:10:2]
    assert len(game.deck) == 98 - 10
    assert len(solo(9).seats[0].hand) == 5


@rule("P-2.2")
def test_P_2_2_hand_keeps_its_order_discard_takes_a_named_position_draws_go_to_the_back():
    game = set_position(duel(), hands=[[RED, BLUE, SOY, GREEN], []], deck=[CHILI, CHILI, CHILI, STINK, BLACK])
    game.apply(DiscardHand(2))
    assert game.seats[0].hand == [RED, BLUE, GREEN]
    game.apply(Plant(0))
    game.apply(Pass())  # no second planting -> phase 2 -> phase 3
    game.apply(Pass())
    assert game.seats[0].hand == [BLUE, GREEN, STINK, BLACK]


@rule("P-2.3")
def test_P_2_3_two_empty_fields_no_gold_figures_at_the_start_seat_0_first():
    for game in (duel(2), solo(2)):
        for s in game.seats:
            assert s.field_counts == [0, 0] and s.treasury == [] and s.position == 0
        assert game.middle == {} and game.box == []
        assert decision_of(game).seat == 0 and decision_of(game).kind is K.PLANT_FIRST
    assert duel(2).events[-1] == TurnStarted(0, 0)


@rule("P-2.4")
def test_P_2_4_duel_vine_face_up_unless_the_face_down_flag_is_set():
    game = duel(4)
    assert game.revealed == 28 and None not in game.view(1).vine
    assert [e.position for e in game.events if isinstance(e, VineRevealed)] == list(range(1, 29))
    rules = dataclasses.replace(duel_rules(),
                                princes=dataclasses.replace(princes_of(duel_rules()), vine_face_down=True))
    hidden = PrincesGame(rules, 2, 4)
    view = hidden.view(0)
    assert view.vine[:4] == tuple(hidden.vine[:4]) and view.vine[4:] == (None,) * 24


@rule("P-2.4")
def test_P_2_4_face_down_cards_turn_up_four_ahead_of_the_leading_figure():
    rules = dataclasses.replace(duel_rules(),
                                princes=dataclasses.replace(princes_of(duel_rules()), vine_face_down=True))
    game = PrincesGame(rules, 2, 4)
    vine = game.vine
    set_position(game, vine=vine, hands=[[BLUE], []], treasury=[1, 0], positions=[0, 0])
    game.revealed = 4
    game.apply(PayTribute())
    assert game.seats[0].position == 1 and game.revealed == 5
    assert game.events[-1] == VineRevealed(5, vine[4])


# --------------------------------------------------------------------------- P-3 fields and gold
@rule("P-3.1")
def test_P_3_1_planting_another_kind_cashes_the_field_in_first():
    game = set_position(duel(), hands=[[SOY, BLUE], []], fields=[[(BLUE, 6), (CHILI, 2)], [None, None]],
                        discard=[RED])
    events = game.apply(Plant(0))
    assert Harvested(0, 0, BLUE, 6, 2) in events and fields_of(game, 0) == [(SOY, 1), (CHILI, 2)]
    assert game.seats[0].treasury == [BLUE, BLUE] and game.discard == [RED] + [BLUE] * 4
    assert_illegal(game, Plant(2), "P-3.1")


@rule("P-3.2")
def test_P_3_2_a_lone_bean_is_not_cashed_in_while_another_field_holds_more():
    game = set_position(duel(), hands=[[SOY], []], fields=[[(BLUE, 1), (CHILI, 2)], [None, None]])
    assert Plant(0) not in decision_of(game).options and Harvest(0) not in decision_of(game).options
    assert_illegal(game, Plant(0), "P-3.2")
    assert_illegal(game, Harvest(0), "P-3.2")


@rule("P-3.3")
def test_P_3_3_harvest_at_any_own_decision_the_same_seat_decides_again():
    game = set_position(duel(), hands=[[SOY], []], fields=[[(RED, 3), None], [None, None]])
    events = game.apply(Harvest(0))
    assert events == [Harvested(0, 0, RED, 3, 2)] and decision_of(game).kind is K.PLANT_FIRST
    assert_illegal(game, Harvest(1), "P-3.3")


@rule("P-3.4")
def test_P_3_4_third_field_for_three_gold_into_the_box_at_most_three_fields():
    game = set_position(duel(), hands=[[SOY], []], treasury=[[GREEN, RED, SOY, CHILI], 0])
    events = game.apply(BuyField())
    assert events == [FieldBought(0, (RED, SOY, CHILI))] and game.box == [RED, SOY, CHILI]
    assert game.seats[0].treasury == [GREEN] and fields_of(game, 0) == [None, None, None]
    assert decision_of(game).kind is K.PLANT_FIRST
    assert_illegal(game, BuyField(), "P-3.4")
    game.seats[0].treasury = [BLUE] * 5
    assert_illegal(game, BuyField(), "P-3.4")


@rule("P-3.5")
def test_P_3_5_gold_paid_leaves_the_game_the_box_is_counted_and_public():
    game = duel(8)
    s = game.seats[0]
    bean = game.deck.pop()
    s.treasury = [bean]
    game._decision = None
    game.apply(PayTribute())
    assert game.box == [bean] and game.card_count() == 98 and all_cards(game) == COMPOSITION
    assert game.view(1).box == 1 and game.view(0).box == 1


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


# --------------------------------------------------------------------------- P-6 the vine
@rule("P-6.1")
def test_P_6_1_only_the_task_right_after_the_figure_can_be_claimed():
    game = set_position(duel(), hands=[[SOY], []], fields=[[(BLUE, 2), None], [None, None]],
                        vine=with_vine("V06", "V04"))
    assert ClaimTask() not in decision_of(game).options  # card 1 wants chili; card 2 (blue) is not next
    assert_illegal(game, ClaimTask(), "P-6.2")
    game.seats[0].position = 1
    game._decision = None
    events = game.apply(ClaimTask())
    assert events == [TaskClaimed(0, 2, "V04")] and game.seats[0].position == 2


@rule("P-6.2")
def test_P_6_2_several_tasks_in_one_turn_each_checked_when_claimed():
    game = set_position(duel(), hands=[[SOY], []], fields=[[(BLUE, 2), (CHILI, 1)], [None, None]],
                        vine=with_vine("V04", "V06", "V07", "V04"))
    game.apply(ClaimTask())
    game.apply(ClaimTask())
    assert game.seats[0].position == 2 and game.log.claimed == 2
    err = assert_illegal(game, ClaimTask(), "P-6.2")
    assert "V07" in str(err)


@rule("P-6.3")
def test_P_6_3_tribute_pays_one_gold_into_the_box_and_passes_a_task():
    price = princes_of(duel_rules()).tribute_price
    assert price == 1
    game = set_position(duel(), hands=[[SOY], []], treasury=[[RED, GREEN], 0], vine=with_vine("V06"))
    events = game.apply(PayTribute())
    assert events == [TributePaid(0, 1, (GREEN,))] and game.box == [GREEN] and game.seats[0].treasury == [RED]
    assert decision_of(game).kind is K.PLANT_FIRST and game.log.tributes == 1
    game.apply(PayTribute())
    assert PayTribute() not in decision_of(game).options
    assert_illegal(game, PayTribute(), "P-6.3")


@rule("P-6.4")
def test_P_6_4_the_castle_needs_five_gold_and_no_tribute_buys_it():
    game = set_position(duel(), hands=[[SOY], [BLUE]], treasury=[4, 0], positions=[28, 3])
    assert ClaimTask() not in decision_of(game).options and PayTribute() not in decision_of(game).options
    assert_illegal(game, ClaimTask(), "P-6.4")
    assert_illegal(game, PayTribute(), "P-6.4")
    game.seats[0].treasury.append(RED)
    game._decision = None
    events = game.apply(ClaimTask())
    assert TaskClaimed(0, 29, "castle") in events and game.over


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


# --------------------------------------------------------------------------- P-8 views
@rule("P-8.1")
def test_P_8_1_own_hand_only_others_by_size():
    game = set_position(duel(), hands=[[SOY, RED], [BLUE, GREEN, CHILI]])
    assert game.view(0).hand == (SOY, RED) and game.view(1).hand == (BLUE, GREEN, CHILI)
    assert game.view(0).hand_sizes == (2, 3) and "chili" not in str(game.view(0).to_json())


@rule("P-8.2")
def test_P_8_2_table_is_public_gold_is_own_only():
    game = set_position(duel(), hands=[[SOY], []], fields=[[(RED, 2), None], [(BLUE, 3), None]], treasury=[2, 4],
                        positions=[3, 5], middle={GREEN: 2}, phase=K.KEEP_MIDDLE)
    view = game.view(0)
    assert view.coins == 2 and game.view(1).coins == 4 and "4" not in str(view.coins)
    assert view.fields[1][0].bean is BLUE and view.middle == ((GREEN, 2),)
    assert view.figures == (3, 5) and view.next_task == "V04" and view.castle == 29
    assert view.this_turn.phase == 3


@rule("P-8.3")
def test_P_8_3_discard_top_and_sizes_never_the_supply_or_face_down_cards():
    game = solo(3)
    view = game.view(0)
    assert view.deck_size == len(game.deck) and view.discard_size == 0 and view.discard_top is None
    assert view.vine[:4] == tuple(game.vine[:4]) and set(view.vine[4:]) == {None}
    data = str(view.to_json())
    for task in game.vine[4:]:
        if task not in game.vine[:4]:
            assert task not in data


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


# --------------------------------------------------------------------------- the 28 task cards
def task_position(task: str, seat: int = 0, **kw):
    """A duel (or solo if ``solo=True``) position whose next card for ``seat`` shows ``task``."""
    game = solo() if kw.pop("solo", False) else duel()
    kw.setdefault("hands", [[SOY]] * game.players)
    kw.setdefault("vine", with_vine(task))
    return set_position(game, **kw)


def claims(game) -> bool:
    ok = game.can_claim()
    assert (ClaimTask() in game.decision.options) == ok
    if ok:
        game.apply(ClaimTask())
        assert game.seats[game.active].position == 1
    else:
        assert_illegal(game, ClaimTask(), "P-6.2")
    return ok


def log(**kw) -> TurnLog:
    return TurnLog(phase=3, **kw)


def check_task(task: str, yes: list[dict[str, Any]], no: list[dict[str, Any]]) -> None:
    """``task`` can be claimed in every position of ``yes`` and in none of ``no`` (``task_position``'s keywords)."""
    for kw in yes:
        assert claims(task_position(task, **kw)), kw
    for kw in no:
        assert not claims(task_position(task, **kw)), kw


@rule("V01")
def test_V01_two_phase_1_beans_onto_existing_fields():
    assert claims(task_position("V01", phase=K.KEEP_MIDDLE, log=log(p1_plants=[(RED, "grew"), (SOY, "grew")])))
    assert not claims(task_position("V01", phase=K.KEEP_MIDDLE, log=log(p1_plants=[(RED, "grew"), (SOY, "new")])))
    game = task_position("V01", hands=[[RED, RED, SOY], []], fields=[[(RED, 1), None], [None, None]])
    game.apply(Plant(0))
    game.apply(Plant(0))
    assert claims(game)


@rule("V02")
def test_V02_all_other_figures_ahead():
    check_task("V02", yes=[dict(positions=[0, 1]), dict(solo=True, violet=2, red=21)],
                      no=[dict(positions=[0, 0]), dict(solo=True, violet=0, red=21)])


@rule("V03")
def test_V03_two_phase_1_beans_of_one_kind():
    check_task("V03", yes=[dict(phase=K.KEEP_MIDDLE, log=log(p1_plants=[(RED, "new"), (RED, "grew")]))],
                      no=[dict(phase=K.KEEP_MIDDLE, log=log(p1_plants=[(RED, "new"), (SOY, "new")])),
                          dict(phase=K.KEEP_MIDDLE, log=log(p1_plants=[(RED, "new")]))])


def field_kind(task: str, bean: Bean) -> None:
    assert claims(task_position(task, fields=[[(bean, 1), None], [None, None]]))
    other = RED if bean is not RED else BLUE
    assert not claims(task_position(task, fields=[[(other, 3), None], [(bean, 2), None]]))


@rule("V04")
def test_V04_blue_in_a_field():
    field_kind("V04", BLUE)


@rule("V05")
def test_V05_any_player_two_red_beans():
    check_task("V05", yes=[dict(fields=[[None, None], [(RED, 2), None]]),
                           dict(fields=[[(RED, 1), (RED, 1)], [None, None]])],
                      no=[dict(fields=[[(RED, 1), None], [(RED, 1), None]])])


@rule("V06")
def test_V06_chili_in_a_field():
    field_kind("V06", CHILI)


@rule("V07")
def test_V07_stink_in_a_field():
    field_kind("V07", STINK)


@rule("V08")
def test_V08_green_in_a_field():
    field_kind("V08", GREEN)


@rule("V09")
def test_V09_soy_in_a_field():
    field_kind("V09", SOY)


@rule("V10")
def test_V10_black_eyed_in_a_field():
    field_kind("V10", BLACK)


@rule("V11")
def test_V11_exactly_one_bean_in_phase_1_once_planting_is_over():
    game = task_position("V11", hands=[[RED, SOY], []], deck=[BLUE] * 9)
    game.apply(Plant(0))
    assert not game.can_claim()  # the second planting is still possible
    game.apply(Pass())
    assert claims(game)
    assert not claims(task_position("V11", phase=K.KEEP_MIDDLE,
                                    log=log(p1_plants=[(RED, "new"), (SOY, "new")], p1_over=True)))


@rule("V12")
def test_V12_a_hand_card_discarded_in_phase_1():
    game = task_position("V12", hands=[[RED, SOY], []])
    assert not game.can_claim()
    game.apply(DiscardHand(1))
    assert claims(game)


@rule("V13")
def test_V13_a_field_started_afresh_this_turn():
    game = task_position("V13", hands=[[RED, SOY], []], fields=[[(SOY, 2), None], [None, None]])
    game.apply(Plant(1))
    assert claims(game)
    game = task_position("V13", hands=[[SOY, SOY], []], fields=[[(SOY, 2), None], [None, None]])
    game.apply(Plant(0))
    assert not claims(game)
    game = task_position("V13", hands=[[RED], []], fields=[[(SOY, 2), (CHILI, 3)], [None, None]])
    game.apply(Plant(0))  # soy cashed in for the red
    assert claims(game)


@rule("V14")
def test_V14_a_card_taken_from_the_discard_pile_in_phase_2():
    game = task_position("V14", hands=[[SOY], []], deck=[RED, GREEN, STINK, BLUE, BLUE], discard=[RED])
    game.apply(Plant(0))
    assert claims(game)
    assert not claims(task_position("V14", phase=K.KEEP_MIDDLE, log=log(p2_turned=[RED, SOY, BLUE])))


@rule("V15")
def test_V15_three_different_kinds_turned_up():
    check_task("V15", yes=[dict(phase=K.KEEP_MIDDLE, log=log(p2_turned=[RED, SOY, BLUE]))],
                      no=[dict(phase=K.KEEP_MIDDLE, log=log(p2_turned=[RED, SOY, RED])),
                          dict(phase=K.KEEP_MIDDLE, log=log(p2_turned=[RED, SOY]))])


@rule("V16")
def test_V16_two_of_a_kind_turned_up():
    check_task("V16", yes=[dict(phase=K.KEEP_MIDDLE, log=log(p2_turned=[RED, SOY, RED]))],
                      no=[dict(phase=K.KEEP_MIDDLE, log=log(p2_turned=[RED, SOY, BLUE]))])


@rule("V17")
def test_V17_two_kinds_planted_from_the_middle_in_phase_3():
    game = task_position("V17", phase=K.KEEP_MIDDLE, middle={RED: 1, SOY: 2})
    game.apply(PlantMiddle(RED, 0))
    assert not game.can_claim()
    game.apply(PlantMiddle(SOY, 1))
    assert claims(game)


@rule("V18")
def test_V18_three_beans_planted_from_the_middle_in_phase_3():
    check_task("V18", yes=[dict(phase=K.KEEP_MIDDLE, log=log(p3_planted=[(RED, 1), (SOY, 2)]))],
                      no=[dict(phase=K.KEEP_MIDDLE, log=log(p3_planted=[(RED, 2)]))])


@rule("V19")
def test_V19_a_turned_up_bean_matches_a_field():
    check_task("V19", yes=[dict(phase=K.KEEP_MIDDLE, fields=[[(SOY, 1), None], [None, None]],
                                log=log(p2_turned=[RED, SOY, BLUE]))],
                      no=[dict(phase=K.KEEP_MIDDLE, fields=[[(GREEN, 1), None], [None, None]],
                               log=log(p2_turned=[RED, SOY, BLUE]))])


@rule("V20")
def test_V20_a_field_harvested_this_turn():
    game = task_position("V20", fields=[[(SOY, 1), None], [None, None]])
    assert not game.can_claim()
    game.apply(Harvest(0))
    assert claims(game)


@rule("V21")
def test_V21_two_gold():
    check_task("V21", yes=[dict(treasury=[2, 0])], no=[dict(treasury=[1, 5])])


@rule("V22")
def test_V22_two_fields_of_two_beans():
    check_task("V22", yes=[dict(fields=[[(SOY, 2), (RED, 3)], [None, None]])],
                      no=[dict(fields=[[(SOY, 2), (RED, 1)], [(BLUE, 2), (RED, 2)]])])


@rule("V23")
def test_V23_a_field_of_four_beans():
    check_task("V23", yes=[dict(fields=[[(SOY, 4), None], [None, None]])],
                      no=[dict(fields=[[(SOY, 3), (RED, 3)], [(BLUE, 9), None]])])


@rule("V24")
def test_V24_no_empty_field():
    check_task("V24", yes=[dict(fields=[[(SOY, 1), (RED, 1)], [None, None]])],
                      no=[dict(fields=[[(SOY, 1), (RED, 1), None], [None, None]])])


@rule("V25")
def test_V25_six_beans_planted():
    check_task("V25", yes=[dict(fields=[[(SOY, 3), (RED, 3)], [None, None]])],
                      no=[dict(fields=[[(SOY, 3), (RED, 2)], [(BLUE, 9), None]])])


@rule("V26")
def test_V26_at_most_three_hand_cards():
    check_task("V26", yes=[dict(hands=[[SOY, RED, BLUE], [SOY] * 6])], no=[dict(hands=[[SOY, RED, BLUE, GREEN], []])])


@rule("V27")
def test_V27_a_pair_in_the_hand():
    check_task("V27", yes=[dict(hands=[[SOY, RED, SOY], []])], no=[dict(hands=[[SOY, RED, BLUE], [RED, RED]])])


@rule("V28")
def test_V28_discard_top_matches_a_field():
    check_task("V28", yes=[dict(discard=[RED, SOY], fields=[[(SOY, 1), None], [None, None]])],
                      no=[dict(discard=[SOY, RED], fields=[[(SOY, 1), None], [None, None]]),
                          dict(discard=[], fields=[[(SOY, 1), None], [None, None]])])


# --------------------------------------------------------------------------- assumptions, policies, errors
@rule("A-1")
def test_A_1_every_assumption_is_a_named_parameter_with_the_documented_default():
    text = REFERENCE.read_text(encoding="utf-8")
    params = dict(re.findall(r"`(\w+)` = `([^`]+)`", text))
    duel_p, solo_p = princes_of(duel_rules()), princes_of(solo_rules())
    for name in ("tribute_price", "castle_gold", "rows", "row_length", "visible_ahead", "hand_discards",
                 "red_start", "neutrals_to_lose"):
        assert str(getattr(duel_p, name)) == params[name], name
    for name in ("hand_size", "turn_up", "draw", "start_fields", "max_fields", "field_price", "reshuffles"):
        assert str(getattr(duel_rules(), name)) == params[name], name
    assert duel_p.vine_face_down is False and solo_p.vine_face_down is True and solo_p.solo
    assert PrincesRules.from_json(duel_p.to_json()) == duel_p
    with pytest.raises(ValueError):
        PrincesRules(tasks=("V01",) * 27)


@rule("P-0")
def test_P_0_foreign_actions_are_refused_quoting_them():
    from engine import EndTrading

    game = duel(1)
    err = assert_illegal(game, EndTrading(), "P-0")
    assert '{"type":"end_trading"}' in str(err) and isinstance(err, ValueError)


@pytest.mark.parametrize("variant,players", [("duel", 2), ("solo", 1)])
def test_default_policy_finishes_games(variant, players):
    for seed in range(3):
        game = new_game(rules_for(variant), players, seed)
        while not game.over:
            action = default_action(game)
            assert action in decision_of(game).options
            game.apply(action)
        assert game.result is not None and game.card_count() == 98


def test_greedy_policy_plays_legal_options():
    for variant, players in (("duel", 2), ("solo", 1)):
        game = princes_game(rules_for(variant), players, 4)
        rng = random.Random(4)
        while not game.over:
            action = princes_greedy_action(game, rng)
            assert action in decision_of(game).options
            game.apply(action)


# --------------------------------------------------------------------------- coverage of the reference
def test_every_numbered_rule_and_task_has_a_marked_test_with_its_id_in_the_name():
    import sys

    text = REFERENCE.read_text(encoding="utf-8")
    ids = set(re.findall(r"^\| ([PS]-\d+(?:\.\d+)?) \|", text, flags=re.M))
    assert len(ids) >= 40, sorted(ids)
    ids |= set(TASKS)
    module = sys.modules[__name__]
    marked: dict[str, list[str]] = {}
    for name, fn in vars(module).items():
        for mark in getattr(fn, "pytestmark", []) if name.startswith("test_") else []:
            if mark.name == "rule":
                marked.setdefault(mark.args[0], []).append(name)
    for rule_id in sorted(ids):
        tag = rule_id.replace("-", "_").replace(".", "_")
        assert any(t.startswith(f"test_{tag}_") for t in marked.get(rule_id, [])), f"no test for {rule_id}"
