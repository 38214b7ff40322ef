"""The messages between the referee and a bot (docs/protocol.md), and the runner's boot line: typed
values, one JSON form each.

The referee builds what it sends from these values and the SDK parses what it receives with them.
The sandbox knows the protocol, not the rules: rules, views, events, options and actions travel here
as their JSON, whose types the engine owns. Only the standard library is imported, because this
module is shipped into every Python bot's sandbox with the SDK.

``to_json()`` gives the message's JSON object, keys in wire order; ``from_json()`` parses one and
raises ``MalformedMessage`` (a ``ValueError``) naming the field and quoting the input. Keys a parser
does not know are ignored, so a bot keeps working when a later referee adds one.
"""
from __future__ import annotations

import binascii
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Union

__all__ = [
    "PROTOCOL_VERSION", "MalformedMessage", "TimeLimits", "HelloMessage", "DecideMessage", "EndMessage",
    "ReadyReply", "READY_LINE", "ActionReply", "Message", "MESSAGE_TYPES", "message_from_json", "BootLimits",
    "BootProgram", "BotBoot", "ForkServerBoot",
]

PROTOCOL_VERSION = 1

_ABSENT: Any = object()


class MalformedMessage(ValueError):
    """A message or reply that does not have the form docs/protocol.md gives it."""


