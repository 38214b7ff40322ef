"""Rules C-8 (what each seat sees) of seeds/classic-rules.md.

On hand-built positions; test_classic_reference.py says how these modules are written and checks
that every numbered rule has a test.
"""
from __future__ import annotations

import pytest

from engine_helpers import BLACK, BLUE, CHILI, GARDEN, GREEN, RED, SOY, STINK, trading_position

rule = pytest.mark.rule


# --------------------------------------------------------------------------- C-8 views
@rule("C-8.1")
def test_C_8_1_own_hand_in_order_others_only_sizes(game3):
    trading_position(game3)
    view = game3.view(1)
    assert view.hand == (STINK, GARDEN, RED, BLUE)
    assert view.hand_sizes == (3, 4, 3)
    other = game3.view_json(1)
    game3.seats[0].hand = [GARDEN, GARDEN, GARDEN]
    game3.seats[2].hand = [RED, BLUE, STINK]
    assert game3.view_json(1) == other
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
    before = game3.view_json(1)
    game3.seats[0].treasury = [RED] * 9
    game3.seats[2].treasury = []
    assert game3.view_json(1) == before


@rule("C-8.4")
def test_C_8_4_discard_top_and_sizes_only_never_the_deck_order(game3):
    trading_position(game3, discard=[GREEN, SOY, RED], deck=[BLUE, CHILI, STINK, GARDEN], reshuffles=1)
    view = game3.view(2)
    assert (view.discard_top, view.discard_size, view.deck_size, view.reshuffles) == (RED, 3, 4, 1)
    before = game3.view_json(2)
    game3.deck.reverse()
    game3.discard[:2] = [BLACK, BLACK]
    assert game3.view_json(2) == before
    game3.discard.append(GARDEN)
    assert game3.view(2).discard_top is GARDEN
