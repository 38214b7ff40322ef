"""engine.replay.Resimulation, the one way through a recorded game: its steps, its checks and its wording."""
from __future__ import annotations

import dataclasses
import random

import pytest

from engine import Plant, ReplayMismatch, new_game, rules_for
from engine.events import event_to_json
from engine.replay import Replay, Resimulation
from strategy.policies import random_action


def recorded(variant: str, players: int, seed: int) -> tuple[Replay, list]:
    """A finished random game's replay, and the game's events."""
    game = new_game(rules_for(variant), players, seed)
    rng = random.Random(seed)
    while not game.over:
        game.apply(random_action(game, rng))
    return Replay.of(game, [f"p{k}" for k in range(players)]), list(game.events)


@pytest.mark.parametrize("variant, players", [("classic", 4), ("duel", 2), ("solo", 1)])
def test_steps_cover_every_action_and_every_event_in_order(variant: str, players: int) -> None:
    replay, events = recorded(variant, players, 3)
    walk = Resimulation.of(replay)
    seen = list(walk.game.events)
    numbers = []
    for step in walk:
        assert (step.seat, step.action) == replay.actions[step.number - 1]
        assert step.game is walk.game and list(step.game.events[-len(step.events):] if step.events else []) == \
            list(step.events)
        seen.extend(step.events)
        numbers.append(step.number)
    assert numbers == list(range(1, len(replay.actions) + 1))
    assert seen == events and walk.game.over and walk.game.result == replay.result


def test_a_step_knows_the_active_seat_before_its_action() -> None:
    replay, _ = recorded("classic", 3, 8)
    game = new_game(rules_for("classic"), 3, replay.seed)
    for step in Resimulation.of(replay):
        assert step.active == game.active
        game.apply(step.action)
        assert step.game.active == game.active


def test_iteration_stops_and_resumes_and_to_end_plays_the_rest() -> None:
    replay, _ = recorded("classic", 4, 5)
    walk = Resimulation.of(replay)
    first = [next(walk) for _ in range(10)]
    assert [s.number for s in first] == list(range(1, 11)) and len(walk.game.history) == 10
    assert walk.to_end().over and len(walk.game.history) == len(replay.actions)
    assert list(walk) == [] and walk.to_end() is walk.game


def test_the_referee_rebuild_from_a_history() -> None:
    """What the referee's rebuild needs: rules, seats, seed and a history give the same game again."""
    replay, events = recorded("duel", 2, 4)
    game = Resimulation(rules_for("duel"), 2, replay.seed, replay.actions).to_end()
    assert game.events == events and game.history == list(replay.actions)


def test_an_illegal_action_names_its_step_and_quotes_it() -> None:
    replay, _ = recorded("classic", 3, 2)
    index = next(i for i, (_, a) in enumerate(replay.actions) if isinstance(a, Plant))
    seat = replay.actions[index][0]
    actions = replay.actions[:index] + ((seat, Plant(7)),) + replay.actions[index + 1:]
    with pytest.raises(ReplayMismatch) as info:
        Resimulation.of(dataclasses.replace(replay, actions=actions)).to_end()
    assert info.value.step == index + 1 and info.value.action == Plant(7)
    assert str(info.value).startswith(f'step {index + 1} (seat {seat}: {{"type":"plant","field":7}}): ')
    assert str(info.value).endswith("(rule C-3.1)")


def test_an_action_after_the_end_is_refused() -> None:
    replay, _ = recorded("solo", 1, 1)
    extra = replay.actions + (replay.actions[-1],)
    with pytest.raises(ReplayMismatch, match=rf"^step {len(extra)} \(seat 0: .*\): the game is over$"):
        Resimulation.of(dataclasses.replace(replay, actions=extra)).to_end()


def test_a_record_longer_than_the_game_is_refused_after_the_last_step() -> None:
    replay, _ = recorded("classic", 3, 4)
    longer = dataclasses.replace(replay, events=replay.events + replay.events[-1:])
    with pytest.raises(ReplayMismatch) as info:
        Resimulation.of(longer).to_end()
    assert str(info.value).startswith(f"step {len(replay.actions)}: the game ends here, the record holds 1 events "
                                      f"more, from event {len(replay.events)} on: '{{\"type\":\"game_ended\"")


def test_a_deal_that_differs_is_refused_at_step_zero() -> None:
    replay, _ = recorded("solo", 1, 6)  # the solo deal's events: the turn starts, the neutral figures move
    other = dataclasses.replace(replay, events=replay.events[1:])
    with pytest.raises(ReplayMismatch, match=r"^step 0 \(the deal\): the events differ from the record from event 0"):
        Resimulation.of(other)


def test_the_record_may_be_the_events_json() -> None:
    replay, events = recorded("duel", 2, 2)
    json_events = [event_to_json(e) for e in events]
    assert Resimulation.of(replay, events_json=json_events).to_end().events == events
    json_events[-3] = {"type": "forged"}
    forged = rf"from event {len(events) - 3} on: .*the record '{{\"type\":\"forged\"}}'"
    with pytest.raises(ReplayMismatch, match=forged):
        Resimulation.of(replay, events_json=json_events).to_end()
    assert Resimulation.of(dataclasses.replace(replay, events=()), check=False).to_end().events == events
