"""One or more tests per numbered rule of seeds/princes-rules.md and one per Vine task card, in the modules
test_princes_<section>.py (RULE_MODULES); here the assumptions (A-1), foreign actions (P-0), the policies,
and the check that every rule and task card has a test.

Each test carries its rule or task id in its name and as ``@pytest.mark.rule(...)``. Positions are built
with ``princes_helpers.set_position``; refused actions are checked with ``assert_illegal``.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from engine import PrincesRules, duel_rules, new_game, rules_for, solo_rules
from engine.defaults import default_action
from strategy.policies import princes_greedy_action
from engine.vine import TASKS
from engine_helpers import decision_of, rule_marks
from princes_helpers import assert_illegal, duel, princes_game, princes_of

rule = pytest.mark.rule
REFERENCE = Path(__file__).resolve().parents[2] / "seeds" / "princes-rules.md"


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
#: the modules of the Princes rule tests, one or a few sections of the reference each
RULE_MODULES = ("test_princes_setup", "test_princes_fields", "test_princes_turn", "test_princes_vine",
                "test_princes_end", "test_princes_views", "test_princes_solo", "test_princes_reference")


def test_every_numbered_rule_and_task_has_a_marked_test_with_its_id_in_the_name():
    text = REFERENCE.read_text(encoding="utf-8")
    ids = set(re.findall(r"^\| ([PS]-\d+(?:\.\d+)?) \|", text, flags=re.M))
    assert len(ids) >= 40, sorted(ids)
    ids |= set(TASKS)
    marked = rule_marks(RULE_MODULES)
    for rule_id in sorted(ids):
        tag = rule_id.replace("-", "_").replace(".", "_")
        assert any(t.startswith(f"test_{tag}_") for t in marked.get(rule_id, [])), f"no test for {rule_id}"
