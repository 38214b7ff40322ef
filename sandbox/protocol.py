"""The messages between the referee and a bot (docs/protocol.md): typed values, one JSON form each.

The referee builds what it sends from these values and the SDK parses what it receives with them.
The sandbox knows the protocol, not the rules: rules, views, events, options and actions travel here
as their JSON, whose types the engine owns. Only the standard library is imported, because this
module is shipped into every Python bot's sandbox with the SDK.

``to_json()`` gives the message's JSON object, keys in wire order; ``encode()`` its line (``dumps`` is the
one compact-JSON writer of the protocol); ``from_json()`` parses one and
raises ``MalformedMessage`` (a ``ValueError``) naming the field and quoting the input. Keys a parser
does not know are ignored, so a bot keeps working when a later referee adds one. The parsing
helpers below (``json_object``, ``field``, ``is_int``...) also parse the runner's boot lines
(sandbox/bootline.py) and the fork server's control lines (sandbox/control.py).
"""
from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator, Mapping, Union

__all__ = [
    "PROTOCOL_VERSION", "MalformedMessage", "TimeLimits", "HelloMessage", "DecideMessage", "EndMessage",
    "ReadyReply", "READY_LINE", "ActionReply", "Message", "MESSAGE_TYPES", "message_from_json",
    "dumps", "encode", "JSONText", "JSONTexts",
]

PROTOCOL_VERSION = 1

_ABSENT: Any = object()

_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
try:  # the C encoder behind _ENCODER.encode, made once, without its wrapper's checks (messages are trees): the
    # referee writes every event, action and reply of a game with it, and a small object ({"type": "plant",
    # "field": 1}) takes 0.64 µs here against 1.43 µs through ``encode`` (timeit, best of 5, this machine)
    from _json import encode_basestring_ascii, make_encoder

    _C_ENCODE: Any = make_encoder(None, _ENCODER.default, encode_basestring_ascii, None, ":", ",", False, False,
                                  False)
except ImportError:  # pragma: no cover - an interpreter without the accelerator
    _C_ENCODE = None


def dumps(value: Any) -> str:
    """Compact JSON, as ``json.dumps(value, separators=(",", ":"), allow_nan=False)`` writes it."""
    if _C_ENCODE is None:  # pragma: no cover
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


def _number(value: float) -> str:
    """``value`` as ``dumps`` writes it (a non-finite number raises as it does)."""
    if (type(value) is float and math.isfinite(value)) or type(value) is int:
        return repr(value)
    return dumps(value)


class JSONText(Mapping[str, Any]):
    """A JSON object already written as compact text: a message holding it is encoded with the text as it is, and
    reads it back (``value``, once) only when asked. The referee writes a view, an event or an option once and
    sends it in one message or several."""

    __slots__ = ("text", "value")
    value: dict[str, Any]  # ``json.loads(text)``: given by a writer that had it at hand, else read on first use

    def __init__(self, text: str, value: dict[str, Any] | None = None) -> None:
        self.text = text
        if value is not None:
            self.value = value

    def __getattr__(self, name: str) -> Any:  # only for an attribute not set: ``value`` is read once, then a slot
        if name != "value":
            raise AttributeError(name)
        self.value = json.loads(self.text)
        return self.value

    def __getitem__(self, key: str) -> Any:
        return self.value[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.value)

    def __len__(self) -> int:
        return len(self.value)

    def __repr__(self) -> str:
        return f"JSONText({self.text!r})"


class JSONTexts(tuple[JSONText, ...]):
    """JSON objects already written (``JSONText``) sent together as one list: its text and its values are made once
    (the referee sends the same list of options in many messages). Its values are shared: not to be changed."""

    @functools.cached_property
    def text(self) -> str:
        return "[" + ",".join([item.text for item in self]) + "]"

    @functools.cached_property
    def values(self) -> list[dict[str, Any]]:
        return [item.value for item in self]


def _plain(value: Any) -> Any:
    return value.value if type(value) is JSONText else value


def _text(value: Any) -> str:
    return value.text if type(value) is JSONText else dumps(value)


_STRINGS: dict[str, str] = {}  # a decision kind's JSON text: a few names, each written once


def _string(value: str) -> str:
    text = _STRINGS.get(value)
    if text is None:
        if len(_STRINGS) > 100:
            _STRINGS.clear()
        text = _STRINGS[value] = dumps(value)
    return text


def _texts(values: Any) -> str:
    return values.text if type(values) is JSONTexts else "[" + ",".join([_text(v) for v in values]) + "]"


class MalformedMessage(ValueError):
    """A message or reply that does not have the form docs/protocol.md gives it."""


