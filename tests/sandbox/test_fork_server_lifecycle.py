"""A fork server's bot starts pre-forked and closes without waiting for its end (issue 28): what still holds."""
from __future__ import annotations

import binascii
import marshal
import os
import signal
import time
from types import CodeType
from typing import Any

import pytest
from sandbox_helpers import ECHO_SOURCE, assert_gone, fast_limits, needs_strong

from sandbox import BotBundle, BotProcess, Status, Tier, close_fork_servers, fork_server, fork_server_pool, process
from sandbox.bootline import BootLimits, BotBoot
from sandbox.cleanup import children
from sandbox.boot import BOT_MODULE, with_bot_code
from sandbox.procscan import live_descendants, processes_of_uid

pytestmark = needs_strong
FORGED = b'{"type":"code","code":"YQ=="}\n'  # what a bot would like its next start to load instead of its source
FORGER = ("import os\n"
          "for fd in range(3, 16):\n"
          "    try:\n"
          f"        os.write(fd, {FORGED!r})\n"
          "    except OSError:\n"
          "        pass\n") + ECHO_SOURCE


def start(name: str, source: str = ECHO_SOURCE) -> BotProcess:
    return BotProcess.start(BotBundle(name, source), fast_limits(fork_server=True), Tier.STRONG)


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return int(f.read().rsplit(b")", 1)[1].split()[1])


def cached_code(source: str) -> CodeType | None:
    """The code the next start of ``source`` would be sent instead of its source, if any."""
    boot = with_bot_code(BotBoot(BootLimits(1, 2, 3, None, 32, None, None), None, BOT_MODULE, source), True, 65536)
    if boot.bot_code is None:
        assert boot.say_code == 65536 and boot.bot == source
        return None
    assert boot.bot is None and boot.say_code is None
    code = marshal.loads(binascii.a2b_base64(boot.bot_code))
    assert isinstance(code, CodeType)
    return code


def test_a_closed_bot_is_gone_before_its_uid_slot_serves_the_next_bot() -> None:
    close_fork_servers()  # an earlier test's idle ones: the next bot must come from the first one's
    first = start("first")
    assert first.status is Status.OK and first.pid is not None and first.uid is not None
    pid, uid, keeper = first.pid, first.uid, parent_of(first.pid)
    before = live_descendants(os.getpid())
    assert pid in before and keeper in before
    first.close()  # returns at once: its fork server reaps it
    second = start("second")
    try:
        assert second.uid == uid, "the same fork server serves the next bot"
        now = live_descendants(os.getpid())
        assert now.get(pid) != before[pid] and now.get(keeper) != before[keeper]  # reaped, not only killed
        assert processes_of_uid(uid) == [second.pid]  # nothing of the last bot shares its slot
        reply = second.request({"type": "decide", "n": 1})
        assert reply.status is Status.OK and reply.message == {"echo": {"type": "decide", "n": 1}}
    finally:
        second.close()
    assert_gone(second)


def test_a_fork_server_whose_last_bot_is_not_reported_gone_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fork_server_pool, "REAP_TIMEOUT_S", 0.5)
    close_fork_servers()
    first = start("first")
    assert first.pid is not None
    template = getattr(first._popen, "server", None)
    assert isinstance(template, fork_server.ForkServer)
    keeper = parent_of(first.pid)
    started = live_descendants(os.getpid())[keeper]
    os.kill(keeper, signal.SIGSTOP)  # its bot dies, but no exit is reported while its keeper stands still
    first.close()
    second = start("second")
    try:
        assert getattr(second._popen, "server", None) is not template and not template.alive
        assert second.request({"type": "decide", "n": 2}).status is Status.OK
    finally:
        second.close()
    deadline = time.monotonic() + 10  # the closed server's namespace is torn down by the kernel
    while live_descendants(os.getpid()).get(keeper) == started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_descendants(os.getpid()).get(keeper) != started


def test_a_bot_that_fails_at_once_leaves_its_servers_next_child_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that ends as soon as it has its pipes (here: it fails to import) lets its template fork the next
    child at once. Its pid is found before it gets its pipes: a slow referee (each look at the template's
    children delayed, as under load) kills the failed bot, never the waiting child the next start needs."""
    def slow_children(pid: int) -> list[int]:
        time.sleep(0.3)
        return children(pid)

    monkeypatch.setattr(fork_server, "children", slow_children)
    close_fork_servers()
    failed = start("failed", "import no_such_module\n")
    template = getattr(failed._popen, "server", None)
    assert failed.status is Status.CRASH and "ModuleNotFoundError" in failed.stderr_tail
    failed_pid = failed.pid
    failed.close()
    second = start("second")
    try:
        assert second.status is Status.OK, second.stderr_tail
        assert getattr(second._popen, "server", None) is template and second.pid != failed_pid
        assert second.request({"type": "decide", "n": 3}).status is Status.OK
    finally:
        second.close()
    assert_gone(second)


def test_a_bot_starts_again_from_the_code_its_first_runner_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    source = ECHO_SOURCE + f"# {os.getpid()} {time.monotonic_ns()}: a source no earlier test started\n"
    assert cached_code(source) is None
    boots: list[BotBoot] = []

    def recording(*args: Any) -> BotBoot:
        boots.append(with_bot_code(*args))
        return boots[-1]

    monkeypatch.setattr(process, "with_bot_code", recording)
    for n in range(2):
        with start("again", source) as bot:
            reply = bot.request({"type": "decide", "n": n})
            assert reply.status is Status.OK and reply.message == {"echo": {"type": "decide", "n": n}}
    assert [(boot.bot is None, boot.bot_code is None, boot.say_code) for boot in boots] == [
        (False, True, fast_limits().max_line_bytes), (True, False, None)]
    assert cached_code(source) == compile(source, f"<bundle:{BOT_MODULE}>", "exec", dont_inherit=True)


def test_a_code_line_the_bot_writes_itself_is_never_kept() -> None:
    """The runner says the compiled code before the bot's module runs; a line the module writes comes after
    it (a protocol fault) and is kept nowhere, nor is one written when the referee sent the code."""
    for _ in range(2):
        with start("forger", FORGER) as bot:
            failure = bot.failure
            assert failure is not None and failure.status is Status.PROTOCOL
            assert failure.detail in ("more than one line in reply", f"expected ready, got {FORGED[:-1]!r}")
        assert cached_code(FORGER) == compile(FORGER, f"<bundle:{BOT_MODULE}>", "exec", dont_inherit=True)
