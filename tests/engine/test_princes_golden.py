"""Golden playthroughs of the Princes variants (tests/golden/duel-*.json, solo-*.json), replayed move by move."""
from __future__ import annotations

import json

import pytest

from golden_helpers import GOLDEN, load_maker, replay_golden

FILES = sorted([*GOLDEN.glob("duel-*.json"), *GOLDEN.glob("solo-*.json")])


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
    game, doc = replay_golden(path)
    assert game.end_reason == doc["end_reason"]


@pytest.mark.parametrize("game", [0, 1])
def test_make_golden_reproduces_the_stored_files(game):
    maker = load_maker()
    rules_id, players, seed = maker.PRINCES_GAMES[game]
    path = GOLDEN / maker.princes_name(rules_id, players, seed)
    assert maker.dumps(maker.build_princes(rules_id, players, seed)) == path.read_text()
