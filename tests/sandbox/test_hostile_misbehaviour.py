"""Hostile bots on every tier: spinning, sleeping, protocol abuse, floods, a memory hog, inherited
descriptors, an orphan daemon; each gets its status, and the witness bot is unaffected.

The battery's promises and its ``run``: hostile_helpers.py.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hostile_helpers import run
from sandbox_helpers import assert_gone, fast_limits, gone_within, hostile_bundle, live_threads, message_of

from sandbox import BotProcess, Status, Tier


# -- every tier ---------------------------------------------------------------------------------
def test_sleep_forever_times_out(tier: Tier, witness: BotProcess) -> None:
    replies, bot = run("sleep_forever", tier, [{"type": "decide"}, {"type": "decide"}],
                       fast_limits(decision_ms=200, bank_ms=100))
    assert [r.status for r in replies] == [Status.TIMEOUT, Status.TIMEOUT]
    assert replies[1].elapsed_ms == 0.0  # the second request is answered at once: the bot is dead
    assert bot.bank_left_ms == 0.0


def test_cpu_spin_ignoring_sigterm_times_out(tier: Tier, witness: BotProcess) -> None:
    replies, _ = run("cpu_spin", tier, [{"type": "decide"}], fast_limits(decision_ms=200))
    assert replies[0].status is Status.TIMEOUT


def test_spin_at_import_is_a_startup_timeout(tier: Tier, witness: BotProcess) -> None:
    replies, bot = run("spin_at_import", tier, [{"type": "decide"}], fast_limits(startup_ms=400))
    assert bot.status is Status.TIMEOUT and replies[0].status is Status.TIMEOUT
    assert "not ready" in replies[0].detail


@pytest.mark.parametrize("mode, words", [
    ("huge-line", "line longer than"),
    ("garbage", "invalid JSON"),
    ("extra-lines", "more than one line"),
    ("non-object", "not a JSON object"),
])
def test_protocol_abuse_is_protocol(tier: Tier, witness: BotProcess, mode: str, words: str) -> None:
    replies, _ = run("protocol_abuse", tier, [{"type": "decide", "mode": mode}])
    assert replies[0].status is Status.PROTOCOL
    assert words in replies[0].detail


def test_print_flood_does_not_corrupt_the_protocol(tier: Tier, witness: BotProcess) -> None:
    replies, bot = run("protocol_abuse", tier, [{"type": "decide", "mode": "stdout-flood"}])
    assert replies[0].status is Status.OK and replies[0].message == {"flooded": True}
    assert "flooding stdout" in bot.stderr_tail


def test_stderr_flood_is_contained(tier: Tier, witness: BotProcess) -> None:
    limits = fast_limits(max_stderr_bytes=4096)
    replies, bot = run("stderr_flood", tier, [{"type": "decide"}, {"type": "decide"}], limits)
    assert [r.status for r in replies] == [Status.OK, Status.OK]
    assert len(bot.stderr_tail) <= 4096 and bot.stderr_tail.endswith("last words\n")


@pytest.mark.parametrize("mode, status", [("catch", Status.OK), ("crash", Status.CRASH)])
def test_memory_hog(tier: Tier, witness: BotProcess, mode: str, status: Status) -> None:
    replies, bot = run("memory_hog", tier, [{"type": "decide", "mode": mode}], fast_limits(memory_mb=200))
    assert replies[0].status is status
    if status is Status.CRASH:
        assert "MemoryError" in bot.stderr_tail


def test_inherited_descriptors(tier: Tier, witness: BotProcess, tmp_path: Path) -> None:
    leak = os.open(tmp_path / "leak", os.O_CREAT | os.O_RDWR)
    os.set_inheritable(leak, True)
    try:
        replies, _ = run("inherited_fds", tier, [{"type": "decide"}])
    finally:
        os.close(leak)
    fds = message_of(replies[0])["fds"]
    assert len(fds) <= 5 and {"0", "1", "2"} <= set(fds)  # stdio and the runner's 2 protocol descriptors
    null, leaked = os.stat("/dev/null"), os.stat(tmp_path / "leak")
    assert fds["0"][:2] == [null.st_dev, null.st_ino]
    assert all(held[:2] != [leaked.st_dev, leaked.st_ino] for held in fds.values())


def test_orphan_daemon_does_not_survive_close(tier: Tier, witness: BotProcess) -> None:
    replies, bot = run("orphan_daemon", tier, [{"type": "decide"}])
    if tier is Tier.STRONG:
        assert replies[0].message == {"daemon": "error:1"}  # fork denied (EPERM)
    else:
        said = replies[0].message
        assert said is not None and said["daemon"] == "started"
        assert gone_within(said["pid"])
    # run() already asserted no process with the bot's tag remains (the setsid grandchild included)


@pytest.mark.parametrize("tier", [pytest.param(Tier.PLAIN, id="plain")])  # the strong tier denies the fork
@pytest.mark.parametrize("fork_server", [True, False], ids=["forked", "cold"])
def test_a_daemon_whose_main_thread_ended_alone_does_not_survive_close(tier: Tier, fork_server: bool,
                                                                        witness: BotProcess) -> None:
    """The daemon leaves the bot's session, then its main thread ends alone while a second thread runs on: /proc
    shows it as a zombie with an empty command line, which the group's kill misses and a plain reading of command
    lines too. The bot's close still ends every thread of it: a forked bot's keeper, its subreaper, kills what comes
    back to it; a cold bot's daemon is found by the tag its threads still carry (sandbox/procscan.py)."""
    bot = BotProcess.start(hostile_bundle("orphan_daemon"), fast_limits(fork_server=fork_server), tier)
    assert (bot.server_tag is not None) is fork_server
    reply = bot.request({"type": "decide", "mode": "zombie-leader"})
    said = reply.message
    assert reply.status is Status.OK and said is not None and said["daemon"] == "started", reply
    pid = said["pid"]
    deadline = time.monotonic() + 60  # a bound, not a verdict: the main thread ends right after the pid is sent
    while Path(f"/proc/{pid}/cmdline").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert Path(f"/proc/{pid}/cmdline").read_bytes() == b"" and len(live_threads(pid)) == 1  # the trick worked
    bot.notify({"type": "end"})
    bot.close()
    assert gone_within(pid)
    assert_gone(bot)
