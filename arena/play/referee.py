"""The referee loop: asks each seat's bot for its decisions and plays them on the engine.

Bot failures become a status on the seat (the seat forfeits and the engine's default policy
plays its remaining decisions); a fault of the referee itself voids the game.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import logging
import secrets
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from engine import IllegalAction, Rules, action_from_json, new_game
from engine.defaults import default_action
from engine.quoting import WireError, quote
from engine.replay import Replay
from engine.wire import to_text

from .referee_wire import DecideWire
from sandbox.framing import splice_lists
from sandbox.protocol import ActionReply, EndMessage, HelloMessage, MalformedMessage, ReadyReply, TimeLimits
from sandbox.values import Limits, Reply, SandboxError, Status

log = logging.getLogger(__name__)


class Player(Protocol):
    """One seat's bot, wherever it runs. A player that reads nothing of a message but its line
    (``sandbox.framing.encode``) may say so with a ``wire_only = True`` attribute: its decide messages'
    dicts then hold only ``type``, ``id`` and ``kind`` (arena/play/referee_wire.py)."""

    name: str

    def request(self, message: dict[str, Any]) -> Reply: ...

    def notify(self, message: dict[str, Any]) -> None: ...

    def time_left_ms(self) -> float: ...

    def new_game(self) -> None: ...

    def close(self) -> None: ...

    @property
    def stderr_tail(self) -> str:
        """The bot's own last output on stderr (its prints, the runner's traceback), bounded."""
        ...


#: How much of a failed bot's last output is kept with the game (docs/protocol.md "Failures").
MAX_FAILURE_LOG = 4000
#: How much of every seat's own standard error of a game its record carries, its tail (``SeatOutcome.log``).
MAX_SEAT_LOG = 4000


@dataclass(frozen=True)
class Failure:
    """Why a seat failed, for its author: the request it was answering (``hello`` or a decision
    kind), when it was asked (``step``: the number of actions played before it, the replay's step
    (engine/spectator.py); ``arena game show N --step K`` and the site's ``#step-K`` show it), and the bot's
    own last output on stderr (the runner's traceback, its prints), at most ``MAX_FAILURE_LOG``
    characters. Nothing in it comes from another seat."""

    request: str
    step: int
    log: str


@dataclass(frozen=True)
class SeatOutcome:
    name: str
    coins: int
    rank: int
    status: Status
    detail: str
    decisions: int
    time_ms: float
    failure: Failure | None = None
    #: the bot's own standard error of this whole game (its prints, a traceback), its last ``MAX_SEAT_LOG``
    #: characters, read once its process ended: for its owner alone, failed or not (arena/ladder/seat_logs.py)
    log: str = ""


@dataclass(frozen=True)
class GameRecord:
    """What a finished (or voided) game produced. The replay travels as its JSON, made once where the
    game was played (a worker sends it to the coordinator, which stores it as it is)."""

    rules_id: str
    seed: int
    seats: tuple[SeatOutcome, ...]
    replay_text: str  # engine.replay.Replay.dumps()
    seconds: float
    void: str | None = None  # why the referee voided the game (its own fault), else None

    @functools.cached_property
    def replay(self) -> Replay:
        return Replay.loads(self.replay_text)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "replay"}  # the text is enough


#: The bound on a game's record (docs/protocol.md "Bounds"; each message to a bot is bounded by
#: ``Limits.max_request_bytes``). The rules keep a game far below it (C-6.9, D-1): reaching it is
#: the referee's fault and voids that game.
MAX_REPLAY_BYTES = 4 * 1024 * 1024


class OutOfTime(Exception):
    """The caller's wall-clock deadline for the game passed before a request (``play_game(deadline=...)``):
    neither a bot's fault nor a void; the game is abandoned and the caller closes its players."""


def play_game(rules: Rules, seed: int, players: Sequence[Player], limits: Limits | None = None,
              bot_seeds: Sequence[int] | None = None, deadline: float | None = None) -> GameRecord:
    """Play one game to its end. Never raises because of a bot.

    Who is at fault is decided here, in ``ask`` and ``play``: whatever goes wrong while asking one
    seat's bot, reading its reply or applying its action is that seat's status (it forfeits and is
    never asked again). Only a fault that no bot's output caused voids the game. ``bot_seeds``
    (one per seat) seed the bots' own randomness; by default they are drawn from the system's
    randomness, so nothing a bot sees reveals the deck seed. Past ``deadline`` (``time.monotonic()``) no
    request is sent: ``OutOfTime`` is raised, so a game lasts at most until then plus one request's own limit.
    Every player is closed at the end (a bot process plays one game), and each seat's record carries its
    standard error, read to its end.
    """
    limits = limits or Limits()
    started = time.perf_counter()
    n = len(players)
    game = new_game(rules, n, seed)
    statuses = [Status.OK] * n
    details = [""] * n
    failures: list[Failure | None] = [None] * n
    asked: list[tuple[str, int]] = [("hello", 0)] * n  # each seat's latest request: its kind and step
    decisions = [0] * n
    time_ms = [0.0] * n
    seen = [0] * n  # index of the first event each seat has not been sent yet
    names = [p.name for p in players]
    seeds = list(bot_seeds) if bot_seeds is not None else [secrets.randbits(63) for _ in range(n)]
    ok = Status.OK  # read once: an enum member is looked up on its class in Python

    def forfeit(seat: int, status: Status, detail: str) -> None:
        statuses[seat], details[seat] = status, _clip(detail, 500)
        log.info("seat %d (%s) forfeits: %s %s", seat, names[seat], status.value, details[seat])
        players[seat].close()  # a bot that failed is never asked again (and its stderr is read to the end)
        failures[seat] = Failure(asked[seat][0], asked[seat][1], _tail(players[seat].stderr_tail, MAX_FAILURE_LOG))

    def ask(seat: int, kind: str, wire: dict[str, Any]) -> dict[str, Any] | None:
        """One request to one seat (``kind``: hello or the decision's; ``wire``: its JSON, as sent); the reply's
        JSON, or None (and the seat forfeits) on any failure of the bot's."""
        asked[seat] = (kind, len(game.history))
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime(f"the game's deadline passed before {kind!r} at step {len(game.history)}")
        try:
            reply = players[seat].request(wire)
        except SandboxError:
            raise  # the machine's fault
        except Exception as exc:  # noqa: BLE001 - whatever reading this bot's output raised is its fault
            forfeit(seat, Status.PROTOCOL, f"its reply could not be read: {type(exc).__name__}: {quote(str(exc))}")
            return None
        time_ms[seat] += reply.elapsed_ms
        if reply.status is not ok:
            forfeit(seat, reply.status, reply.detail)
            return None
        if not isinstance(reply.message, dict):
            forfeit(seat, Status.PROTOCOL, f"reply is not a JSON object: {quote(reply.message)}")
            return None
        return reply.message

    def hello(seat: int) -> None:
        """Start the game for one seat: it must answer ``ready``."""
        request = HelloMessage(seat, n, tuple(seat_label(k) for k in range(n)), rules.to_json(), seeds[seat],
                               TimeLimits(limits.decision_ms, limits.bank_ms))
        data = ask(seat, request.TYPE, request.to_json())
        if data is None:
            return
        try:
            ReadyReply.from_json(data)
        except Exception:  # noqa: BLE001 - MalformedMessage, or anything a hostile value provokes: the bot's
            forfeit(seat, Status.PROTOCOL, f"expected a ready reply to hello, got {quote(data)}")

    def decide(seat: int, wire: dict[str, Any]) -> object:
        """One decision of one seat: the action JSON of its reply to the decide message ``wire``, or None (and the
        seat forfeits)."""
        data = ask(seat, wire["kind"], wire)
        if data is None:
            return None
        action = data.get("action")
        if type(action) is dict and type(data.get("id")) is int and data["id"] == wire["id"]:
            return action  # what ActionReply.from_json and the id check below accept, without making the value
        try:
            reply = ActionReply.from_json(data)
        except Exception as exc:  # noqa: BLE001 - as in ``play``: whatever the reply provokes is the bot's fault
            forfeit(seat, Status.PROTOCOL, f"its reply is malformed: {exc}" if isinstance(exc, MalformedMessage) else
                    f"its reply could not be read: {type(exc).__name__}: {quote(str(exc))}")
            return None
        if reply.id != wire["id"]:
            forfeit(seat, Status.PROTOCOL, f"reply id {reply.id} is not {wire['id']}")
            return None
        return reply.action

    def play(seat: int, data: object) -> None:
        """Decode and apply one bot's action; any failure is that seat's forfeit, never a void."""
        action = messages.offered(data)  # an option just offered, as it was written: looked up
        try:
            if action is None:
                action = action_from_json(data)
        except Exception as exc:  # noqa: BLE001 - ValueError, or anything a hostile value provokes
            forfeit(seat, Status.PROTOCOL, f"its action could not be read: {exc.brief}" if isinstance(exc, WireError)
                    else f"its action could not be read: {type(exc).__name__}: {quote(str(exc))}")
            return
        try:
            game.apply(action)
        except IllegalAction as exc:  # the rule and the engine's reason first; what the bot played, quoted, last
            forfeit(seat, Status.ILLEGAL, f"illegal action: {_clip(exc.reason)} (rule {exc.rule}); it played "
                    f"{quote(_action_text(action))}")
        except Exception as exc:  # noqa: BLE001 - an engine bug this action provoked: still not a void
            log.error("engine fault on %r from seat %d (%s): %s\n%s", action, seat, names[seat], exc,
                      traceback.format_exc())
            forfeit(seat, Status.ILLEGAL, f"the referee could not apply its action: {type(exc).__name__}; it played "
                    f"{quote(_action_text(action))}")
            rebuild()

    messages = DecideWire(n)  # the decide messages, from parts encoded once (every event once for all seats)
    wire_only = [getattr(p, "wire_only", False) is True for p in players]

    def rebuild() -> None:
        """Restore the game from its history (an engine fault may have left it half changed)."""
        nonlocal game
        fresh = new_game(rules, n, seed)
        for _, action in game.history:
            fresh.apply(action)
        game = fresh

    void: str | None = None
    request_id = 0
    try:
        for seat in range(n):
            hello(seat)
        while not game.over:
            decision = game.decision
            assert decision is not None
            seat = decision.seat
            if statuses[seat] is not ok:
                game.apply(default_action(game))
                continue
            request_id += 1
            wire = messages.message(game, request_id, decision, seen[seat], players[seat].time_left_ms(),
                                    wire_only[seat])
            seen[seat] = len(game.events)
            if decisions[seat] >= limits.max_decisions:  # the bots' CPU net is set from this bound
                raise RuntimeError(f"seat {seat} would be asked more than Limits.max_decisions = "
                                   f"{limits.max_decisions} decisions")
            decisions[seat] += 1
            action = decide(seat, wire)
            if action is not None:
                play(seat, action)
    except OutOfTime:
        raise
    except Exception as exc:  # noqa: BLE001 - a fault of the referee, engine or machine, never of a bot
        void = _clip(f"{type(exc).__name__}: {exc}", 500)
        # never the deck seed: a log is read by people, and a seed may deal other games (arena/ladder/random_seeds.py)
        log.error("a %s game voided by a referee fault: %s\n%s", rules.id, void, traceback.format_exc())

    forfeited = [s for s in range(n) if statuses[s] is not Status.OK]
    coins = game.result.coins if game.result else game.coins()
    ranks = final_ranks(rules, game, coins, forfeited)
    for seat, player in enumerate(players):
        if statuses[seat] is Status.OK:
            player.notify(EndMessage(seat, tuple(coins), tuple(ranks), tuple(s.value for s in statuses)).to_json())
    seconds = time.perf_counter() - started
    logs = []
    for player in players:  # every seat's bot ends with its game, so that what it wrote is read to its end
        player.close()
        logs.append(_tail(player.stderr_tail, MAX_SEAT_LOG))
    seats = tuple(SeatOutcome(names[s], coins[s], ranks[s], statuses[s], details[s], decisions[s], round(time_ms[s], 3),
                              failures[s], logs[s]) for s in range(n))
    # the text of Replay.dumps(): the events as they were sent, the actions written straight from their values
    replay = splice_lists(Replay.of(game, names, forfeited).to_json(events=False, actions=False), {
        "actions": [f"[{seat},{to_text(action)}]" for seat, action in game.history],
        "events": messages.event_texts(game.events)})
    if void is None and len(replay) > MAX_REPLAY_BYTES:
        void = f"RefereeFault: the replay exceeds {MAX_REPLAY_BYTES} bytes"
    return GameRecord(rules.id, seed, seats, replay, seconds, void)


def seat_label(seat: int) -> str:
    """How seats are named to the bots: anonymous labels, so a bot cannot recognise a partner by name."""
    return f"seat{seat}"


def final_ranks(rules: Rules, game: Any, coins: Sequence[int], forfeited: Sequence[int]) -> tuple[int, ...]:
    """Ranks for the record, as the rules rank a game with forfeits (``Rules.final_ranks``)."""
    return rules.final_ranks(None if game.result is None else game.result.ranks, coins, forfeited)


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


def _action_text(action: object) -> str:
    """An action as the protocol writes it (JSON), to be quoted."""
    try:
        return to_text(action)
    except Exception:  # noqa: BLE001 - not an action the wire knows (an engine fault's, a test's stand-in)
        return _clip(action)


def _clip(value: object, limit: int = 200) -> str:
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:  # noqa: BLE001 - a bot's value that cannot be quoted (too deep) is still reported
        text = f"<{type(value).__name__} that cannot be shown>"
    return text if len(text) <= limit else text[:limit] + "…"


class InProcessPlayer:
    """A trusted bot module run in this process (built-in bots, tests, fast local play).

    Messages go through a JSON round trip so the bot sees exactly what it would see in the
    sandbox; there is no deadline enforcement, only time measurement.
    """

    def __init__(self, path: str | Path, name: str | None = None, limits: Limits | None = None) -> None:
        self.path = Path(path)
        self._limits = limits or Limits()
        self.name = name or self.path.stem
        self._new_game = load_entry_point(self.path)
        self._act = self._new_game()
        self._games = 0
        self._dead: Reply | None = None
        self.stderr_tail = ""  # the traceback of the exception that ended it, as the runner would print it

    def request(self, message: dict[str, Any]) -> Reply:
        if self._dead is not None:
            return self._dead
        started = time.perf_counter()
        try:
            if message.get("type") == HelloMessage.TYPE:
                self._games += 1
                if self._games > 1:  # a fresh bot object per game, as the sandbox runner does
                    self._act = self._new_game()
            reply = self._act(json.loads(json.dumps(message)))
            reply = json.loads(json.dumps(reply))
        except Exception as exc:  # the bot's fault: becomes its status
            self.stderr_tail = traceback.format_exc()
            self._dead = Reply(Status.CRASH, None, 0.0, f"it raised {quote(f'{type(exc).__name__}: {exc}')}")
            return self._dead
        elapsed = (time.perf_counter() - started) * 1000
        if not isinstance(reply, dict):
            self._dead = Reply(Status.PROTOCOL, None, elapsed, f"reply is not a JSON object: {quote(reply)}")
            return self._dead
        return Reply(Status.OK, reply, elapsed)

    def notify(self, message: dict[str, Any]) -> None:
        try:
            self._act(json.loads(json.dumps(message)))
        except Exception:
            log.debug("bot %s raised on a notification", self.name, exc_info=True)

    def time_left_ms(self) -> float:
        return self._limits.decision_ms + self._limits.bank_ms

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        pass


def load_entry_point(path: Path) -> Callable[[], Callable[[Any], Any]]:
    """Import a trusted bot file; returns a function giving the ``act`` of one game (a module-level
    ``act``, or the ``act`` of a new instance of its SDK bot class)."""
    spec = importlib.util.spec_from_file_location(f"bot_{path.stem}_{id(path)}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load bot file {str(path)!r}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    act = getattr(module, "act", None)
    if callable(act) and not isinstance(act, type):
        return lambda: act
    classes = [v for v in vars(module).values()
               if isinstance(v, type) and getattr(v, "__bohnanza_bot__", False) and v.__module__ == module.__name__]
    if len(classes) != 1:
        raise ValueError(f"bot file {str(path)!r} must define act(message) or exactly one Bot subclass, "
                         f"found {len(classes)} classes")
    bot_class = classes[0]
    return lambda: bot_class().act
