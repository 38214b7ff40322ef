"""One running bot: spawn, start-up handshake, deadline-bound requests, freezing, cleanup."""
from __future__ import annotations

import dataclasses
import functools
import logging
import os
import secrets
import subprocess
import time
from typing import Any, Mapping, Sequence

from . import fork_server, fork_server_pool, isolation, languages
from .cleanup import describe_exit, find_runner, kill_bot, sweep_bot
from .boot import (BOT_MODULE, CLEAN_ENV, boot_line, boot_message, limit_child, runner_argv, runner_line, start_runner,
                   take_code_line, with_bot_code)
from .framing import Event, FramingError, Outcome, Pipes, decode
from .freezing import Freezer
from .bootline import BotBoot
from .protocol import READY_LINE, Message, encode
from .timing import Clock
from .values import BotBundle, Limits, Reply, SandboxError, Status, Tier

__all__ = ["BotProcess", "BOT_MODULE"]

log = logging.getLogger(__name__)

#: a bot whose output ended is a crash if it exits within this, else a disconnect: a runner that reports
#: an exception and exits took over 0.2 s on a machine at load 12 and was called a disconnect
EXIT_AFTER_EOF_S = 2.0


class BotProcess:
    """One bot in its own subprocess. Misbehaviour becomes a status; only machine faults raise SandboxError."""

    def __init__(self, bundle: BotBundle, limits: Limits, tier: Tier) -> None:
        self.bundle, self.limits, self.tier = bundle, limits, tier
        self.tag = secrets.token_hex(8)  # not a secret: finds this bot's processes in /proc
        self._popen: subprocess.Popen[bytes] | fork_server.ForkedBot | None = None
        self._pipes: Pipes | None = None
        self._slot: isolation.UidSlot | None = None
        self._server: fork_server.ForkServer | None = None  # the fork server this bot came from, if any
        self._server_key: object = None
        # its fork server's (kept after close): the tag in its processes' argv, its template's and its keeper's pid
        self.server_tag: str | None = None
        self.server_pid: int | None = None
        self.keeper_pid: int | None = None
        self.language = languages.language_named(bundle.language)
        self._rest = Freezer(tier, limits.freeze, self.language.threads)  # keeps it still; knows its host pid
        self._failure: Reply | None = None
        self._closed, self.startup_ms = False, 0.0
        self._clock = Clock(bundle.name, limits, tier)
        self._exit_code: int | None = None
        self._build_log = ""

    # -- start-up ---------------------------------------------------------------------------
    @classmethod
    def start(cls, bundle: BotBundle, limits: Limits, tier: Tier, python: str | None = None) -> BotProcess:
        """Spawn the bot and wait for ``ready``; a bot that fails gets a CRASH/TIMEOUT/PROTOCOL status."""
        self = cls(bundle, limits, tier)
        try:
            program = None
            if not self.language.is_python:
                program = languages.program_for(self.language, bundle.source, limits.memory_mb,
                                                sandboxed=tier is Tier.STRONG)
            self._spawn(python, program)
        except languages.BuildError as exc:  # the bot's own source: a crash before it could start
            self._build_log = str(exc)
            self._failure = Reply(Status.CRASH, None, 0.0, "its source did not build")
        except BaseException:
            self.close()
            raise
        return self

    @classmethod
    def start_command(cls, name: str, argv: Sequence[str], limits: Limits) -> BotProcess:
        """Run a bot program in any language that speaks the protocol itself (docs/protocol.md).

        Plain tier only (rlimits, clean environment, own session, killed with its group): for a
        user's own bots on their own machine, never for the ladder. There is no runner, so the
        program is ready at once and answers ``hello`` itself.
        """
        self = cls(BotBundle(name, ""), limits, Tier.PLAIN)
        try:
            self._popen = subprocess.Popen(
                list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=dict(CLEAN_ENV), close_fds=True, start_new_session=True, bufsize=0,
                preexec_fn=functools.partial(limit_child, limits),
            )
        except OSError as exc:
            self.close()
            raise SandboxError(f"cannot start bot program {argv[0]!r}: {exc.strerror}") from None
        assert self._popen.stdin and self._popen.stdout and self._popen.stderr
        self._pipes = Pipes(self._popen.stdin.fileno(), self._popen.stdout.fileno(), self._popen.stderr.fileno(),
                            limits.max_line_bytes, limits.max_stderr_bytes)
        self._runner_pid = self._popen.pid
        self._rest.after_reply()
        return self

    @property
    def _filter(self) -> isolation.Filter:
        if self.language.is_python:
            return isolation.Filter.PYTHON
        return isolation.Filter.THREADED_PROGRAM if self.language.threads else isolation.Filter.PROGRAM

    def _spawn(self, python: str | None, program: languages.Program | None) -> None:
        interp = isolation.interpreter(python)
        boot = boot_message(self.bundle, self.limits, interp.same_as_parent, program, self.language.threads,
                            self._clock.cpu_follows)
        cmd = runner_argv(interp.executable, self.tag)
        binds = program.binds if program is not None else ()
        if fork_server_pool.uses_fork_servers(self.tier, self.limits):
            self._spawn_forked(interp, boot, python, binds)
            return
        if self.tier is Tier.STRONG:
            problem = isolation.strong_tier_problem(interp)
            if problem is not None:
                raise SandboxError(f"strong tier requested but unavailable: {problem}")
            self._slot = isolation.acquire_slot()
            boot = dataclasses.replace(isolation.confine(boot, self._slot, self._filter), seal_mounts=True)
            cmd = isolation.bwrap_argv(interp, binds=binds) + ["--", *cmd]
        else:
            boot = dataclasses.replace(boot, parent=os.getpid())
        payload = runner_line(interp.same_as_parent) + boot_line(boot)

        started = time.monotonic()
        deadline = started + self.limits.startup_ms / 1000.0
        self._popen, self._pipes = start_runner(cmd, self.limits.max_line_bytes, self.limits.max_stderr_bytes)
        if self.tier is Tier.PLAIN:
            self._runner_pid = self._popen.pid
        self._rest.before_running()  # bot code runs once the boot line is in
        outcome = self._pipes.exchange(payload, deadline, want_line=True)
        if self._ready(outcome, started) and self.tier is Tier.STRONG:
            assert self._slot is not None
            self._runner_pid = find_runner(self._popen.pid, self._slot.uid)
            if self._runner_pid is None:
                log.warning("%s: runner process not found; it will not be frozen between requests", self.bundle.name)
        if self._failure is None:
            self._rest.after_reply()

    def _ready(self, outcome: Outcome, started: float) -> bool:
        """Whether the start-up exchange ended with ``ready``; otherwise the bot fails with why."""
        self.startup_ms = (time.monotonic() - started) * 1000.0
        if outcome.event is Event.LINE and outcome.line == READY_LINE:
            log.debug("%s: ready in %.1f ms", self.bundle.name, self.startup_ms)
            return True
        if outcome.event is Event.TIMEOUT:
            reply = Reply(Status.TIMEOUT, None, self.startup_ms, f"not ready within {self.limits.startup_ms:g} ms")
        else:
            reply = self._failure_reply(outcome, during="start-up")
        self._fail(reply)
        return False

    def _spawn_forked(self, interp: isolation.Interpreter, boot: BotBoot, python: str | None,
                      binds: tuple[str, ...]) -> None:
        """A fresh child of a warmed template of this tier (sandbox/fork_server.py)."""
        modules = boot.modules
        assert modules is not None
        boot = dataclasses.replace(boot, modules=None)  # the template holds them
        # a program's template imports nothing and binds its runtime: one for every program of that runtime
        key = fork_server_pool.template_key(self.bundle, interp, self.tier) if self.language.is_python else (
            binds, interp.executable, self.tier)
        template = fork_server_pool.fork_server_pool().acquire(  # the template's start is not the bot's
            key, modules, fork_server_pool.preload(modules), python, fork_server_pool.template_startup_ms(self.limits),
            binds, self.tier)
        self._server, self._server_key, self.server_tag, self.server_pid = template, key, template.tag, template.pid
        self._slot = template.slot
        if self.tier is Tier.STRONG:
            boot = isolation.confine(boot, self._slot, self._filter)
        boot = with_bot_code(boot, interp.same_as_parent, self.limits.max_line_bytes)
        started = time.monotonic()
        deadline = started + self.limits.startup_ms / 1000.0
        self._rest.before_running()  # bot code runs once the boot line is in: it goes in with the request
        try:
            child, (stdin, stdout, stderr), rest = template.fork(deadline, boot_line(boot))
        except subprocess.TimeoutExpired:
            raise SandboxError("fork server did not fork in time") from None
        child.stdin, child.stdout, child.stderr = (os.fdopen(stdin, "wb", 0), os.fdopen(stdout, "rb", 0),
                                                   os.fdopen(stderr, "rb", 0))  # closed with the bot
        self._popen, self.keeper_pid = child, child.keeper
        self._pipes = Pipes(stdin, stdout, stderr, self.limits.max_line_bytes, self.limits.max_stderr_bytes)
        self._rest.pinned = child.pinned  # one pin: closed once its template reports it reaped
        outcome = self._pipes.exchange(rest, deadline, want_line=True)
        if boot.say_code is not None and boot.bot is not None and take_code_line(boot.bot, outcome.line):
            outcome = self._pipes.exchange(b"", deadline, want_line=True)
        if self._ready(outcome, started):
            self._rest.after_reply()

    # -- freezing (sandbox/freezing.py) ----------------------------------------------------
    @property
    def _runner_pid(self) -> int | None:
        return self._rest.pid

    @_runner_pid.setter
    def _runner_pid(self, pid: int | None) -> None:
        self._rest.pid = pid

    @property
    def stops(self) -> int:
        """How often the bot had to be stopped with SIGSTOP: it was not at rest when another bot ran."""
        return self._rest.stops

    @property
    def cpu_at_rest_ms(self) -> float:
        """CPU it used between requests anyway (charged to its bank)."""
        return self._rest.cpu_at_rest_ms

    # -- requests -------------------------------------------------------------------------
    def request(self, message: Message | Mapping[str, Any]) -> Reply:
        """Send one message and wait for one reply line within the decision limit plus the bank."""
        if self._failure is not None:
            return Reply(self._failure.status, None, 0.0, self._failure.detail)
        if self._closed:
            return Reply(Status.DISCONNECT, None, 0.0, "bot process already closed")
        assert self._pipes is not None
        payload = encode(message)
        if len(payload) > self.limits.max_request_bytes:  # what the referee says is bounded too
            kind = message.get("type") if isinstance(message, Mapping) else message.TYPE
            raise SandboxError(f"a {kind!r} message of {len(payload)} bytes exceeds the bound of "
                               f"{self.limits.max_request_bytes}")
        if self._pipes.stdout_has_data():
            return self._fail(Reply(Status.PROTOCOL, None, 0.0,
                                    "output outside a request (more than one line per request)"))
        charge = self._rest.charge_at_rest()
        if charge:
            self._clock.bank_left_ms -= charge
            log.debug("%s: %.0f ms of CPU between requests, charged to the bank", self.bundle.name, charge)
        bank_ms, budget_ms = self._clock.budget_ms()
        log.debug("%s <- %s", self.bundle.name, payload[:200])
        cpu_before = self._rest.cpu_mark  # read by charge_at_rest; it does not run until before_running
        self._clock.grant_cpu(self._rest.live_pid(), cpu_before, budget_ms)
        self._rest.before_running()
        outcome = self._pipes.exchange(payload, time.monotonic() + budget_ms / 1000.0, want_line=True)
        self._rest.after_reply()
        elapsed = outcome.elapsed_ms
        cpu_after = self._rest.cpu_mark
        if self.language.threads and cpu_before is not None and cpu_after is not None:
            elapsed = max(elapsed, cpu_after - cpu_before)  # threads side by side: their CPU time counts
        self._clock.spend(elapsed)
        if outcome.event is Event.TIMEOUT or (outcome.event is Event.LINE and self._clock.bank_left_ms < 0):
            self._clock.bank_left_ms = min(self._clock.bank_left_ms, 0.0)
            detail = self._clock.time_limit_detail(outcome.event is Event.TIMEOUT, elapsed, bank_ms, charge)
            return self._fail(Reply(Status.TIMEOUT, None, elapsed, detail))
        if outcome.event not in (Event.LINE, Event.EXTRA):
            return self._fail(self._failure_reply(outcome, during="request"))
        assert outcome.line is not None
        log.debug("%s -> %s", self.bundle.name, outcome.line[:200])
        try:
            reply_message = decode(outcome.line)
        except FramingError as exc:
            return self._fail(Reply(Status.PROTOCOL, None, elapsed, str(exc)))
        if outcome.event is Event.EXTRA:
            return self._fail(self._failure_reply(outcome, during="request"))
        return Reply(Status.OK, reply_message, elapsed, "")

    def notify(self, message: Message | Mapping[str, Any]) -> None:
        """Send a line without waiting for a reply (e.g. ``end``); never raises because of the bot."""
        if self._failure is not None or self._closed or self._pipes is None:
            return
        payload = encode(message)
        log.debug("%s <- %s", self.bundle.name, payload[:200])
        self._rest.before_running()
        self._pipes.exchange(payload, time.monotonic() + self.limits.decision_ms / 1000.0, want_line=False)
        self._rest.after_reply()  # any work on this message is charged to the next request

    def _failure_reply(self, outcome: Outcome, during: str) -> Reply:
        assert self._popen is not None
        if outcome.event is Event.OVERFLOW:
            return Reply(Status.PROTOCOL, None, outcome.elapsed_ms,
                         f"line longer than {self.limits.max_line_bytes} bytes")
        if outcome.event is Event.EXTRA:
            return Reply(Status.PROTOCOL, None, outcome.elapsed_ms, "more than one line in reply")
        if outcome.event is Event.LINE:
            line = outcome.line or b""
            return Reply(Status.PROTOCOL, None, outcome.elapsed_ms, f"expected ready, got {line[:60]!r}")
        # EOF on stdout: exited (crash), or closed stdout but still running (disconnect)
        self._rest.thaw()
        try:
            self._exit_code = self._rest.reap(self._popen, EXIT_AFTER_EOF_S)  # a plain group killed first
        except subprocess.TimeoutExpired:
            return Reply(Status.DISCONNECT, None, outcome.elapsed_ms,
                         f"closed its output during {during} but kept running")
        except SandboxError as exc:  # the fork server went away: the machine's fault, never a status of the bot's
            self._kill()
            raise SandboxError(f"bot {self.bundle.name!r} ended during {during} and its fork server went away: "
                               f"{exc}") from None
        how = describe_exit(self._exit_code)
        # SIGXCPU comes from the kernel at the soft limit; a pid 1 ignores it and gets SIGKILL at the hard one
        net_hit = self._clock.cpu_net_hit(outcome.elapsed_ms, self.language.threads)
        if "SIGXCPU" in how or ("SIGKILL" in how and net_hit):
            how += f" at its CPU safety net (RLIMIT_CPU {self._clock.cpu_limit_s} s)"
        return Reply(Status.CRASH, None, outcome.elapsed_ms, f"{how} during {during}")

    def _fail(self, reply: Reply) -> Reply:
        log.debug("%s: %s (%s)", self.bundle.name, reply.status.value, reply.detail)
        self._failure = reply
        self._kill()
        return reply

    # -- state ----------------------------------------------------------------------------
    @property
    def status(self) -> Status:
        return Status.OK if self._failure is None else self._failure.status

    @property
    def failure(self) -> Reply | None:
        return self._failure

    @property
    def stderr_tail(self) -> str:
        """The bot's last words on stderr (or, for a source that did not build, the compiler's)."""
        if self._build_log:
            return self._build_log
        return self._pipes.err.text() if self._pipes else ""

    @property
    def time_used_ms(self) -> float:
        return self._clock.used_ms

    @property
    def bank_left_ms(self) -> float:
        return max(0.0, self._clock.bank_left_ms)

    def new_game(self) -> None:
        """Refill the time bank: the same process is about to play another game."""
        self._clock.new_game()

    @property
    def pid(self) -> int | None:
        """Host pid of the bot's python (for tests and diagnostics)."""
        return self._runner_pid

    @property
    def uid(self) -> int | None:
        return self._slot.uid if self._slot else None

    # -- cleanup --------------------------------------------------------------------------
    def _kill(self) -> None:
        """SIGKILL everything of the bot and reap; keeps the stderr tail."""
        if self._popen is None:
            return
        code = kill_bot(self.bundle.name, self._popen, self._rest.pinned)
        if code is not None:
            self._exit_code = code
        if self._pipes is not None:
            self._pipes.drain_stderr(time.monotonic() + 0.2)
        uid = self._slot.uid if self.tier is Tier.STRONG and self._slot is not None else None
        sweep_bot(self.bundle.name, uid, self.tag)

    def _leave_to_fork_server(self) -> bool:
        """A fork server's child that did not fail: SIGKILL it; its template reaps it and reports its exit
        (read before its next fork: ``ForkServerPool.acquire``). False for any other bot: ``_kill`` ends it."""
        child = self._popen
        if not isinstance(child, fork_server.ForkedBot) or self._failure is not None or child.pid is None:
            return False
        child.kill()
        if self._pipes is not None:
            self._pipes.take_stderr()
        return True

    def close(self) -> None:
        """Kill the whole process tree / namespace, reap (or leave it to its fork server), free the slot; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._rest.close()
        left = False  # killed, its reaping left to its fork server
        try:
            if self._popen is not None:
                if not (left := self._leave_to_fork_server()):
                    self._kill()
                for stream in (self._popen.stdin, self._popen.stdout, self._popen.stderr):
                    if stream is not None:
                        try:
                            stream.close()
                        except OSError:
                            pass
        finally:
            if self._server is not None:  # the template keeps its slot; it serves the next bot if its child is gone
                template, self._server, self._slot = self._server, None, None
                if not left and self._exit_code is None and self._popen is not None and self._popen.returncode is None:
                    template.close()
                else:
                    fork_server_pool.fork_server_pool().release(self._server_key, template)
            if self._slot is not None:
                self._slot.release()
                self._slot = None

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            try:
                self.close()
            except Exception:  # noqa: BLE001 - never raise from a finaliser
                pass
