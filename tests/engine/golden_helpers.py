"""Helpers of the golden tests: the files of tests/golden, the script that writes them, a move-by-move replay."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine import IllegalAction, action_from_json, event_to_json, new_game, rules_for

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def load_maker() -> ModuleType:
    """``tests/golden/make_golden.py`` as a module (it is a script, not in a package)."""
    spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def replay_golden(path: Path) -> tuple[Any, dict[str, Any]]:
    """Replay the golden file ``path`` move by move, failing at the first decision or event that differs
    from it, up to its result; the finished game and the file's contents."""
    doc = json.loads(path.read_text())
    game = new_game(rules_for(doc["rules_id"]), doc["players"], doc["seed"])
    assert [event_to_json(e) for e in game.events] == doc["initial_events"], f"{path.name}: the deal differs"
    for step in doc["steps"]:
        where = f"{path.name} step {step['step']}"
        decision = game.decision
        assert decision is not None and not game.over, f"{where}: the game ended early"
        got = (decision.seat, decision.kind.value)
        assert got == (step["seat"], step["kind"]), f"{where}: decision {got}, golden {(step['seat'], step['kind'])}"
        try:
            events = [event_to_json(e) for e in game.apply(action_from_json(step["action"]))]
        except IllegalAction as exc:
            pytest.fail(f"{where}: golden action {step['action']} is now refused: {exc}")
        if events != step["events"]:
            first = next((i for i, (a, b) in enumerate(zip(events, step["events"])) if a != b),
                         min(len(events), len(step["events"])))
            pytest.fail(f"{where} ({step['action']}): event {first} differs:\n"
                        f"  golden: {step['events'][first:first + 1]}\n  now:    {events[first:first + 1]}")
    assert game.over, f"{path.name}: the game goes on after the last golden step"
    assert game.result is not None and game.result.to_json() == doc["result"]
    return game, doc
