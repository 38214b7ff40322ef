"""Replays: (rules version, seed, seats, actions) reproduce a game exactly."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from engine.actions import Action, action_from_json, action_to_json
from engine.events import Event, event_from_json, event_to_json
from engine.results import GameResult
from engine.rules import Rules, rules_for

REPLAY_FORMAT = 1


@dataclass(frozen=True)
class Replay:
    """A whole game: everything needed to re-simulate it, and what it produced."""

    rules_id: str
    seed: int
    seats: tuple[str, ...]
    actions: tuple[tuple[int, Action], ...]
    events: tuple[Event, ...]
    result: GameResult | None
    forfeits: tuple[int, ...] = ()

    @classmethod
    def of(cls, game: Any, seats: Sequence[str], forfeits: Sequence[int] = ()) -> Replay:
        return cls(game.rules.id, game.seed, tuple(seats), tuple(game.history), tuple(game.events),
                   game.result, tuple(forfeits))

    def to_json(self, events: bool = True, actions: bool = True) -> dict[str, Any]:
        """The JSON form; ``events=False`` (``actions=False``) leaves the events (actions) list empty, for a caller
        that has their JSON."""
        return {
            "format": REPLAY_FORMAT, "rules_id": self.rules_id, "seed": self.seed, "seats": list(self.seats),
            "actions": [[seat, action_to_json(a)] for seat, a in self.actions] if actions else [],
            "events": [event_to_json(e) for e in self.events] if events else [],
            "result": None if self.result is None else self.result.to_json(),
            "forfeits": list(self.forfeits),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Mapping[str, Any], events: bool = True) -> Replay:
        """The replay of ``data``; ``events=False`` leaves its events empty (for a caller that compares
        their JSON itself, as ``engine.spectator.replay_json`` can)."""
        if not isinstance(data, Mapping) or data.get("format") != REPLAY_FORMAT:
            raise ValueError(f"not a replay of format {REPLAY_FORMAT}: {str(data)[:80]!r}")
        try:
            return cls(
                rules_id=str(data["rules_id"]), seed=int(data["seed"]), seats=tuple(map(str, data["seats"])),
                actions=tuple((int(seat), action_from_json(a)) for seat, a in data["actions"]),
                events=tuple(event_from_json(e) for e in data["events"]) if events else (),
                result=None if data["result"] is None else GameResult.from_json(data["result"]),
                forfeits=tuple(int(s) for s in data.get("forfeits", ())),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed replay {str(data)[:200]!r}: {exc}") from None

    @classmethod
    def loads(cls, text: str) -> Replay:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"replay is not JSON: {text[:200]!r}: {exc}") from None
        return cls.from_json(data)


class ReplayMismatch(ValueError):
    """Re-simulating a replay did not give what it records."""


def resimulate(replay: Replay, rules: Rules | None = None) -> Any:
    """Play the replay's actions again from its seed; checks every seat and event on the way."""
    from engine import new_game  # late: engine/__init__ imports this module's siblings

    rules = rules or rules_for(replay.rules_id)
    if rules.id != replay.rules_id:
        raise ReplayMismatch(f"replay is for {replay.rules_id!r}, rules given are {rules.id!r}")
    game = new_game(rules, len(replay.seats), replay.seed)
    for step, (seat, action) in enumerate(replay.actions):
        if game.to_move != seat:
            raise ReplayMismatch(f"step {step}: seat {game.to_move} is to move, replay says {seat}")
        try:
            game.apply(action)
        except ValueError as exc:  # IllegalAction included: the record does not fit the rules
            raise ReplayMismatch(f"step {step}: {exc}") from None
    if tuple(game.events) != replay.events:
        first = next((i for i, (a, b) in enumerate(zip(game.events, replay.events)) if a != b),
                     min(len(game.events), len(replay.events)))
        raise ReplayMismatch(f"events differ from event {first} on")
    return game
