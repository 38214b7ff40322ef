"""Golden playthroughs of the Princes variants (tests/golden/duel-*.json, solo-*.json), replayed move by move."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from engine import IllegalAction, action_from_json, event_to_json, new_game, rules_for

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
FILES = sorted([*GOLDEN.glob("duel-*.json"), *GOLDEN.glob("solo-*.json")])


def load_maker():
    spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_golden_files_cover_both_variants():
    maker = load_maker()
    assert sorted(maker.princes_name(*g) for g in maker.PRINCES_GAMES) == [p.name for p in FILES]
    kinds = set()
    for path in FILES:
        for step in json.loads(path.read_text())["steps"]:
            kinds.add(step["action"]["type"])
            kinds.update(e["type"] for e in step["events"])
    assert {"claim_task", "pay_tribute", "plant_middle", "discard_hand", "task_claimed", "tribute_paid",
            "took_discard", "figure_moved", "end_triggered"} <= kinds


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_golden_playthrough_replays_move_by_move(path):
    doc = json.loads(path.read_text())
    game = new_game(rules_for(doc["rules_id"]), doc["players"], doc["seed"])
    assert [event_to_json(e) for e in game.events] == doc["initial_events"], f"{path.name}: the deal differs"
    for step in doc["steps"]:
        where = f"{path.name} step {step['step']}"
        decision = game.decision
        assert decision is not None, f"{where}: the game ended early"
        assert (decision.seat, decision.kind.value) == (step["seat"], step["kind"]), where
        try:
            events = [event_to_json(e) for e in game.apply(action_from_json(step["action"]))]
        except IllegalAction as exc:
            pytest.fail(f"{where}: golden action {step['action']} is now refused: {exc}")
        assert events == step["events"], f"{where} ({step['action']}): events differ"
    assert game.over and game.result.to_json() == doc["result"] and game.end_reason == doc["end_reason"]


@pytest.mark.parametrize("game", [0, 1])
def test_make_golden_reproduces_the_stored_files(game):
    maker = load_maker()
    rules_id, players, seed = maker.PRINCES_GAMES[game]
    path = GOLDEN / maker.princes_name(rules_id, players, seed)
    assert maker.dumps(maker.build_princes(rules_id, players, seed)) == path.read_text()
