"""Value types of the sandbox layer: statuses, tiers, limits, bundles, replies, errors."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

__all__ = ["Status", "Tier", "Limits", "BotBundle", "Reply", "SandboxError", "PACKAGE_SUFFIX", "modules_from_package"]

#: A bundle module whose name ends with this suffix is a package: ``"engine.__init__"``
#: is the package ``engine`` (its ``__init__`` source).
PACKAGE_SUFFIX = ".__init__"


class SandboxError(RuntimeError):
    """The machine is at fault (missing tool, no free uid slot), not the bot."""


class Status(enum.Enum):
    """How a seat ended (or is doing)."""

    OK = "ok"
    TIMEOUT = "timeout"
    CRASH = "crash"
    PROTOCOL = "protocol"
    DISCONNECT = "disconnect"
    ILLEGAL = "illegal"  # assigned by the referee, never by the sandbox


class Tier(enum.Enum):
    """Isolation level: PLAIN = rlimits + clean env + own session; STRONG = bwrap + seccomp + uid slot."""

    PLAIN = "plain"
    STRONG = "strong"


@dataclass(frozen=True)
class Limits:
    """Per-bot resource and time limits."""

    decision_ms: float = 1000.0
    bank_ms: float = 10_000.0
    startup_ms: float = 5000.0
    memory_mb: int = 512
    #: the CPU safety net's margin (s) above what the time rules grant (docs/sandbox.md, "CPU time")
    cpu_seconds: int = 120
    #: the most decisions one seat is asked in a game: the static CPU net is set from it, and the
    #: referee voids a game that would go beyond it (the rules keep games far below: a few hundred)
    max_decisions: int = 2000
    max_line_bytes: int = 64 * 1024  # a reply is ~100 bytes; nothing a bot needs to say comes near
    #: the longest message the referee may send (a real decide is ~1 KB); more is the referee's fault
    max_request_bytes: int = 256 * 1024
    max_stderr_bytes: int = 64 * 1024
    max_open_files: int = 32
    #: SIGSTOP the bot between requests so it cannot compute on other players' time.
    freeze: bool = True
    #: fork each bot from a warmed template of its tier (sandbox/fork_server.py) instead of a cold start
    fork_server: bool = True

    def __post_init__(self) -> None:
        for name in ("decision_ms", "startup_ms", "memory_mb", "cpu_seconds", "max_decisions", "max_line_bytes",
                     "max_request_bytes", "max_open_files"):
            if getattr(self, name) <= 0:
                raise ValueError(f"Limits.{name} must be positive, got {getattr(self, name)!r}")
        for name in ("bank_ms", "max_stderr_bytes"):
            if getattr(self, name) < 0:
                raise ValueError(f"Limits.{name} must not be negative, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class BotBundle:
    """A bot's source plus the extra modules (name -> source) it may import inside the sandbox.

    Package modules are named with the ``.__init__`` suffix (``"sandbox.__init__"``); a parent
    package that is not given is created empty.
    """

    name: str
    source: str
    modules: Mapping[str, str] = field(default_factory=dict)
    #: sandbox.languages: "python" (imported by the runner, with ``modules``) or a program's language
    language: str = "python"

    @classmethod
    def from_file(cls, path: str | Path, modules: Mapping[str, str] | None = None,
                  name: str | None = None) -> BotBundle:
        """Read a bot file (by the trusted side) into a bundle."""
        p = Path(path)
        return cls(name=name or p.stem, source=p.read_text(encoding="utf-8"), modules=dict(modules or {}))


def modules_from_package(root: str | Path, package: str) -> dict[str, str]:
    """Collect every ``.py`` file of the package directory ``root`` as bundle modules named under ``package``."""
    base = Path(root)
    if not (base / "__init__.py").is_file():
        raise ValueError(f"not a package directory: {str(base)!r}")
    out: dict[str, str] = {}
    for file in sorted(base.rglob("*.py")):
        rel = file.relative_to(base).with_suffix("")
        out[".".join([package, *rel.parts])] = file.read_text(encoding="utf-8")
    return out


@dataclass(frozen=True)
class Reply:
    """The outcome of one request: a status, the reply object when OK, time spent and a short detail."""

    status: Status
    message: dict[str, Any] | None
    elapsed_ms: float
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status is Status.OK
