"""The referee: asks each seat's bot for its decisions and plays them on the engine.

Bot failures become a status on the seat (the seat forfeits and the engine's default policy
plays its remaining decisions); a fault of the referee itself voids the game.
"""
from __future__ import annotations

import logging
import secrets
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from engine import Action, Decision, IllegalAction, Rules, action_from_json, new_game
from engine.actions import action_to_json
from engine.wire import to_json as wire_json
from engine.defaults import default_action
from engine.quoting import WireError, quote
from engine.replay import Replay, Resimulation

from .players import Player
from .records import MAX_FAILURE_LOG, MAX_SEAT_LOG, Failure, GameRecord, SeatOutcome
from sandbox.framing import splice_lists
from sandbox.protocol import (ActionReply, DecideMessage, EndMessage, HelloMessage, JSONText, JSONTexts,
                              MalformedMessage, Message, ReadyReply, TimeLimits, dumps)
from sandbox.values import Limits, SandboxError, Status

log = logging.getLogger(__name__)


#: The bound on a game's record (docs/protocol.md "Bounds"; each message to a bot is bounded by
#: ``Limits.max_request_bytes``). The rules keep a game far below it (C-6.9, D-1): reaching it is
#: the referee's fault and voids that game.
MAX_REPLAY_BYTES = 4 * 1024 * 1024

#: what a referee tells a watcher after each step: the game as it stands, and the step's new events
Watch = Callable[[Any, Sequence[Any]], None]


class OutOfTime(Exception):
    """The caller's wall-clock deadline for the game passed before a request (``play_game(deadline=...)``):
    neither a bot's fault nor a void; the game is abandoned and the caller closes its players."""



@dataclass(slots=True)
class Seat:
    """One seat as the referee follows it through a game: its bot, how it stands, what it was last asked
    (``asked``: the request's kind and step), its decisions and time, and the first event it was not sent yet."""

    player: Player
    bot_seed: int
    status: Status = Status.OK
    detail: str = ""
    failure: Failure | None = None
    asked: tuple[str, int] = ("hello", 0)
    decisions: int = 0
    time_ms: float = 0.0
    seen: int = 0

    @property
    def name(self) -> str:
        return self.player.name


class _Options:
    """One list of options as decide messages hold it (each option's JSON written once) and each option by its
    text, to look a reply up in."""

    __slots__ = ("items", "by_text")

    def __init__(self, options: Sequence[Action]) -> None:
        self.items = JSONTexts(_json_text(action) for action in options)
        self.by_text = {item.text: action for item, action in zip(self.items, options)}


#: Every distinct list of options seen by this process, made once (options are values: a game's do not depend
#: on its table); emptied when it grows past ``MAX_SHAPES``, so a long season's memory stays bounded. An entry
#: holds ~2 KB: the live soak's worker grew by 32 MB over 10,000 games of three formats as 20,000 of them
#: filled; 5,000 bound it at ~10 MB, and the lists made again cost no measurable CPU (900 in-process games of
#: the three formats: 21 % of lists made at 2,000 against 5 % at 20,000, 72.9 against 74.3 CPU s; docs/benchmarks.md)
_SHAPES: dict[tuple[Action, ...], _Options] = {}
MAX_SHAPES = 5_000
#: The text of every event and action sent or recorded by this process, by the value's identity (the entry holds
#: the value, so that its id stays its own): the engine interns its frequent events and actions
#: (engine/interning.py), so 96 % of the events of 40 random classic games were objects seen before, and writing
#: one (``dumps(event_to_json(e))``, ~1.7 µs) cost ~1.1 ms a game more than this lookup. Emptied past ``MAX_TEXTS``.
_TEXTS: dict[int, tuple[object, JSONText]] = {}
MAX_TEXTS = 20_000


def _json_text(value: Any) -> JSONText:
    """An event's or action's JSON and its text (``dumps`` of ``event_to_json``/``action_to_json``: one wire form)."""
    known = _TEXTS.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    if len(_TEXTS) >= MAX_TEXTS:
        _TEXTS.clear()
    data = wire_json(value)
    text = _TEXTS[id(value)] = (value, JSONText(dumps(data), data))
    return text[1]


