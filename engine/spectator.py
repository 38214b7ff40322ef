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
from engine.views import FieldView, TradeCard, TradeView, _offer_from, _offer_json, trade_json, trade_view

#: the version of the JSON form below (``PublicState.to_json``, ``steps_json``)
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
    over); ``trade`` is the classic trading round under way, if any; ``ranks`` are set once over."""

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

    def to_json(self) -> dict[str, Any]:
        """The one JSON form (SPECTATOR_FORMAT); ``from_json`` reads it back."""
        return {
            "rules_id": self.rules_id, "step": self.step, "turn": self.turn, "active": self.active,
            "over": self.over, "to_move": self.to_move, "decision": self.decision,
            "deck": self.deck_size, "discard": self.discard_size,
            "top": None if self.discard_top is None else self.discard_top.value, "reshuffles": self.reshuffles,
            "seats": [_seat_json(s) for s in self.seats],
            "trade": None if self.trade is None else {
                "round": self.trade.round, "max_rounds": self.trade.max_rounds,
                "offer": _offer_json(self.trade.offer), "responses": [_offer_json(r) for r in self.trade.responses]},
            "princes": None if self.princes is None else {
                "box": self.princes.box, "middle": [[b.value, n] for b, n in self.princes.middle],
                "vine": list(self.princes.vine), "neutral": [[name, pos] for name, pos in self.princes.neutral],
                "castle": self.princes.castle},
            "ranks": None if self.ranks is None else list(self.ranks),
        }

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


def _seat_json(s: PublicSeat) -> dict[str, Any]:
    return {"coins": s.coins, "hand_size": s.hand_size,
            "fields": [[f.bean.value if f.bean else None, f.count] for f in s.fields],
            "trade_area": [[c.bean.value, c.locked] for c in s.trade_area], "figure": s.figure,
            "hand": None if s.hand is None else [b.value for b in s.hand]}


def _seat_from(data: Mapping[str, Any]) -> PublicSeat:
    hand, figure = data["hand"], data["figure"]
    return PublicSeat(int(data["coins"]), int(data["hand_size"]),
                      tuple(FieldView(None if b is None else Bean.parse(b), int(n)) for b, n in data["fields"]),
                      tuple(TradeCard(Bean.parse(b), bool(locked)) for b, locked in data["trade_area"]),
                      None if figure is None else int(figure),
                      None if hand is None else tuple(Bean.parse(b) for b in hand))


def public_state(game: Any) -> PublicState:
    """The public table of ``game`` now, at step ``len(game.history)``: each kind of game builds its
    own (``game.public_state()``, like ``game.view(seat)``), so a new kind of game brings its spectator."""
    state: PublicState = game.public_state()
    return state


def _seats(game: Any, trade_areas: bool, figures: bool) -> tuple[PublicSeat, ...]:
    revealed = game.final_hands if game.over else None
    return tuple(
        PublicSeat(s.coins, len(s.hand), tuple(FieldView(b, n) for b, n in zip(s.field_beans, s.field_counts)),
                   tuple(TradeCard(b, locked) for b, locked in zip(s.trade, s.trade_locked)) if trade_areas else (),
                   s.position if figures else None,
                   None if revealed is None else tuple(revealed[i]))
        for i, s in enumerate(game.seats))


def _state(game: Any, seats: tuple[PublicSeat, ...], trade: TradeView | None,
           table: PrincesTable | None) -> PublicState:
    decision = game.decision
    return PublicState(
        rules_id=game.rules.id, step=len(game.history), turn=game.turn, active=game.active, over=game.over,
        to_move=None if decision is None else decision.seat,
        decision=None if decision is None else decision.kind.value,
        deck_size=len(game.deck), discard_size=len(game.discard),
        discard_top=game.discard[-1] if game.discard else None, reshuffles=game.reshuffles,
        seats=seats, trade=trade, princes=table, ranks=None if game.result is None else game.result.ranks)


def classic_public_state(game: Any) -> PublicState:
    """The spectator's state of a ``ClassicGame``: trading areas and the trading round under way."""
    return _state(game, _seats(game, trade_areas=True, figures=False), trade_view(game), None)


