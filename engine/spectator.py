"""What a spectator may see of a game at every step: one frozen public state, for every format.

A *step* is one action of the replay: step 0 is the position after the deal, step k the position once
the first k actions were played (``replay.actions[k - 1]`` led to it, with the events it caused). The
CLI's ``--step K``, a failed seat's evidence ("at step K") and the site's ``#step-K`` all count this
way (docs/protocol.md, "Steps").

A state never holds a hand's cards or the deck's order while the game runs; once it is over, the
hands as they were when it ended are revealed (``PublicSeat.hand``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from engine.cards import Bean
from engine.events import Event
from engine.narration import deal_sentence, describe
from engine.replay import Replay, Resimulation
from engine.rules import Rules
from engine.views import FieldView, TradeCard, TradeView, _offer_from

#: the version of the public state's JSON (``game.public_state_json()``) and of ``replay_json``
SPECTATOR_FORMAT = 1


@dataclass(frozen=True, slots=True)
class PublicSeat:
    """One seat as everybody sees it. ``trade_area`` is classic's (empty in the Princes variants),
    ``figure`` the Princes figure's position (``None`` in classic), ``hand`` ``None`` until the game is over."""

    coins: int
    hand_size: int
    fields: tuple[FieldView, ...]
    trade_area: tuple[TradeCard, ...] = ()
    figure: int | None = None
    hand: tuple[Bean, ...] | None = None


@dataclass(frozen=True, slots=True)
class PrincesTable:
    """The Princes variants' own table: the box (gold paid out of the game), the middle's stacks in the
    order they were started, the vine (``vine[k-1]`` the task of card k, ``None`` while face down), the
    solo game's neutral figures as ``(name, position)`` and the Castle's position."""

    box: int
    middle: tuple[tuple[Bean, int], ...]
    vine: tuple[str | None, ...]
    neutral: tuple[tuple[str, int], ...]
    castle: int


