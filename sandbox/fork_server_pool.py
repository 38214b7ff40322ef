"""The fork servers of this process (sandbox/fork_server.py): an idle template is reused by the next bot of the
same trusted modules, a busy one never shared, and a table's templates are started together ahead of its bots
(``warm_fork_servers``)."""
from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from typing import Any, Mapping

from . import isolation, languages
from .boot import BOT_MODULE, bundle_modules
from .cleanup import REAP_TIMEOUT_S
from .fork_server import ForkServer, modules_digest
from .values import BotBundle, Limits, SandboxError, Tier

__all__ = ["ForkServerPool", "close_fork_servers", "fork_server_pool", "uses_fork_servers", "warm_fork_servers"]

log = logging.getLogger(__name__)


class ForkServerPool:
    """The templates of this process, by bundle: an idle one is reused, a busy one never shared.
    At most ``max_idle`` wait idle (each holds a uid slot); the oldest beyond that are closed."""

    def __init__(self, max_idle: int = 8) -> None:
        self._idle: dict[object, list[ForkServer]] = {}
        self._order: list[ForkServer] = []  # idle templates, oldest first
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self.max_idle = max_idle

    def _forget(self) -> None:
        """In a forked child: the parent's templates stay the parent's; drop our copies of their sockets."""
        for server in self._order:
            server.disown()
        self._idle, self._order, self._pid = {}, [], os.getpid()

    def acquire(self, key: object, modules: Mapping[str, list[Any]], preload: tuple[str, ...], python: str | None,
                startup_ms: float, binds: tuple[str, ...] = (), tier: Tier = Tier.STRONG) -> ForkServer:
        """An idle template for the bundle ``key`` (the same key, the same trusted modules) whose last child
        is reported gone, or a new one. A template whose last child's exit is not reported within
        ``REAP_TIMEOUT_S`` (or that went away) is closed: closing it ends every process of its slot."""
        while True:
            with self._lock:
                idle = self._idle.get(key)
                if not idle:
                    break
                # the one whose last child is reported gone already, else the one released first (a closed bot's
                # process is torn down meanwhile: a table's next bots do not wait for the last one's end)
                server = idle.pop(next((i for i, z in enumerate(idle) if z.reported()), 0))
                self._order.remove(server)
            if server.alive and server.settle(time.monotonic() + REAP_TIMEOUT_S):
                return server
            server.close()
        return ForkServer(modules, preload, python, startup_ms, binds, tier)

    def warm(self, key: object, count: int, modules: Mapping[str, list[Any]], preload: tuple[str, ...],
             python: str | None, startup_ms: float, binds: tuple[str, ...] = (), tier: Tier = Tier.STRONG) -> int:
        """Have ``count`` idle templates for the bundle ``key`` (at most ``max_idle``): those missing are started
        one after another without waiting, then waited for, so that they import their modules at the same time
        and a table's first bots wait for the slowest start rather than the sum of them. A template that does not
        start is left out (the bot that needs one starts its own and reports why); returns how many were started."""
        with self._lock:
            missing = min(count, self.max_idle) - len(self._idle.get(key, ()))
        started: list[ForkServer] = []
        try:
            try:
                for _ in range(missing):
                    started.append(ForkServer(modules, preload, python, startup_ms, binds, tier, wait=False))
            except SandboxError as exc:
                log.warning("fork servers started ahead: %s", exc)
            ready = 0
            while started:
                server = started[0]
                try:
                    server.ready()
                except SandboxError as exc:
                    log.warning("a fork server started ahead: %s", exc)
                else:
                    self.release(key, server)
                    ready += 1
                started.pop(0)
            return ready
        finally:
            for server in started:  # interrupted: none of them is left holding its uid slot
                server.close()

    def release(self, key: object, server: ForkServer) -> None:
        """Give back a template whose child is gone or killed (its exit report is read before its next fork,
        ``acquire``); a template in doubt is closed instead."""
        evicted = []
        with self._lock:
            if server.alive and self._pid == os.getpid():
                self._idle.setdefault(key, []).append(server)
                self._order.append(server)
                while len(self._order) > self.max_idle:
                    oldest = self._order.pop(0)
                    for templates in self._idle.values():
                        if oldest in templates:
                            templates.remove(oldest)
                    evicted.append(oldest)
            else:
                evicted.append(server)
        for old in evicted:
            old.close()

    def close(self) -> None:
        with self._lock:
            servers, self._idle, self._order = self._order, {}, []
        for server in servers:
            server.close()


_POOL = ForkServerPool()
os.register_at_fork(after_in_child=_POOL._forget)
atexit.register(_POOL.close)


def fork_server_pool() -> ForkServerPool:
    return _POOL


def close_fork_servers() -> None:
    """Close this process's idle fork servers (a worker about to exit)."""
    _POOL.close()


def uses_fork_servers(tier: Tier, limits: Limits) -> bool:
    """Whether bots of this tier start from fork servers (unless switched off): always in the strong tier; in the
    plain tier only from a process's main thread, because a plain template dies with the thread that started it
    (``PR_SET_PDEATHSIG`` follows a thread) and the pool shares templates between threads."""
    if not limits.fork_server:
        return False
    return tier is Tier.STRONG or threading.current_thread() is threading.main_thread()


def template_key(bundle: BotBundle, interp: isolation.Interpreter, tier: Tier) -> tuple[Any, ...]:
    """The fork-server pool's key of a Python bot's template: the same trusted modules, interpreter and tier."""
    return modules_digest(bundle.modules), interp.executable, tier


def preload(modules: Mapping[str, list[Any]]) -> tuple[str, ...]:
    return tuple(name for name in modules if name != BOT_MODULE)


def template_startup_ms(limits: Limits) -> float:
    return max(10_000.0, limits.startup_ms)


def warm_fork_servers(bundle: BotBundle, limits: Limits, tier: Tier, count: int, python: str | None = None) -> int:
    """Start at once the fork servers that ``count`` Python bots of ``bundle``'s trusted modules are about to take
    (``ForkServerPool.warm``): the bots of a table then wait for about one template's start, not for one after
    another's. Nothing where they start cold (a program, a tier or limits without fork servers) or for one bot;
    returns how many templates were started."""
    if count < 2 or not languages.language_named(bundle.language).is_python or \
            not uses_fork_servers(tier, limits):
        return 0
    interp = isolation.interpreter(python)
    modules = bundle_modules(bundle.modules, interp.same_as_parent)
    return fork_server_pool().warm(template_key(bundle, interp, tier), count, modules, preload(modules),
                                               python, template_startup_ms(limits), (), tier)