def princes_public_state(game: Any) -> PublicState:
    """The spectator's state of a ``PrincesGame`` (duel, solo): figures, the box, the middle, the vine
    (face-down cards as ``None``) and the neutral figures."""
    table = PrincesTable(len(game.box), tuple(game.middle.items()),
                         tuple(t if k < game.revealed else None for k, t in enumerate(game.vine)),
                         game.neutral_positions(), game.castle)
    return _state(game, _seats(game, trade_areas=False, figures=True), None, table)


def public_state_json(game: Any) -> dict[str, Any]:
    """``public_state(game).to_json()`` made straight from the state (a site build makes one per step of
    every game: no state objects); tests check both agree on every step of many games."""
    state: dict[str, Any] = game.public_state_json()
    return state


_NAMES: dict[Bean | None, str | None] = {**{b: b.value for b in Bean}, None: None}  # faster than .value


def _seats_json(game: Any, trade_areas: bool, figures: bool) -> list[dict[str, Any]]:
    revealed = game.final_hands if game.over else None
    names = _NAMES
    return [{"coins": len(s.treasury), "hand_size": len(s.hand),
             "fields": [[names[b], n] for b, n in zip(s.field_beans, s.field_counts)],
             "trade_area": [[names[b], locked] for b, locked in zip(s.trade, s.trade_locked)] if trade_areas else [],
             "figure": s.position if figures else None,
             "hand": None if revealed is None else [names[b] for b in revealed[i]]}
            for i, s in enumerate(game.seats)]


def _state_json(game: Any, seats: list[dict[str, Any]], trade: dict[str, Any] | None,
                table: dict[str, Any] | None) -> dict[str, Any]:
    over, result = game.over, game.result
    return {
        "rules_id": game.rules.id, "step": len(game.history), "turn": game.turn, "active": game.active,
        "over": over, "to_move": None if over else game.to_move,
        "decision": None if over or game.phase is None else game.phase.value,
        "deck": len(game.deck), "discard": len(game.discard),
        "top": _NAMES[game.discard[-1]] if game.discard else None, "reshuffles": game.reshuffles,
        "seats": seats, "trade": trade, "princes": table, "ranks": None if result is None else list(result.ranks),
    }


def classic_public_state_json(game: Any) -> dict[str, Any]:
    trade = trade_json(game)
    return _state_json(game, _seats_json(game, trade_areas=True, figures=False), trade, None)


def princes_public_state_json(game: Any) -> dict[str, Any]:
    revealed = game.revealed
    table = {"box": len(game.box), "middle": [[b.value, n] for b, n in game.middle.items()],
             "vine": [t if k < revealed else None for k, t in enumerate(game.vine)],
             "neutral": [[name, pos] for name, pos in game.neutral_positions()], "castle": game.castle}
    return _state_json(game, _seats_json(game, trade_areas=False, figures=True), None, table)


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
    """``steps_json(replay_steps(replay, rules, names), rules)`` made straight from the game's states
    (what a site build embeds in every game page; tests check both agree). ``recorded``: the events'
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


def steps_json(steps: Sequence[Step], rules: Rules) -> dict[str, Any]:
    """The JSON a viewer draws from: ``{"format", "steps": [{"seat", "events", "text", "state"}]}``
    (``events``: how many events the step holds; ``text``: its sentences, the deal's first at step 0), where the
    first state is whole and every later one holds only what changed since the one before (``seats``
    as an object of the changed seats by index, and every object by its changed keys); ``apply_diff`` (and
    site/static/replay.js) undo it."""
    out, before = [], None
    for step in steps:
        state = step.state.to_json()
        deal = [deal_sentence(rules, len(state["seats"]))] if step.number == 0 else []
        out.append({"seat": step.seat, "events": len(step.events), "text": deal + list(step.sentences),
                    "state": _diff_state(before, state)})
        before = state
    return {"format": SPECTATOR_FORMAT, "steps": out}


def _apply(before: Any, diff: Any) -> Any:
    if isinstance(before, dict) and isinstance(diff, dict):
        return {**before, **{key: _apply(before.get(key), value) for key, value in diff.items()}}
    return diff


def apply_diff(before: Mapping[str, Any], diff: Mapping[str, Any]) -> dict[str, Any]:
    """The whole state JSON from the one before and a step's diff (the inverse of ``steps_json``)."""
    out = {key: _apply(before[key], value) for key, value in diff.items() if key != "seats"}
    seats = list(before["seats"])
    for index, seat in diff.get("seats", {}).items():
        seats[int(index)] = _apply(seats[int(index)], seat)
    return {**before, **out, "seats": seats}
