"""Rules P-6 (the vine: claiming tasks, tribute, the castle) of seeds/princes-rules.md and one test per
Vine task card (V01 to V28).

On hand-built positions; test_princes_reference.py says how these modules are written and checks
that every numbered rule and task card has a test.
"""
from __future__ import annotations

from typing import Any

import pytest

from engine import Bean, ClaimTask, DiscardHand, Harvest, Pass, PayTribute, Plant, PlantMiddle, duel_rules
from engine.events import TaskClaimed, TributePaid
from engine.princes import TurnLog
from engine_helpers import decision_of
from princes_helpers import (
    BLACK, BLUE, CHILI, GREEN, K, RED, SOY, STINK, assert_illegal, duel, princes_of, set_position, solo,
)

rule = pytest.mark.rule


def with_vine(*tasks: str) -> list[str]:
    """A vine whose first cards are ``tasks``, the rest "V04"."""
    return list(tasks) + ["V04"] * (28 - len(tasks))


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
