"""A fork server's control socket (sandbox/fork_server.py on the referee's side, sandbox/inside/forks.py in the
sandbox): the template reports each child it forks ahead with two JSON lines, ``Forked`` once the bot
exists (with a socket to the waiting bot, SCM_RIGHTS) and ``Exited`` once it is gone. The referee starts
the bot with ``FORK_REQUEST`` and the child's three pipe ends (SCM_RIGHTS) on that socket. Typed values,
one JSON form each, parsed as sandbox/protocol.py parses messages.

The runner imports nothing of ours and writes these lines itself; the tests hold its bytes to these values.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Union

from .protocol import MalformedMessage, clip, field, is_int, json_object

__all__ = ["FORK_REQUEST", "Forked", "Exited", "Report", "report_from_json", "report_from_line"]

#: The one byte that starts a waiting child; its stdin, stdout and stderr come with it
FORK_REQUEST = b"F"


@dataclass(frozen=True)
class Forked:
    """The template forked a keeper (``pid``, in the template's PID namespace), and the keeper the bot, which
    waits for its pipes on the socket that comes with this report."""

    pid: int

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid}

    @classmethod
    def from_json(cls, data: object) -> Forked:
        what = "fork report"
        return cls(field(json_object(data, what), what, "pid", is_int, "an integer"))


@dataclass(frozen=True)
class Exited:
    """The keeper ended as its bot did: ``status`` is its exit code, or minus the signal that killed it."""

    status: int

    def to_json(self) -> dict[str, Any]:
        return {"exit": self.status}

    @classmethod
    def from_json(cls, data: object) -> Exited:
        what = "exit report"
        return cls(field(json_object(data, what), what, "exit", is_int, "an integer"))


Report = Union[Forked, Exited]


def report_from_json(data: object) -> Report:
    """Parse either report, by its one field."""
    fields = json_object(data, "fork server report")
    if "pid" in fields:
        return Forked.from_json(fields)
    if "exit" in fields:
        return Exited.from_json(fields)
    raise MalformedMessage(f"fork server report has neither 'pid' nor 'exit': {clip(data)}")


def report_from_line(line: bytes) -> Report:
    """Parse one report line (without its newline)."""
    try:
        data = json.loads(line)
    except ValueError:
        raise MalformedMessage(f"fork server report is not JSON: {clip(line)}") from None
    return report_from_json(data)
