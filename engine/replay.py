"""Replays: (rules version, seed, seats, actions) reproduce a game exactly; ``Resimulation`` is the one way
through a recorded game, step by step, that every reader of a record takes."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

from engine.actions import Action, action_from_json, action_to_json
from engine.errors import IllegalAction, ReplayMismatch
from engine.events import Event, event_from_json, event_to_json
from engine.game import new_game
from engine.quoting import quote
from engine.results import GameResult
from engine.rules import Rules, rules_for

if TYPE_CHECKING:  # through the package: the games' spectator imports this module
    from engine import ClassicGame, PrincesGame

__all__ = ["REPLAY_FORMAT", "Replay", "ReplayMismatch", "ReplayStep", "Resimulation"]

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


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One recorded action played again. Step ``number`` is the position after it (the first action leads to
    step 1; step 0 is the deal, docs/protocol.md "Steps"); ``active`` is the active seat before it (whose turn
    its events belong to); ``events`` are the events it caused; ``game`` is the live game after it, which the
    next step changes."""

    number: int
    seat: int
    action: Action
    active: int
    events: tuple[Event, ...]
    game: ClassicGame | PrincesGame


class Resimulation:
    """The one way through a recorded game: ``game`` is dealt from the seed, and iterating plays the actions one
    by one, yielding a ``ReplayStep`` after each (iteration may stop and resume; ``to_end`` plays the rest).

    With a ``record`` (the events as recorded), or ``record_json`` (their JSON), the deal's events and every step's
    are checked against it as they happen, and after the last step that it holds no more. An action of the
    wrong seat, after the end, that the rules refuse, or whose events differ raises ``ReplayMismatch``, which
    names the step and quotes the action."""

    def __init__(self, rules: Rules, players: int, seed: int, actions: Iterable[tuple[int, Action]],
                 record: Sequence[Event] | None = None, record_json: Sequence[Any] | None = None) -> None:
        self.game: ClassicGame | PrincesGame = new_game(rules, players, seed)
        self._record = None if record is None else tuple(record)
        self._record_json = None if record_json is None else list(record_json)
        self._check(0, self.game.events, None, None)
        self._steps = self._play(actions)

    @classmethod
    def of(cls, replay: Replay, rules: Rules | None = None, check: bool = True,
           events_json: Sequence[Any] | None = None) -> Resimulation:
        """The resimulation of ``replay`` by ``rules`` (by default those it names), checked against its events
        (``check=False``: not checked, for a replay read without them; ``events_json``: checked against this JSON
        of them instead, which costs less than decoding it)."""
        rules = rules or rules_for(replay.rules_id)
        if rules.id != replay.rules_id:
            raise ReplayMismatch(0, f"the replay is for {replay.rules_id!r}, the rules given are {rules.id!r}")
        if events_json is not None:
            return cls(rules, len(replay.seats), replay.seed, replay.actions, record_json=events_json)
        return cls(rules, len(replay.seats), replay.seed, replay.actions, replay.events if check else None)

    def __iter__(self) -> Iterator[ReplayStep]:
        return self._steps  # the generator itself: a loop over it calls no Python method a step

    def __next__(self) -> ReplayStep:
        return next(self._steps)

    def to_end(self) -> ClassicGame | PrincesGame:
        """Play every action not played yet; the game at its end."""
        for _ in self._steps:
            pass
        return self.game

    def _play(self, actions: Iterable[tuple[int, Action]]) -> Iterator[ReplayStep]:
        game = self.game
        checked = self._record is not None or self._record_json is not None
        number = 0
        for seat, action in actions:
            number += 1
            if game.over:
                raise ReplayMismatch(number, "the game is over", seat, action)
            if game.to_move != seat:
                raise ReplayMismatch(number, f"seat {game.to_move} is to move", seat, action)
            before, active = len(game.events), game.active
            try:
                game.apply(action)
            except IllegalAction as exc:  # the record does not fit the rules
                raise ReplayMismatch(number, f"{exc.reason} (rule {exc.rule})", seat, action) from None
            except ValueError as exc:  # not an action at all (a hand-made record)
                raise ReplayMismatch(number, str(exc), seat, action) from None
            events = tuple(game.events[before:])
            if checked:
                self._check(number, events, seat, action)
            yield ReplayStep(number, seat, action, active, events, game)
        if checked:
            self._check_end(number)

    def _check(self, number: int, events: Sequence[Event], seat: int | None, action: Action | None) -> None:
        """Raise ``ReplayMismatch`` unless ``events``, the latest of the game, are the record's at their place."""
        if self._record is None and self._record_json is None:
            return
        start = len(self.game.events) - len(events)
        made: Sequence[Any]
        recorded: Sequence[Any]
        if self._record_json is not None:
            made, recorded = [event_to_json(e) for e in events], self._record_json[start:start + len(events)]
        else:
            assert self._record is not None
            made, recorded = tuple(events), self._record[start:start + len(events)]
        if made != recorded:
            first = next((i for i, (a, b) in enumerate(zip(made, recorded)) if a != b), min(len(made), len(recorded)))
            json_form = self._record_json is not None
            raise ReplayMismatch(number, f"the events differ from the record from event {start + first} on: the game "
                                         f"has {_quote_event(made, first, json_form)}, the record "
                                         f"{_quote_event(recorded, first, json_form)}", seat, action)

    def _check_end(self, number: int) -> None:
        """Once the actions are played: raise ``ReplayMismatch`` if the record holds more events than the game."""
        recorded = self._record if self._record is not None else self._record_json
        made = len(self.game.events)
        if recorded is not None and len(recorded) > made:
            raise ReplayMismatch(number, f"the game ends here, the record holds {len(recorded) - made} events more, "
                                         f"from event {made} on: {_quote_event(recorded, made, self._record is None)}")


def _quote_event(events: Sequence[Any], index: int, json_form: bool) -> str:
    """Event ``index`` of ``events`` (their JSON if ``json_form``) as an error message quotes it, or ``none``."""
    if index >= len(events):
        return "none"
    data = events[index] if json_form else event_to_json(events[index])
    try:
        return quote(json.dumps(data, separators=(",", ":")))
    except (TypeError, ValueError):  # a hand-made record: as Python shows it
        return quote(data)
