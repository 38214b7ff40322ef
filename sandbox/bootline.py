"""The runner's boot line: the first JSON line a runner (sandbox/inside/runner.py) reads on its stdin after its
own code, saying what to load and how to confine itself; a bot's (``BotBoot``) or a fork server's
(``ForkServerBoot``). Typed values, one JSON form each, parsed as sandbox/protocol.py parses messages.

The runner imports nothing of ours and reads its boot line as a plain dict; the tests hold its keys to
these values.
"""
from __future__ import annotations

import binascii
from dataclasses import dataclass
from typing import Any, Mapping

from .protocol import MalformedMessage, clip, field, is_int, is_object, json_object, list_of

__all__ = ["BootLimits", "BootProgram", "BotBoot", "ForkServerBoot"]


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
        data = json_object(data, what)

        def get(name: str, optional: bool = False) -> Any:
            return field(data, what, name, lambda v: is_int(v) or (optional and v is None),
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
        data = json_object(data, what)
        return cls(tuple(field(data, what, "argv", list_of(lambda a: isinstance(a, str)), "a list of strings")),
                   field(data, what, "native", lambda v: isinstance(v, bool), "true or false"),
                   _base64(data, what, "file"))


@dataclass(frozen=True)
class BotBoot:
    """One bot's boot line: the limits, the bundle's modules (name -> ``[is_package, kind, payload]``;
    None when a fork server that holds them forks the bot), the bot's module name and source (None for
    a program), and its confinement: a seccomp filter (BPF bytes), the uid and gid to drop to, the
    referee's pid to watch (plain tier), dropping every capability, sealing /proc and /dev. A Python bot
    that started before comes as the code an earlier runner compiled from its source (``bot_code``:
    marshalled, base64; ``bot`` None); else ``say_code`` asks the runner for that code line (at most
    that many bytes, sandbox/boot.py ``CODE_LINE``)."""

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
    bot_code: str | None = None
    say_code: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"limits": self.limits.to_json()}
        if self.modules is not None:
            out["modules"] = self.modules
        out.update({"bot_module": self.bot_module, "bot": self.bot, "bot_code": self.bot_code,
                    "say_code": self.say_code,
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
        data = json_object(data, what)
        program = field(data, what, "program", is_object, "a JSON object", None)

        def optional_int(name: str) -> int | None:
            value: int | None = field(data, what, name, lambda v: v is None or is_int(v), "an integer or null", None)
            return value

        def flag(name: str) -> bool:
            value: bool = field(data, what, name, lambda v: isinstance(v, bool), "true or false", False)
            return value

        return cls(BootLimits.from_json(field(data, what, "limits", is_object, "a JSON object")),
                   field(data, what, "modules", is_object, "a JSON object", None),
                   field(data, what, "bot_module", lambda v: isinstance(v, str), "a string"),
                   field(data, what, "bot", lambda v: v is None or isinstance(v, str), "a string or null"),
                   None if data.get("seccomp") is None else _base64(data, what, "seccomp"),
                   optional_int("uid"), optional_int("gid"), optional_int("parent"),
                   None if program is None else BootProgram.from_json(program),
                   flag("drop_caps"), flag("seal_mounts"),
                   field(data, what, "bot_code", lambda v: v is None or isinstance(v, str), "a string or null", None),
                   optional_int("say_code"))


@dataclass(frozen=True)
class ForkServerBoot:
    """A fork server's boot line (sandbox/fork_server.py): the control socket's descriptor, the trusted
    modules, those it imports before forking, whether it seals /proc and /dev and makes itself
    undumpable (its children share its uid); in the plain tier, ``parent``: the referee's pid, whose end
    ends the template (its bots get no PID namespace then)."""

    control: int
    modules: Mapping[str, list[Any]]
    preload: tuple[str, ...]
    seal_mounts: bool
    undumpable: bool
    parent: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"fork_server": True, "control": self.control, "modules": self.modules, "preload": list(self.preload),
                "seal_mounts": self.seal_mounts, "undumpable": self.undumpable, "parent": self.parent}

    @classmethod
    def from_json(cls, data: object) -> ForkServerBoot:
        what = "fork server boot line"
        data = json_object(data, what)
        field(data, what, "fork_server", lambda v: v is True, "true")
        flag = (lambda v: isinstance(v, bool), "true or false")
        return cls(field(data, what, "control", is_int, "an integer"),
                   field(data, what, "modules", is_object, "a JSON object"),
                   tuple(field(data, what, "preload", list_of(lambda m: isinstance(m, str)), "a list of strings")),
                   field(data, what, "seal_mounts", *flag), field(data, what, "undumpable", *flag),
                   field(data, what, "parent", lambda v: v is None or is_int(v), "an integer or null", None))


def _to_base64(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def _base64(data: Mapping[str, Any], what: str, name: str) -> bytes:
    text = field(data, what, name, lambda v: isinstance(v, str), "a base64 string")
    try:
        return binascii.a2b_base64(text.encode("ascii"))
    except (UnicodeEncodeError, binascii.Error):
        raise MalformedMessage(f"{what} field {name!r} must be a base64 string, got {clip(text)} "
                               f"in {clip(data)}") from None
