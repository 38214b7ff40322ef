"""One or more tests per numbered rule of seeds/classic-rules.md, on hand-built positions, in the modules
test_classic_<section>.py (RULE_MODULES); here the illegal-action error itself and the check that every
rule has a test.

Each test carries its rule id in its name and as ``@pytest.mark.rule(...)``. Positions are built with
``engine_helpers.set_position``; refused actions are checked with ``assert_illegal`` (right rule id,
action quoted in the message, state untouched).
"""
from __future__ import annotations

import pytest

from engine import ClassicGame, DecisionKind, Harvest, IllegalAction, Offer, Plant, classic_rules
from engine_helpers import (
    BLUE, CHILI, GREEN, RED, SOY, STINK, assert_illegal, decision_of, rule_marks, trading_position,
)

K = DecisionKind
rule = pytest.mark.rule


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
#: the modules of the classic rule tests, one or a few sections of the reference each
RULE_MODULES = ("test_classic_setup", "test_classic_fields", "test_classic_turn", "test_classic_trade_offers",
                "test_classic_trade_deals", "test_classic_end", "test_classic_views", "test_classic_decisions",
                "test_classic_reference")
BEHAVIOUR_DECISIONS = {"D-1", "D-2", "D-4", "D-6"}  # the decisions that change play (D-3 is C-7.4, D-5 is C-4.3)


def test_every_numbered_rule_has_a_marked_test_with_its_id_in_the_name():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "seeds" / "classic-rules.md").read_text(encoding="utf-8")
    ids = set(re.findall(r"^\| (C-\d+\.\d+) \|", text, flags=re.M))
    assert len(ids) == 35, sorted(ids)  # C-1 2, C-2 3, C-3 3, C-4 3, C-5 7, C-6 9, C-7 4, C-8 4
    assert BEHAVIOUR_DECISIONS <= set(re.findall(r"\*\*(D-\d+) ", text))
    marked = rule_marks(RULE_MODULES)
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