def play_game(rules: Rules, seed: int, players: Sequence[Player], limits: Limits | None = None,
              bot_seeds: Sequence[int] | None = None, deadline: float | None = None,
              watch: Watch | None = None) -> GameRecord:
    """Play one game to its end (``Referee.play``). Never raises because of a bot."""
    return Referee(rules, seed, players, limits, bot_seeds, deadline, watch).play()


class Referee:
    """One game: asks each seat's bot for its decisions and plays them on the engine.

    Who is at fault is decided here, in ``_ask`` and ``_play``: whatever goes wrong while asking one
    seat's bot, reading its reply or applying its action is that seat's status (it forfeits and is
    never asked again). Only a fault that no bot's output caused voids the game. ``bot_seeds``
    (one per seat) seed the bots' own randomness; by default they are drawn from the system's
    randomness, so nothing a bot sees reveals the deck seed. Past ``deadline`` (``time.monotonic()``) no
    request is sent: ``OutOfTime`` is raised, so a game lasts at most until then plus one request's own limit.
    Every player is closed at the end (a bot process plays one game), and each seat's record carries its
    standard error, read to its end. ``watch`` (e.g. the audit's ``TradeFlows.seen``) is given every step's new
    events with the game as it stands after them.
    """

    def __init__(self, rules: Rules, seed: int, players: Sequence[Player], limits: Limits | None = None,
                 bot_seeds: Sequence[int] | None = None, deadline: float | None = None,
                 watch: Watch | None = None) -> None:
        self.rules, self.seed, self.deadline, self.watch = rules, seed, deadline, watch
        self.limits = limits or Limits()
        seeds = list(bot_seeds) if bot_seeds is not None else [secrets.randbits(63) for _ in players]
        self.seats = [Seat(player, bot_seed) for player, bot_seed in zip(players, seeds)]
        self.game = new_game(rules, len(self.seats), seed)
        self._events: list[JSONText] = []  # every event of the game as sent, each written once for every seat
        self._offered: dict[str, Action] = {}  # the options of the latest decide message, by their text
        self._request_id = 0

    def play(self) -> GameRecord:
        started = time.perf_counter()
        void: str | None = None
        ok = Status.OK  # read once: an enum member is looked up on its class in Python
        watch, watched = self.watch, 0
        try:
            for index in range(len(self.seats)):
                self._hello(index)
            while not self.game.over:
                if watch is not None and len(self.game.events) > watched:
                    watch(self.game, self.game.events[watched:])
                    watched = len(self.game.events)
                decision = self.game.decision
                assert decision is not None
                seat = self.seats[decision.seat]
                if seat.status is not ok:
                    self.game.apply(default_action(self.game))
                    continue
                message = self._decide_message(seat, decision)
                if seat.decisions >= self.limits.max_decisions:  # the bots' CPU net is set from this bound
                    raise RuntimeError(f"seat {decision.seat} would be asked more than Limits.max_decisions = "
                                       f"{self.limits.max_decisions} decisions")
                seat.decisions += 1
                action = self._decide(decision.seat, message)
                if action is not None:
                    self._play(decision.seat, action)
            if watch is not None:
                watch(self.game, self.game.events[watched:])
        except OutOfTime:
            raise
        except Exception as exc:  # noqa: BLE001 - a fault of the referee, engine or machine, never of a bot
            void = _clip(f"{type(exc).__name__}: {exc}", 500)
            # never the deck seed: a log is read by people, and a seed may deal other games
            # (arena/ladder/random_seeds.py)
            log.error("a %s game voided by a referee fault: %s\n%s", self.rules.id, void, traceback.format_exc())
        return self._record(started, void)

    def _decide_message(self, seat: Seat, decision: Decision) -> DecideMessage:
        """The one place a decide message is made: the seat's view (written by the game's observer), the events
        since the seat's last decision (each written once for the table) and the options (each list written
        once), as texts ``protocol.encode`` sends as they are and an in-process bot reads back."""
        game = self.game
        self._request_id += 1
        shape = _SHAPES.get(decision.options)
        if shape is None:
            if len(_SHAPES) >= MAX_SHAPES:
                _SHAPES.clear()
            shape = _SHAPES[decision.options] = _Options(decision.options)
        self._offered = shape.by_text
        events = self._event_texts()
        message = DecideMessage(self._request_id, decision.kind.value, JSONText(game.view_text(decision.seat)),
                                tuple(events[seat.seen:]), shape.items, seat.player.time_left_ms())
        seat.seen = len(events)
        return message

    def _event_texts(self) -> list[JSONText]:
        """Every event of the game so far, as sent (the game's events grow; each is written once)."""
        texts, events = self._events, self.game.events
        if len(texts) < len(events):
            texts += [_json_text(event) for event in events[len(texts):]]
        return texts

    def _forfeit(self, index: int, status: Status, detail: str) -> None:
        seat = self.seats[index]
        seat.status, seat.detail = status, _clip(detail, 500)
        log.info("seat %d (%s) forfeits: %s %s", index, seat.name, status.value, seat.detail)
        seat.player.close()  # a bot that failed is never asked again (and its stderr is read to the end)
        seat.failure = Failure(seat.asked[0], seat.asked[1], _tail(seat.player.stderr_tail, MAX_FAILURE_LOG))

    def _ask(self, index: int, kind: str, message: Message) -> dict[str, Any] | None:
        """One request to one seat (``kind``: hello or the decision's); the reply's JSON, or None (and the seat
        forfeits) on any failure of the bot's."""
        seat, step = self.seats[index], len(self.game.history)
        seat.asked = (kind, step)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime(f"the game's deadline passed before {kind!r} at step {step}")
        try:
            reply = seat.player.request(message)
        except SandboxError:
            raise  # the machine's fault
        except Exception as exc:  # noqa: BLE001 - whatever reading this bot's output raised is its fault
            self._forfeit(index, Status.PROTOCOL, f"its reply could not be read: {type(exc).__name__}: "
                          f"{quote(str(exc))}")
            return None
        seat.time_ms += reply.elapsed_ms
        if reply.status is not Status.OK:
            self._forfeit(index, reply.status, reply.detail)
            return None
        if not isinstance(reply.message, dict):
            self._forfeit(index, Status.PROTOCOL, f"reply is not a JSON object: {quote(reply.message)}")
            return None
        return reply.message

    def _hello(self, index: int) -> None:
        """Start the game for one seat: it must answer ``ready``."""
        n = len(self.seats)
        message = HelloMessage(index, n, tuple(seat_label(k) for k in range(n)), self.rules.to_json(),
                               self.seats[index].bot_seed, TimeLimits(self.limits.decision_ms, self.limits.bank_ms))
        data = self._ask(index, message.TYPE, message)
        if data is None:
            return
        try:
            ReadyReply.from_json(data)
        except Exception:  # noqa: BLE001 - MalformedMessage, or anything a hostile value provokes: the bot's
            self._forfeit(index, Status.PROTOCOL, f"expected a ready reply to hello, got {quote(data)}")

    def _decide(self, index: int, message: DecideMessage) -> object:
        """One decision of one seat: the action JSON of its reply to ``message``, or None (and the seat forfeits)."""
        data = self._ask(index, message.kind, message)
        if data is None:
            return None
        action = data.get("action")
        if type(action) is dict and type(data.get("id")) is int and data["id"] == message.id:
            return action  # what ActionReply.from_json and the id check below accept, without making the value
        try:
            reply = ActionReply.from_json(data)
        except Exception as exc:  # noqa: BLE001 - as in ``_play``: whatever the reply provokes is the bot's fault
            self._forfeit(index, Status.PROTOCOL, f"its reply is malformed: {exc}"
                          if isinstance(exc, MalformedMessage) else
                          f"its reply could not be read: {type(exc).__name__}: {quote(str(exc))}")
            return None
        if reply.id != message.id:
            self._forfeit(index, Status.PROTOCOL, f"reply id {reply.id} is not {message.id}")
            return None
        return reply.action

    def _play(self, index: int, data: object) -> None:
        """Decode and apply one bot's action; any failure is that seat's forfeit, never a void."""
        action = self._offered_action(data)
        try:
            if action is None:
                action = action_from_json(data)
        except Exception as exc:  # noqa: BLE001 - ValueError, or anything a hostile value provokes
            self._forfeit(index, Status.PROTOCOL, f"its action could not be read: {exc.brief}"
                          if isinstance(exc, WireError) else
                          f"its action could not be read: {type(exc).__name__}: {quote(str(exc))}")
            return
        try:
            self.game.apply(action)
        except IllegalAction as exc:  # the rule and the engine's reason first; what the bot played, quoted, last
            self._forfeit(index, Status.ILLEGAL, f"illegal action: {_clip(exc.reason)} (rule {exc.rule}); it played "
                          f"{quote(_action_text(action))}")
        except Exception as exc:  # noqa: BLE001 - an engine bug this action provoked: still not a void
            log.error("engine fault on %r from seat %d (%s): %s\n%s", action, index, self.seats[index].name, exc,
                      traceback.format_exc())
            self._forfeit(index, Status.ILLEGAL, f"the referee could not apply its action: {type(exc).__name__}; "
                          f"it played {quote(_action_text(action))}")
            # an engine fault may have left the game half changed: play its history again on a fresh deal
            self.game = Resimulation(self.rules, len(self.seats), self.seed, list(self.game.history)).to_end()

    def _offered_action(self, data: object) -> Action | None:
        """The option of the latest message whose JSON ``data`` (a reply's action, as a line decodes) is, written
        with the same keys in the same order: exactly what ``action_from_json(data)`` gives then; None for
        anything else (which the caller decodes in full, with its errors)."""
        if type(data) is not dict:
            return None
        try:
            text = dumps(data)
        except Exception:  # noqa: BLE001 - whatever a bot's value provokes: the full decoder says what is wrong
            return None
        return self._offered.get(text)

    def _record(self, started: float, void: str | None) -> GameRecord:
        """Tell the seats still in the game the result, close every bot and make the game's record."""
        game, seats = self.game, self.seats
        forfeited = [s for s, seat in enumerate(seats) if seat.status is not Status.OK]
        coins = game.result.coins if game.result else game.coins()
        ranks = final_ranks(self.rules, game, coins, forfeited)
        statuses = tuple(seat.status.value for seat in seats)
        for index, seat in enumerate(seats):
            if seat.status is Status.OK:
                seat.player.notify(EndMessage(index, tuple(coins), tuple(ranks), statuses))
        seconds = time.perf_counter() - started
        logs = []
        for seat in seats:  # every seat's bot ends with its game, so that what it wrote is read to its end
            seat.player.close()
            logs.append(_tail(seat.player.stderr_tail, MAX_SEAT_LOG))
        outcomes = tuple(SeatOutcome(seat.name, coins[s], ranks[s], seat.status, seat.detail, seat.decisions,
                                     round(seat.time_ms, 3), seat.failure, logs[s]) for s, seat in enumerate(seats))
        # the text of Replay.dumps(): the events as they were sent, the actions written from their JSON
        names = [seat.name for seat in seats]
        replay = splice_lists(Replay.of(game, names, forfeited).to_json(events=False, actions=False), {
            "actions": [f"[{seat},{_json_text(action).text}]" for seat, action in game.history],
            "events": [event.text for event in self._event_texts()]})
        if void is None and len(replay) > MAX_REPLAY_BYTES:
            void = f"RefereeFault: the replay exceeds {MAX_REPLAY_BYTES} bytes"
        return GameRecord(self.rules.id, self.seed, outcomes, replay, seconds, void)


def seat_label(seat: int) -> str:
    """How seats are named to the bots: anonymous labels, so a bot cannot recognise a partner by name."""
    return f"seat{seat}"


def final_ranks(rules: Rules, game: Any, coins: Sequence[int], forfeited: Sequence[int]) -> tuple[int, ...]:
    """Ranks for the record, as the rules rank a game with forfeits (``Rules.final_ranks``)."""
    return rules.final_ranks(None if game.result is None else game.result.ranks, coins, forfeited)


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


def _action_text(action: Action) -> str:
    """An action as the protocol writes it (JSON), to be quoted."""
    try:
        return dumps(action_to_json(action))
    except Exception:  # noqa: BLE001 - not an action the wire knows (an engine fault's, a test's stand-in)
        return _clip(action)


def _clip(value: object, limit: int = 200) -> str:
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:  # noqa: BLE001 - a bot's value that cannot be quoted (too deep) is still reported
        text = f"<{type(value).__name__} that cannot be shown>"
    return text if len(text) <= limit else text[:limit] + "…"
