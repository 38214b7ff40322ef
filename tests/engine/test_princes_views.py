"""Rules P-8 (what each seat sees) of seeds/princes-rules.md.

On hand-built positions; test_princes_reference.py says how these modules are written and checks
that every numbered rule and task card has a test.
"""
from __future__ import annotations


import pytest

from princes_helpers import BLUE, CHILI, GREEN, K, RED, SOY, duel, set_position, solo

rule = pytest.mark.rule


# --------------------------------------------------------------------------- P-8 views
@rule("P-8.1")
def test_P_8_1_own_hand_only_others_by_size():
    game = set_position(duel(), hands=[[SOY, RED], [BLUE, GREEN, CHILI]])
    assert game.view(0).hand == (SOY, RED) and game.view(1).hand == (BLUE, GREEN, CHILI)
    assert game.view(0).hand_sizes == (2, 3) and "chili" not in str(game.view_json(0))


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
    data = str(game.view_json(0))
    for task in game.vine[4:]:
        if task not in game.vine[:4]:
            assert task not in data