@dataclass(frozen=True, slots=True)
class PublicState:
    """The table at one step. ``to_move`` and ``decision`` name who decides what next (``None`` once
    over); ``trade`` is the classic trading round under way, if any; ``ranks`` are set once over. Its JSON
    (SPECTATOR_FORMAT) is written by the game's observer (``game.public_state_json()``, engine/observer.py)
    and read back here."""

    rules_id: str
    step: int
    turn: int
    active: int
    over: bool
    to_move: int | None
    decision: str | None
    deck_size: int
    discard_size: int
    discard_top: Bean | None
    reshuffles: int
    seats: tuple[PublicSeat, ...]
    trade: TradeView | None = None
    princes: PrincesTable | None = None
    ranks: tuple[int, ...] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PublicState:
        try:
            trade, princes, ranks, top = data["trade"], data["princes"], data["ranks"], data["top"]
            return cls(
                rules_id=str(data["rules_id"]), step=int(data["step"]), turn=int(data["turn"]),
                active=int(data["active"]), over=bool(data["over"]),
                to_move=None if data["to_move"] is None else int(data["to_move"]),
                decision=None if data["decision"] is None else str(data["decision"]),
                deck_size=int(data["deck"]), discard_size=int(data["discard"]),
                discard_top=None if top is None else Bean.parse(top), reshuffles=int(data["reshuffles"]),
                seats=tuple(_seat_from(s) for s in data["seats"]),
                trade=None if trade is None else TradeView(
                    int(trade["round"]), int(trade["max_rounds"]), _offer_from(trade["offer"]),
                    tuple(r for r in map(_offer_from, trade["responses"]) if r is not None)),
                princes=None if princes is None else PrincesTable(
                    int(princes["box"]), tuple((Bean.parse(b), int(n)) for b, n in princes["middle"]),
                    tuple(None if t is None else str(t) for t in princes["vine"]),
                    tuple((str(name), int(pos)) for name, pos in princes["neutral"]), int(princes["castle"])),
                ranks=None if ranks is None else tuple(int(r) for r in ranks),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed public state {str(data)[:200]!r}: {exc}") from None


def _seat_from(data: Mapping[str, Any]) -> PublicSeat:
    hand, figure = data["hand"], data["figure"]
    return PublicSeat(int(data["coins"]), int(data["hand_size"]),
                      tuple(FieldView(None if b is None else Bean.parse(b), int(n)) for b, n in data["fields"]),
                      tuple(TradeCard(Bean.parse(b), bool(locked)) for b, locked in data["trade_area"]),
                      None if figure is None else int(figure),
                      None if hand is None else tuple(Bean.parse(b) for b in hand))


def public_state(game: Any) -> PublicState:
    """The public table of ``game`` now, at step ``len(game.history)``: its observer's JSON read back (each kind
    of game names its observer, engine/observer.py, so a new kind of game brings its spectator)."""
    state: PublicState = game.public_state()
    return state


def public_state_json(game: Any) -> dict[str, Any]:
    """The JSON of the public table of ``game`` now, as its observer writes it (engine/observer.py)."""
    state: dict[str, Any] = game.public_state_json()
    return state


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a game: who acted (``None`` for the deal), the events that action caused (for
    the deal, those of the deal), one sentence per event, and the public state after it."""

    number: int
    seat: int | None
    events: tuple[Event, ...]
    sentences: tuple[str, ...]
    state: PublicState


def _names(replay: Replay, names: Sequence[str] | None) -> list[str]:
    """The seats' names: ``names``, by default the replay's."""
    names = list(replay.seats if names is None else names)
    if len(names) != len(replay.seats):
        raise ValueError(f"{len(names)} names {names!r} for a game of {len(replay.seats)} seats")
    return names


def replay_steps(replay: Replay, rules: Rules | None = None, names: Sequence[str] | None = None) -> list[Step]:
    """Every step of ``replay``, re-simulated by the engine (step 0 the deal), its sentences naming the
    seats ``names`` (by default the replay's); raises ``ReplayMismatch`` (a ``ValueError``) when the
    actions do not play or the events differ from the record."""
    names = _names(replay, names)
    walk = Resimulation.of(replay, rules)
    game = walk.game
    rules, events = game.rules, tuple(game.events)
    steps = [Step(0, None, events, tuple(describe(e, names, rules, game.active) for e in events), public_state(game))]
    for step in walk:
        sentences = tuple(describe(e, names, rules, step.active) for e in step.events)
        steps.append(Step(step.number, step.seat, step.events, sentences, public_state(game)))
    return steps


def replay_json(replay: Replay, rules: Rules | None = None, names: Sequence[str] | None = None,
                recorded: Sequence[Any] | None = None) -> dict[str, Any]:
    """The JSON a viewer draws from (what a site build embeds in every game page): ``{"format", "steps":
    [{"seat", "events", "text", "state"}]}`` (``events``: how many events the step holds; ``text``: its
    sentences, the deal's first at step 0), where the first state is whole and every later one holds only
    what changed since the one before (``seats`` as an object of the changed seats by index, and every
    object by its changed keys); ``apply_diff`` (and site/static/replay.js) undo it. ``recorded``: the events'
    JSON to check the game against instead of ``replay.events`` (decoding them costs more than this)."""
    names = _names(replay, names)
    walk = Resimulation.of(replay, rules, events_json=recorded)
    game = walk.game
    rules = game.rules
    before = public_state_json(game)
    out = [{"seat": None, "events": len(game.events),
            "text": [deal_sentence(rules, len(names))] + [describe(e, names, rules, game.active) for e in game.events],
            "state": before}]
    for step in walk:
        state = public_state_json(game)
        out.append({"seat": step.seat, "events": len(step.events),
                    "text": [describe(e, names, rules, step.active) for e in step.events],
                    "state": _diff_state(before, state)})
        before = state
    return {"format": SPECTATOR_FORMAT, "steps": out}


def step_after_events(replay: Replay, events: int) -> int:
    """The step at which ``events`` events had happened (the latest one): how an event count of an
    older record becomes a step."""
    step = 0
    for played in Resimulation.of(replay, check=False):
        if len(played.game.events) > events:
            break
        step = played.number
    return step


def _diff(before: Any, after: Any) -> Any:
    """What changed from ``before`` to ``after``: for two objects, the changed keys, each as its own diff;
    for the list of seats, an object of the changed seats by index; anything else whole."""
    if isinstance(before, dict) and isinstance(after, dict) and before.keys() == after.keys():
        return {key: _diff(before[key], value) for key, value in after.items() if before[key] != value}
    return after


def _diff_state(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    if before is None:
        return after
    out = {key: _diff(before[key], value) for key, value in after.items() if key != "seats" and before[key] != value}
    seats = {str(i): _diff(b, a) for i, (b, a) in enumerate(zip(before["seats"], after["seats"])) if b != a}
    if seats:
        out["seats"] = seats
    return out


def _apply(before: Any, diff: Any) -> Any:
    if isinstance(before, dict) and isinstance(diff, dict):
        return {**before, **{key: _apply(before.get(key), value) for key, value in diff.items()}}
    return diff


def apply_diff(before: Mapping[str, Any], diff: Mapping[str, Any]) -> dict[str, Any]:
    """The whole state JSON from the one before and a step's diff (the inverse of ``replay_json``'s diffs)."""
    out = {key: _apply(before[key], value) for key, value in diff.items() if key != "seats"}
    seats = list(before["seats"])
    for index, seat in diff.get("seats", {}).items():
        seats[int(index)] = _apply(seats[int(index)], seat)
    return {**before, **out, "seats": seats}