def clip(value: object, limit: int = 60) -> str:
    """``value`` quoted briefly and always closed (as ``engine.errors.quote``): a bot writes these values,
    and the site prints a failure's detail; they must never read as the message's own words."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:  # noqa: BLE001 - too deep, or an int of too many digits
        return f"<{type(value).__name__} that cannot be shown>"
    if len(text) <= limit:
        return repr(text) if isinstance(value, str) else text
    return repr(text[:limit]) + "…"


def json_object(data: object, what: str) -> Mapping[str, Any]:
    if not isinstance(data, dict):
        raise MalformedMessage(f"{what} must be a JSON object, got {clip(data)}")
    return data


def field(data: Mapping[str, Any], what: str, name: str, check: Callable[[Any], bool], expected: str,
          default: Any = _ABSENT) -> Any:
    """``data[name]`` if ``check`` accepts it; absent, ``default`` when given."""
    value = data.get(name, _ABSENT)
    if value is _ABSENT:
        if default is not _ABSENT:
            return default
        raise MalformedMessage(f"{what} lacks field {name!r}: {clip(data)}")
    if not check(value):
        raise MalformedMessage(f"{what} field {name!r} must be {expected}, got {clip(value)} in {clip(data)}")
    return value


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_object(value: object) -> bool:
    return isinstance(value, dict)


def list_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


def check_type(data: Mapping[str, Any], what: str, kind: str) -> None:
    if data.get("type") != kind:
        raise MalformedMessage(f"{what} field 'type' must be {kind!r}, got {clip(data.get('type'))} in {clip(data)}")


# ------------------------------------------------------------------ referee -> bot
@dataclass(frozen=True)
class TimeLimits:
    """A seat's time rules as ``hello`` tells them: the per-decision limit and the game's bank. The
    referee gives both; a field left out (the SDK always took ``limits`` as any object) is None and
    stays out of the JSON."""

    decision_ms: float | None = None
    bank_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {name: value for name, value in (("decision_ms", self.decision_ms), ("bank_ms", self.bank_ms))
                if value is not None}

    @classmethod
    def from_json(cls, data: object) -> TimeLimits:
        what = "hello limits"
        data = json_object(data, what)
        return cls(field(data, what, "decision_ms", is_number, "a number", None),
                   field(data, what, "bank_ms", is_number, "a number", None))


@dataclass(frozen=True)
class HelloMessage:
    """The start of a game: the bot's seat, the table, the rules (their JSON), its seed and time.

    ``seats``, ``limits`` and ``protocol`` may be absent from a message (the SDK always took them
    as optional): they parse as ``()``, ``None`` and ``PROTOCOL_VERSION``."""

    TYPE: ClassVar[str] = "hello"
    EXPECTS_REPLY: ClassVar[bool] = True

    seat: int
    players: int
    seats: tuple[str, ...]
    rules: Mapping[str, Any]
    bot_seed: int
    limits: TimeLimits | None
    protocol: int = PROTOCOL_VERSION

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE, "protocol": self.protocol, "seat": self.seat,
                               "players": self.players, "seats": list(self.seats), "rules": self.rules,
                               "bot_seed": self.bot_seed}
        if self.limits is not None:
            out["limits"] = self.limits.to_json()
        return out

    @classmethod
    def from_json(cls, data: object) -> HelloMessage:
        what = "hello message"
        data = json_object(data, what)
        check_type(data, what, cls.TYPE)
        limits = field(data, what, "limits", is_object, "a JSON object", None)
        return cls(field(data, what, "seat", is_int, "an integer"),
                   field(data, what, "players", is_int, "an integer"),
                   tuple(field(data, what, "seats", list_of(lambda s: isinstance(s, str)), "a list of strings", [])),
                   field(data, what, "rules", is_object, "a JSON object"),
                   field(data, what, "bot_seed", is_int, "an integer"),
                   None if limits is None else TimeLimits.from_json(limits),
                   field(data, what, "protocol", is_int, "an integer", PROTOCOL_VERSION))


@dataclass(frozen=True)
class DecideMessage:
    """One decision: its ``id`` (echoed by the reply), its kind, the seat's view, the public events
    since the seat's previous decision, the legal options (all as JSON) and the time left.

    ``events`` and ``time_left_ms`` may be absent (the SDK always took them as optional): they parse
    as ``()`` and ``0.0``."""

    TYPE: ClassVar[str] = "decide"
    EXPECTS_REPLY: ClassVar[bool] = True

    id: int
    kind: str
    view: Mapping[str, Any]
    events: tuple[Mapping[str, Any], ...]
    options: tuple[Mapping[str, Any], ...]
    time_left_ms: float

    def to_json(self) -> dict[str, Any]:
        options = self.options
        return {"type": self.TYPE, "id": self.id, "kind": self.kind, "view": _plain(self.view),
                "events": [e.value if type(e) is JSONText else e for e in self.events],
                "options": options.values if type(options) is JSONTexts else [_plain(o) for o in options],
                "time_left_ms": self.time_left_ms}

    def encode(self) -> bytes:
        """The message's line: exactly ``dumps(self.to_json())`` and a newline, written around the texts of its
        ``JSONText`` parts, which are never read back for it (the referee writes one per decision)."""
        view = self.view
        return (f'{{"type":"decide","id":{self.id},"kind":{_string(self.kind)},'
                f'"view":{view.text if type(view) is JSONText else dumps(view)},'
                f'"events":[{",".join([e.text if type(e) is JSONText else dumps(e) for e in self.events])}],'
                f'"options":{_texts(self.options)},"time_left_ms":{_number(self.time_left_ms)}}}\n').encode("utf-8")

    @classmethod
    def from_json(cls, data: object) -> DecideMessage:
        what = "decide message"
        data = json_object(data, what)
        check_type(data, what, cls.TYPE)
        return cls(field(data, what, "id", is_int, "an integer"),
                   field(data, what, "kind", lambda k: isinstance(k, str), "a string"),
                   field(data, what, "view", is_object, "a JSON object"),
                   tuple(field(data, what, "events", list_of(is_object), "a list of JSON objects", [])),
                   tuple(field(data, what, "options", list_of(is_object), "a list of JSON objects")),
                   field(data, what, "time_left_ms", is_number, "a number", 0.0))


@dataclass(frozen=True)
class EndMessage:
    """The result, told to every seat that did not fail; it gets no reply. Per seat: coins, ranks and
    statuses (``sandbox.values.Status`` values)."""

    TYPE: ClassVar[str] = "end"
    EXPECTS_REPLY: ClassVar[bool] = False

    seat: int
    coins: tuple[int, ...]
    ranks: tuple[int, ...]
    statuses: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE, "seat": self.seat, "coins": list(self.coins), "ranks": list(self.ranks),
                "statuses": list(self.statuses)}

    @classmethod
    def from_json(cls, data: object) -> EndMessage:
        what = "end message"
        data = json_object(data, what)
        check_type(data, what, cls.TYPE)
        return cls(field(data, what, "seat", is_int, "an integer"),
                   tuple(field(data, what, "coins", list_of(is_int), "a list of integers")),
                   tuple(field(data, what, "ranks", list_of(is_int), "a list of integers")),
                   tuple(field(data, what, "statuses", list_of(lambda s: isinstance(s, str)), "a list of strings")))


Message = Union[HelloMessage, DecideMessage, EndMessage]
#: Every message the referee sends, by its ``type``
MESSAGE_TYPES: Mapping[str, type[HelloMessage] | type[DecideMessage] | type[EndMessage]] = {
    cls.TYPE: cls for cls in (HelloMessage, DecideMessage, EndMessage)}


def encode(message: Message | Mapping[str, Any]) -> bytes:
    """One message (or any JSON object) as one compact line."""
    if type(message) is DecideMessage:
        return message.encode()
    data = message if isinstance(message, Mapping) else message.to_json()
    return dumps(data).encode("utf-8") + b"\n"


def message_from_json(data: object) -> Message:
    """Parse any message of the referee's, by its ``type``."""
    kind = json_object(data, "message").get("type")
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedMessage(f"unknown message type {clip(kind)} in {clip(data)} "
                               f"(known: {', '.join(MESSAGE_TYPES)})")
    return cls.from_json(data)


# ------------------------------------------------------------------ bot -> referee
@dataclass(frozen=True)
class ReadyReply:
    """The reply to ``hello``; the runner also says it once the bot is loaded."""

    TYPE: ClassVar[str] = "ready"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.TYPE}

    @classmethod
    def from_json(cls, data: object) -> ReadyReply:
        check_type(json_object(data, "ready reply"), "ready reply", cls.TYPE)
        return cls()


#: ``ReadyReply`` as one compact line (without its newline): what a runner writes once its bot is loaded
READY_LINE = b'{"type":"ready"}'


@dataclass(frozen=True)
class ActionReply:
    """The reply to ``decide``: its ``id`` and the chosen action's JSON."""

    id: int
    action: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "action": self.action}

    @classmethod
    def from_json(cls, data: object) -> ActionReply:
        what = "action reply"
        data = json_object(data, what)
        return cls(field(data, what, "id", is_int, "an integer"),
                   field(data, what, "action", is_object, "a JSON object"))
