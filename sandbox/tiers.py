"""Tier detection: the strongest sandbox tier that actually works on this machine, tried once."""
from __future__ import annotations

import logging
import threading

from . import isolation
from .process import BotProcess
from .values import BotBundle, Limits, Status, SandboxError, Tier
from .fork_server_pool import close_fork_servers

log = logging.getLogger(__name__)

_detected: dict[str, Tier] = {}
_problems: dict[str, str] = {}
_detect_lock = threading.Lock()


def strong_tier_summary(python: str | None = None) -> str:
    """One line for the user: which tier runs bots here, and how (or why not the strong one)."""
    problem = strong_tier_missing(python)
    if problem is None:
        return f"strong tier: bubblewrap + seccomp, {isolation.confinement().summary}"
    return f"plain tier only: {problem}"


def strong_tier_missing(python: str | None = None) -> str | None:
    """Why ``detect_tier`` settled for the plain tier (None when the strong tier works)."""
    detect_tier(python)
    return _problems.get(isolation.interpreter(python).executable)


def detect_tier(python: str | None = None) -> Tier:
    """The strongest tier that actually works here: tries a trivial bot under STRONG once, cached."""
    interp = isolation.interpreter(python)
    with _detect_lock:
        if interp.executable in _detected:
            return _detected[interp.executable]
        problem = isolation.strong_tier_problem(interp)
        if problem is None:
            bundle = BotBundle("probe", "def act(message):\n    return {'probe': message.get('n')}\n")
            try:  # both ways a strong-tier bot starts: cold, and forked from a fork server
                for fork_server in (False, True):
                    limits = Limits(startup_ms=10_000, fork_server=fork_server)
                    with BotProcess.start(bundle, limits, Tier.STRONG, python=python) as bot:
                        reply = bot.request({"type": "hello", "n": 7})
                        if reply.status is not Status.OK or reply.message != {"probe": 7}:
                            problem = (f"probe bot failed ({'forked' if fork_server else 'cold'}): "
                                       f"{reply.status.value} "
                                       f"{reply.detail!r}; stderr {bot.stderr_tail[-500:]!r}")
                            break
            except SandboxError as exc:
                problem = str(exc)
            finally:
                close_fork_servers()  # the probe's fork server is not kept in this process
        tier = Tier.STRONG if problem is None else Tier.PLAIN
        if problem is None:
            log.info("sandbox tier: strong (bubblewrap + seccomp, %s) with %s", isolation.confinement().summary,
                     interp.executable)
        else:
            log.warning("sandbox tier: plain only, strong tier unavailable: %s", problem)
            _problems[interp.executable] = problem
        _detected[interp.executable] = tier
        return tier
