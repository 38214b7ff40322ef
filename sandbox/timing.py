"""One bot's time under the rules (docs/sandbox.md "Time"): the per-decision limit, the game's bank,
the CPU it used between requests (charged to the bank), and the RLIMIT_CPU net above them, raised as
requests are granted where the referee may."""
from __future__ import annotations

import functools
import math
import os
import resource

from . import isolation
from .boot import game_cpu_seconds, start_cpu_seconds
from .values import Limits, SandboxError, Tier

__all__ = ["Clock", "cpu_follows"]


@functools.lru_cache(maxsize=1)
def _has_cap_sys_resource() -> bool:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            caps = next(int(line.split()[1], 16) for line in f if line.startswith("CapEff:"))
    except (OSError, StopIteration, ValueError):
        return False
    return bool(caps >> 24 & 1)  # CAP_SYS_RESOURCE


def cpu_follows(tier: Tier) -> bool:
    """Whether the referee may raise a bot's soft RLIMIT_CPU from outside: a bot of its own uid (plain
    tier), in a user namespace it created (it holds every capability there), or CAP_SYS_RESOURCE
    (root here lacks it: measured, prlimit on a uid slot's bot fails with EPERM)."""
    if tier is Tier.PLAIN or isolation.confinement() is isolation.Confinement.USER_NAMESPACE:
        return True
    return _has_cap_sys_resource()


class Clock:
    """The time one bot has used and has left in a game, and its CPU net."""

    def __init__(self, name: str, limits: Limits, tier: Tier) -> None:
        self.name = name
        self.limits = limits
        self.used_ms = 0.0
        self.bank_left_ms = float(limits.bank_ms)
        #: whether this referee may raise the bot's soft RLIMIT_CPU (same uid, its user namespace, or
        #: CAP_SYS_RESOURCE); else the soft limit sits at the whole game's grant from the start
        self.cpu_follows = cpu_follows(tier)
        self.cpu_limit_s = start_cpu_seconds(limits) if self.cpu_follows else game_cpu_seconds(limits)
        self.request_cpu_ms: float | None = None  # its CPU time when the current request was sent

    def new_game(self) -> None:
        """Refill the time bank: the same process is about to play another game."""
        self.used_ms = 0.0
        self.bank_left_ms = float(self.limits.bank_ms)

    def budget_ms(self) -> tuple[float, float]:
        """(what is left in its bank, what the next request may take: the decision limit plus the bank)."""
        bank_ms = max(0.0, self.bank_left_ms)
        return bank_ms, self.limits.decision_ms + bank_ms

    def spend(self, elapsed_ms: float) -> None:
        """A request took ``elapsed_ms``: what passes the decision limit comes out of the bank."""
        self.used_ms += elapsed_ms
        self.bank_left_ms -= max(0.0, elapsed_ms - self.limits.decision_ms)

    def time_limit_detail(self, timed_out: bool, elapsed: float, bank_ms: float, at_rest_ms: float) -> str:
        """Which of the time rules ran out: the decision limit (its bank already spent) or the bank."""
        limit = self.limits.decision_ms
        if not timed_out and elapsed <= limit:
            return f"time bank: {at_rest_ms:.0f} ms of CPU between requests overdrew its bank"
        when = "no reply within" if timed_out else f"replied after {elapsed:.0f} ms, beyond"
        if bank_ms <= 0:
            return f"decision limit: {when} {limit:g} ms (its time bank is spent)"
        return f"time bank: {when} the decision limit of {limit:g} ms plus the {bank_ms:.0f} ms left in its bank"

    def grant_cpu(self, pid: int | None, cpu_ms: float | None, budget_ms: float) -> None:
        """Raise the bot's soft RLIMIT_CPU to at least its CPU so far + this request's budget + the
        margin (``Limits.cpu_seconds``): the time rules decide when a bot is out of time; the rlimit is
        only a net above them (a program's threads can use CPU faster than the clock runs)."""
        self.request_cpu_ms = cpu_ms
        if not self.cpu_follows or cpu_ms is None or pid is None:
            return
        hard = game_cpu_seconds(self.limits) + 1
        need = min(math.ceil((cpu_ms + budget_ms) / 1000.0) + int(self.limits.cpu_seconds), hard - 1)
        if need <= self.cpu_limit_s:
            return
        try:
            resource.prlimit(pid, resource.RLIMIT_CPU, (need, hard))
        except ProcessLookupError:
            return  # it is gone: the request sees why
        except OSError as exc:  # the machine's fault: the bot would be ended below what it was granted
            raise SandboxError(f"cannot raise the CPU limit of bot {self.name!r} (pid {pid}) "
                               f"to {need} s: {exc.strerror}") from None
        self.cpu_limit_s = need

    def cpu_net_hit(self, elapsed_ms: float, threads: bool) -> bool:
        """Whether the CPU it may have used in this request reaches its RLIMIT_CPU: a signal from
        the kernel, not from the referee (a program's threads count once per core)."""
        cpu_ms = self.request_cpu_ms
        if cpu_ms is None:
            return False
        cores = (os.cpu_count() or 1) if threads else 1
        return cpu_ms + elapsed_ms * cores >= self.cpu_limit_s * 1000.0 - 1000.0
