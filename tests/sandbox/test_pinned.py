"""sandbox/pinned.py: a bot's process is signalled through a pidfd taken while it was known to be it, so a process
reaped since, its pid free for another, is never signalled (the referee runs as root); and a bot that fails and is
then closed gets no signal by its bare pid once it is reaped, in every tier, cold and forked."""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from typing import Any, Iterator

import pytest
from sandbox_helpers import ALL_TIERS, fast_limits, gone_within, live_threads

from sandbox import BotBundle, BotProcess, Status, Tier
from sandbox.pinned import Pinned

SLEEP = [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"]


class Sent:
    """Every ``os.kill`` and ``os.killpg`` of this process (passed on), with whether ``reaped()`` said the bot's
    process was reaped at that moment."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, int, int, bool]] = []
        self.reaped = lambda: False
        for name in ("kill", "killpg"):
            real = getattr(os, name)
            monkeypatch.setattr(os, name, self._recording(name, real))

    def _recording(self, name: str, real: Any) -> Any:
        def call(pid: int, sig: int) -> None:
            self.calls.append((name, pid, sig, self.reaped()))
            real(pid, sig)
        return call


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Sent:
    return Sent(monkeypatch)


@pytest.fixture
def child() -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(SLEEP, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    try:
        yield process
    finally:
        process.kill()
        process.wait(timeout=60)


def test_a_pinned_process_is_signalled_through_its_pidfd(child: subprocess.Popen[str], sent: Sent) -> None:
    pinned = Pinned(child.pid)
    assert pinned.alive()
    pinned.signal(signal.SIGTERM)
    assert child.wait(timeout=60) == -signal.SIGTERM
    assert sent.calls == []  # no bare pid: the pidfd carried it


def test_a_reaped_process_gets_nothing_and_its_group_nothing(child: subprocess.Popen[str], sent: Sent) -> None:
    pinned = Pinned(child.pid)
    child.kill()
    child.wait(timeout=60)  # reaped: its pid may be another process's from now on
    before = len(sent.calls)
    pinned.signal(signal.SIGKILL)
    pinned.signal_group(signal.SIGSTOP)
    assert not pinned.alive() and pinned.gone
    assert sent.calls[before:] == []


def test_an_unreaped_leader_still_owns_its_group_id(child: subprocess.Popen[str], sent: Sent) -> None:
    pinned = Pinned(child.pid)
    pinned.signal_group(signal.SIGTERM)  # a zombie until reaped below: the group's id is still its own
    assert sent.calls == [("killpg", child.pid, signal.SIGTERM, False)]
    assert child.wait(timeout=60) == -signal.SIGTERM


def test_a_process_that_is_not_the_one_meant_is_never_signalled(child: subprocess.Popen[str], sent: Sent) -> None:
    pinned = Pinned(child.pid, holds=lambda pid: False)
    pinned.signal(signal.SIGKILL)
    pinned.signal_group(signal.SIGKILL)
    child.terminate()  # a SIGKILL sent before would have won
    assert child.wait(timeout=60) == -signal.SIGTERM and sent.calls == [("kill", child.pid, signal.SIGTERM, False)]


def test_without_pidfds_the_pid_is_signalled_as_it_is(child: subprocess.Popen[str], sent: Sent,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pidfd(pid: int, flags: int = 0) -> int:
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(os, "pidfd_open", no_pidfd)
    pinned = Pinned(child.pid)
    pinned.signal(signal.SIGTERM)
    assert child.wait(timeout=60) == -signal.SIGTERM and ("kill", child.pid, signal.SIGTERM, False) in sent.calls
    pinned.close()
    pinned.signal(signal.SIGKILL)  # let go: nothing more
    assert [c for c in sent.calls if c[2] == signal.SIGKILL] == []


@pytest.mark.parametrize("tier", ALL_TIERS, ids=lambda t: t.value)
@pytest.mark.parametrize("fork_server", [True, False], ids=["forked", "cold"])
def test_a_failed_bot_is_never_signalled_by_its_bare_pid_once_reaped(tier: Tier, fork_server: bool,
                                                                     sent: Sent) -> None:
    """A bot that crashes in a request is killed and reaped at once (its failure), then closed: the close's second
    kill, and every signal before, go through the pin, so nothing reaches its pid once it is reaped."""
    bot = BotProcess.start(BotBundle("crasher", "import os\n\ndef act(message):\n    os._exit(3)\n"),
                           fast_limits(fork_server=fork_server), tier)
    popen = bot._popen
    assert bot.status is Status.OK and popen is not None and bot.pid is not None
    pid = bot.pid
    sent.reaped = lambda: popen.returncode is not None
    assert bot.request({"type": "decide"}).status is Status.CRASH
    bot.close()
    assert popen.returncode is not None  # reaped: by the failure's kill, or by its fork server's report
    assert [c for c in sent.calls if c[1] == pid and c[3]] == []
    if tier is Tier.STRONG:  # its runner is reaped inside its namespace, unseen: only ever signalled by its pidfd
        assert [c for c in sent.calls if c[1] == pid] == []


EXEC_CHILD = """import os, subprocess

def act(message):
    if message.get("mode") == "child":  # a child in the bot's group that carries no tag once it execs
        return {"child": subprocess.Popen(["/bin/sleep", "600"]).pid}
    os._exit(3)
"""


def test_a_crashed_plain_bots_exec_child_goes_with_its_group() -> None:
    """A cold plain bot leaves an exec'd child in its group, then crashes: the group is killed once the bot has
    exited and before it is reaped (until then its id is the bot's own), so the child, which the tag sweep cannot
    find, goes too."""
    bot = BotProcess.start(BotBundle("exec-child", EXEC_CHILD), fast_limits(fork_server=False), Tier.PLAIN)
    said = bot.request({"type": "decide", "mode": "child"}).message
    assert said is not None
    child = said["child"]
    assert live_threads(child)
    assert bot.request({"type": "decide"}).status is Status.CRASH
    bot.close()
    assert gone_within(child, 30)