def _clip(value: object, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _object(data: object, what: str) -> Mapping[str, Any]:
    if not isinstance(data, dict):
        raise MalformedMessage(f"{what} must be a JSON object, got {_clip(data)}")
    return data


def _field(data: Mapping[str, Any], what: str, name: str, check: Callable[[Any], bool], expected: str,
           default: Any = _ABSENT) -> Any:
    """``data[name]`` if ``check`` accepts it; absent, ``default`` when given."""
    value = data.get(name, _ABSENT)
    if value is _ABSENT:
        if default is not _ABSENT:
            return default
        raise MalformedMessage(f"{what} lacks field {name!r}: {_clip(data)}")
    if not check(value):
        raise MalformedMessage(f"{what} field {name!r} must be {expected}, got {_clip(value)} in {_clip(data)}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_object(value: object) -> bool:
    return isinstance(value, dict)


def _list_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


def _check_type(data: Mapping[str, Any], what: str, kind: str) -> None:
    if data.get("type") != kind:
        raise MalformedMessage(f"{what} field 'type' must be {kind!r}, got {_clip(data.get('type'))} in {_clip(data)}")


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
        data = _object(data, what)
        return cls(_field(data, what, "decision_ms", _is_number, "a number", None),
                   _field(data, what, "bank_ms", _is_number, "a number", None))


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
        data = _object(data, what)
        _check_type(data, what, cls.TYPE)
        limits = _field(data, what, "limits", _is_object, "a JSON object", None)
        return cls(_field(data, what, "seat", _is_int, "an integer"),
                   _field(data, what, "players", _is_int, "an integer"),
                   tuple(_field(data, what, "seats", _list_of(lambda s: isinstance(s, str)), "a list of strings", [])),
                   _field(data, what, "rules", _is_object, "a JSON object"),
                   _field(data, what, "bot_seed", _is_int, "an integer"),
                   None if limits is None else TimeLimits.from_json(limits),
                   _field(data, what, "protocol", _is_int, "an integer", PROTOCOL_VERSION))


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
        return {"type": self.TYPE, "id": self.id, "kind": self.kind, "view": self.view, "events": list(self.events),
                "options": list(self.options), "time_left_ms": self.time_left_ms}

    @classmethod
    def from_json(cls, data: object) -> DecideMessage:
        what = "decide message"
        data = _object(data, what)
        _check_type(data, what, cls.TYPE)
        return cls(_field(data, what, "id", _is_int, "an integer"),
                   _field(data, what, "kind", lambda k: isinstance(k, str), "a string"),
                   _field(data, what, "view", _is_object, "a JSON object"),
                   tuple(_field(data, what, "events", _list_of(_is_object), "a list of JSON objects", [])),
                   tuple(_field(data, what, "options", _list_of(_is_object), "a list of JSON objects")),
                   _field(data, what, "time_left_ms", _is_number, "a number", 0.0))


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
        data = _object(data, what)
        _check_type(data, what, cls.TYPE)
        return cls(_field(data, what, "seat", _is_int, "an integer"),
                   tuple(_field(data, what, "coins", _list_of(_is_int), "a list of integers")),
                   tuple(_field(data, what, "ranks", _list_of(_is_int), "a list of integers")),
                   tuple(_field(data, what, "statuses", _list_of(lambda s: isinstance(s, str)), "a list of strings")))


Message = Union[HelloMessage, DecideMessage, EndMessage]
#: Every message the referee sends, by its ``type``
MESSAGE_TYPES: Mapping[str, type[HelloMessage] | type[DecideMessage] | type[EndMessage]] = {
    cls.TYPE: cls for cls in (HelloMessage, DecideMessage, EndMessage)}


def message_from_json(data: object) -> Message:
    """Parse any message of the referee's, by its ``type``."""
    kind = _object(data, "message").get("type")
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedMessage(f"unknown message type {_clip(kind)} in {_clip(data)} "
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
        _check_type(_object(data, "ready reply"), "ready reply", cls.TYPE)
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
        data = _object(data, what)
        return cls(_field(data, what, "id", _is_int, "an integer"),
                   _field(data, what, "action", _is_object, "a JSON object"))


# ------------------------------------------------------------------ the runner's boot line
# The first JSON line a runner (sandbox/runner.py) reads on its stdin after its own code: what to load
# and how to confine itself. The runner imports nothing of ours and reads it as a plain dict; the tests
# hold its keys to these values.
@dataclass(frozen=True)
class BootLimits:
    """The rlimits the runner sets before the bot's code runs; None leaves one as it is."""

    cpu: int
    cpu_hard: int
    address_space: int  # "as" on the wire
    data: int | None
    nofile: int
    nproc: int | None
    stack: int | None

    def to_json(self) -> dict[str, Any]:
        return {"cpu": self.cpu, "cpu_hard": self.cpu_hard, "as": self.address_space, "data": self.data,
                "nofile": self.nofile, "nproc": self.nproc, "stack": self.stack}

    @classmethod
    def from_json(cls, data: object) -> BootLimits:
        what = "boot limits"
        data = _object(data, what)

        def get(name: str, optional: bool = False) -> Any:
            return _field(data, what, name, lambda v: _is_int(v) or (optional and v is None),
                          "an integer or null" if optional else "an integer")

        return cls(get("cpu"), get("cpu_hard"), get("as"), get("data", True), get("nofile"), get("nproc", True),
                   get("stack", True))


@dataclass(frozen=True)
class BootProgram:
    """A bot in another language (sandbox/languages.py): its argv, whether its file is itself executed,
    and the file's bytes (base64 on the wire)."""

    argv: tuple[str, ...]
    native: bool
    file: bytes

    def to_json(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "native": self.native,
                "file": _to_base64(self.file)}

    @classmethod
    def from_json(cls, data: object) -> BootProgram:
        what = "boot program"
        data = _object(data, what)
        return cls(tuple(_field(data, what, "argv", _list_of(lambda a: isinstance(a, str)), "a list of strings")),
                   _field(data, what, "native", lambda v: isinstance(v, bool), "true or false"),
                   _base64(data, what, "file"))


@dataclass(frozen=True)
class BotBoot:
    """One bot's boot line: the limits, the bundle's modules (name -> ``[is_package, kind, payload]``;
    None when a fork server that holds them forks the bot), the bot's module name and source (None for
    a program), and its confinement: a seccomp filter (BPF bytes), the uid and gid to drop to, the
    referee's pid to watch (plain tier), dropping every capability, sealing /proc and /dev."""

    limits: BootLimits
    modules: Mapping[str, list[Any]] | None
    bot_module: str
    bot: str | None
    seccomp: bytes | None = None
    uid: int | None = None
    gid: int | None = None
    parent: int | None = None
    program: BootProgram | None = None
    drop_caps: bool = False
    seal_mounts: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"limits": self.limits.to_json()}
        if self.modules is not None:
            out["modules"] = self.modules
        out.update({"bot_module": self.bot_module, "bot": self.bot,
                    "seccomp": None if self.seccomp is None else _to_base64(self.seccomp),
                    "uid": self.uid, "gid": self.gid, "parent": self.parent})
        if self.program is not None:
            out["program"] = self.program.to_json()
        if self.drop_caps:
            out["drop_caps"] = True
        if self.seal_mounts:
            out["seal_mounts"] = True
        return out

    @classmethod
    def from_json(cls, data: object) -> BotBoot:
        what = "boot line"
        data = _object(data, what)
        program = _field(data, what, "program", _is_object, "a JSON object", None)

        def optional_int(name: str) -> int | None:
            return _field(data, what, name, lambda v: v is None or _is_int(v), "an integer or null", None)

        def flag(name: str) -> bool:
            return _field(data, what, name, lambda v: isinstance(v, bool), "true or false", False)

        return cls(BootLimits.from_json(_field(data, what, "limits", _is_object, "a JSON object")),
                   _field(data, what, "modules", _is_object, "a JSON object", None),
                   _field(data, what, "bot_module", lambda v: isinstance(v, str), "a string"),
                   _field(data, what, "bot", lambda v: v is None or isinstance(v, str), "a string or null"),
                   None if data.get("seccomp") is None else _base64(data, what, "seccomp"),
                   optional_int("uid"), optional_int("gid"), optional_int("parent"),
                   None if program is None else BootProgram.from_json(program),
                   flag("drop_caps"), flag("seal_mounts"))


@dataclass(frozen=True)
class ForkServerBoot:
    """A fork server's boot line (sandbox/zygote.py): the control socket's descriptor, the trusted
    modules, those it imports before forking, whether it seals /proc and /dev and makes itself
    undumpable (its children share its uid)."""

    control: int
    modules: Mapping[str, list[Any]]
    preload: tuple[str, ...]
    seal_mounts: bool
    undumpable: bool

    def to_json(self) -> dict[str, Any]:
        return {"zygote": True, "control": self.control, "modules": self.modules, "preload": list(self.preload),
                "seal_mounts": self.seal_mounts, "undumpable": self.undumpable}

    @classmethod
    def from_json(cls, data: object) -> ForkServerBoot:
        what = "fork server boot line"
        data = _object(data, what)
        _field(data, what, "zygote", lambda v: v is True, "true")
        flag = (lambda v: isinstance(v, bool), "true or false")
        return cls(_field(data, what, "control", _is_int, "an integer"),
                   _field(data, what, "modules", _is_object, "a JSON object"),
                   tuple(_field(data, what, "preload", _list_of(lambda m: isinstance(m, str)), "a list of strings")),
                   _field(data, what, "seal_mounts", *flag), _field(data, what, "undumpable", *flag))


def _to_base64(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def _base64(data: Mapping[str, Any], what: str, name: str) -> bytes:
    text = _field(data, what, name, lambda v: isinstance(v, str), "a base64 string")
    try:
        return binascii.a2b_base64(text.encode("ascii"))
    except (UnicodeEncodeError, binascii.Error):
        raise MalformedMessage(f"{what} field {name!r} must be a base64 string, got {_clip(text)} "
                               f"in {_clip(data)}") from None
