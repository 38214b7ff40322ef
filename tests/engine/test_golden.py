"""Golden playthroughs (tests/golden/*.json, written by ``python3 tests/golden/make_golden.py``) replayed
move by move, and replays re-simulated with ``engine.replay.Resimulation``."""
from __future__ import annotations

import dataclasses
import json
import random

import pytest

from engine import ClassicGame, Harvest, Plant, PlantTraded, action_from_json, classic_rules
from engine.events import GameEnded
from strategy.policies import random_action
from engine.replay import Replay, ReplayMismatch, Resimulation
from engine_helpers import decision_of
from golden_helpers import GOLDEN, load_maker, replay_golden

FILES = sorted(GOLDEN.glob("classic-v3-*.json"))  # the current rules, written by make_golden.py
#: the retired classic-v1 and classic-v2 rules: their recorded games must still replay
V1_FILES = sorted(GOLDEN.glob("classic-v1-*.json")) + sorted(GOLDEN.glob("classic-v2-*.json"))


def test_golden_files_cover_three_four_and_five_players():
    assert sorted(json.loads(p.read_text())["players"] for p in FILES) == [3, 4, 5]
    assert sorted(json.loads(p.read_text())["players"] for p in V1_FILES) == [3, 3, 4, 4, 5, 5]
    assert {json.loads(p.read_text())["rules_id"] for p in FILES} == {classic_rules().id}
    maker = load_maker()
    assert sorted(maker.golden_name(p, s) for p, s in maker.GAMES) == [p.name for p in FILES]


def test_golden_games_trade():
    """The scripted policy really negotiates: the files hold gifts, deals, counter-offers and a bought field."""
    kinds = set()
    for path in FILES:
        for step in json.loads(path.read_text())["steps"]:
            kinds.add(step["action"]["type"])
            for e in step["events"]:
                if e["type"] == "traded":
                    kinds.add("gift" if not e["b_gave"] or not e["a_gave"] else "deal")
                kinds.add(e["type"])
    assert {"gift", "deal", "accept", "confirm", "offer", "field_bought", "reshuffled", "harvest"} <= kinds


@pytest.mark.parametrize("path", FILES + V1_FILES, ids=lambda p: p.name)
def test_golden_playthrough_replays_move_by_move(path):
    game, _ = replay_golden(path)
    assert isinstance(game, ClassicGame)


@pytest.mark.parametrize("players,seed", [(3, 20260101), (5, 20260303)])
def test_make_golden_reproduces_the_stored_files(players, seed):
    maker = load_maker()
    path = GOLDEN / maker.golden_name(players, seed)
    assert maker.dumps(maker.build(players, seed)) == path.read_text()


# --------------------------------------------------------------------------- Resimulation
def finished_game(players=4, seed=77) -> ClassicGame:
    game = ClassicGame(classic_rules(), players, seed)
    rng = random.Random(seed)
    while not game.over:
        game.apply(random_action(game, rng, offer_rate=0.3))
    return game


def test_resimulation_reproduces_a_finished_game():
    game = finished_game()
    replay = Replay.loads(Replay.of(game, ["a", "b", "c", "d"]).dumps())
    again = Resimulation.of(replay).to_end()
    assert again.over and again.result == game.result == replay.result
    assert again.events == game.events
    assert [s.treasury for s in again.seats] == [s.treasury for s in game.seats]
    assert again.discard == game.discard and again.reshuffles == game.reshuffles


def test_resimulation_refuses_a_tampered_event():
    game = finished_game()
    replay = Replay.of(game, ["a", "b", "c", "d"])
    last = replay.events[-1]
    assert isinstance(last, GameEnded)
    forged = GameEnded(tuple(c + 1 for c in last.coins), last.ranks)
    with pytest.raises(ReplayMismatch) as info:
        Resimulation.of(dataclasses.replace(replay, events=replay.events[:-1] + (forged,))).to_end()
    seat, action = replay.actions[-1]
    assert info.value.step == len(replay.actions) and info.value.action == action
    assert str(info.value).startswith(f"step {len(replay.actions)} (seat {seat}: {{")
    assert f"from event {len(replay.events) - 1} on" in str(info.value)
    assert '"coins":[' in str(info.value)  # both events quoted


def test_resimulation_refuses_a_tampered_seat():
    game = finished_game()
    replay = Replay.of(game, ["a", "b", "c", "d"])
    seat, action = replay.actions[0]
    actions = ((seat + 1, action),) + replay.actions[1:]
    with pytest.raises(ReplayMismatch) as info:
        Resimulation.of(dataclasses.replace(replay, actions=actions)).to_end()
    assert str(info.value).startswith(f"step 1 (seat {seat + 1}: {{") and str(info.value).endswith(
        f": seat {seat} is to move")


def test_resimulation_refuses_a_different_legal_action():
    game = finished_game(3, 5)
    replay = Replay.of(game, ["a", "b", "c"])
    # replace the first planting that had another legal field by that other field
    probe = ClassicGame(classic_rules(), 3, 5)
    for index, (seat, action) in enumerate(replay.actions):
        options = decision_of(probe).options
        if isinstance(action, Plant):
            other = [a for a in options if isinstance(a, Plant) and a != action]
            if other:
                break
        probe.apply(action)
    else:
        pytest.fail("no planting with a choice in this game")
    actions = replay.actions[:index] + ((seat, other[0]),) + replay.actions[index + 1:]
    with pytest.raises(ReplayMismatch):
        Resimulation.of(dataclasses.replace(replay, actions=actions)).to_end()


def test_resimulation_refuses_other_rules():
    game = finished_game()
    replay = dataclasses.replace(Replay.of(game, ["a", "b", "c", "d"]), rules_id="classic-v9")
    with pytest.raises(ValueError):
        Resimulation.of(replay).to_end()
    with pytest.raises(ReplayMismatch):
        Resimulation.of(Replay.of(game, ["a", "b", "c", "d"]), rules=dataclasses.replace(classic_rules(), version=9))


def test_harvest_and_plant_traded_in_golden_are_replayed_as_such():
    """Sanity: the golden files decode to the engine's own action classes."""
    types = set()
    for path in FILES:
        for step in json.loads(path.read_text())["steps"]:
            types.add(type(action_from_json(step["action"])))
    assert {Plant, PlantTraded, Harvest} <= types
