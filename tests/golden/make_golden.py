"""Regenerate the golden playthroughs of the classic engine.

Run from the repository root:

    python3 tests/golden/make_golden.py

It plays a few fixed seeds (3, 4 and 5 players) with a deterministic scripted policy that plants,
trades (offers, acceptances, counter-offers, gifts), buys fields and harvests, and writes one JSON file
per game next to this script: for every step the seat, the decision kind, the action and the events it
produced, plus the final result. ``tests/engine/test_golden.py`` replays them move by move.
It also plays one duel and one solitaire game of the Princes variants (``PRINCES_GAMES``), replayed
by ``tests/engine/test_princes_golden.py``.

Regenerate only when a rule change is intended, and review the diff of the files.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent / "engine")]  # the engine and the engine tests' helpers

from engine import (  # noqa: E402
    Action, ClaimTask, ClassicGame, PayTribute, PrincesGame, action_to_json, event_to_json, new_game, rules_for,
)
from engine_helpers import buy_or_harvest, decision_of, result_of  # noqa: E402

# classic-v1-*.json and classic-v2-*.json were made by this script under those rules and are kept
RULES_ID = "classic-v3"
GAMES = [(3, 20260101), (4, 20260202), (5, 20260303)]
POLICY = "scripted: BuyField when possible with p=0.5, a Harvest with p=0.03, else random_action(offer_rate=0.35)"


def scripted_action(game: ClassicGame, rng: random.Random) -> Action:
    return buy_or_harvest(game, rng, harvest_rate=0.03, offer_rate=0.35)


PRINCES_GAMES = [("duel-v1", 2, 20260404), ("solo-v1", 1, 20260505)]
PRINCES_POLICY = ("scripted: ClaimTask when possible with p=0.9, PayTribute with p=0.15, BuyField with p=0.5, "
                  "a Harvest with p=0.05, else random_action")


def princes_action(game: PrincesGame, rng: random.Random) -> Action:
    options = decision_of(game).options
    if ClaimTask() in options and rng.random() < 0.9:
        return ClaimTask()
    if PayTribute() in options and rng.random() < 0.15:
        return PayTribute()
    return buy_or_harvest(game, rng, harvest_rate=0.05)


def princes_name(rules_id: str, players: int, seed: int) -> str:
    return f"{rules_id.split('-')[0]}-{players}p-{seed}.json"


def play(rules_id: str, players: int, seed: int, policy: Callable[[Any, random.Random], Action],
         policy_name: str) -> tuple[Any, dict]:
    """Play one game with ``policy`` and record it; the finished game and the record."""
    game = new_game(rules_for(rules_id), players, seed)
    rng = random.Random(seed)
    initial = [event_to_json(e) for e in game.events]
    steps: list[dict[str, Any]] = []
    while not game.over:
        decision = decision_of(game)
        action = policy(game, rng)
        events = game.apply(action)
        steps.append({"step": len(steps), "seat": decision.seat, "kind": decision.kind.value,
                      "action": action_to_json(action), "events": [event_to_json(e) for e in events]})
    return game, {"rules_id": rules_id, "players": players, "seed": seed, "policy": policy_name,
                  "initial_events": initial, "steps": steps, "result": result_of(game).to_json()}


def build_princes(rules_id: str, players: int, seed: int) -> dict:
    """Play one Princes game with the scripted policy and record it."""
    game, doc = play(rules_id, players, seed, princes_action, PRINCES_POLICY)
    return {**doc, "end_reason": game.end_reason}


def golden_name(players: int, seed: int) -> str:
    return f"{RULES_ID}-{players}p-{seed}.json"


def build(players: int, seed: int) -> dict:
    """Play one classic game and record it."""
    return play(RULES_ID, players, seed, scripted_action, POLICY)[1]


def dumps(doc: dict) -> str:
    """JSON with one step per line, so that a diff shows which steps changed."""
    head = {k: v for k, v in doc.items() if k != "steps"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v)},")
    lines.append('  "steps": [')
    steps = doc["steps"]
    for i, step in enumerate(steps):
        lines.append("    " + json.dumps(step) + ("," if i < len(steps) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    for players, seed in GAMES:
        doc = build(players, seed)
        path = HERE / golden_name(players, seed)
        path.write_text(dumps(doc), encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parent.parent)}: {len(doc['steps'])} steps, result {doc['result']}")
    for rules_id, players, seed in PRINCES_GAMES:
        doc = build_princes(rules_id, players, seed)
        path = HERE / princes_name(rules_id, players, seed)
        path.write_text(dumps(doc), encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parent.parent)}: {len(doc['steps'])} steps, result {doc['result']}, "
              f"ended by {doc['end_reason']}")


if __name__ == "__main__":
    main()
