"""A bot is out of time by the time rules, and its CPU rlimit is a safety net above them that names itself
when it ends a bot.

The battery's promises and its ``run``: hostile_helpers.py.
"""
from __future__ import annotations

import re
import time

import pytest
from hostile_helpers import strong
from sandbox_helpers import assert_gone, fast_limits, hostile_bundle, needs_strong

from sandbox import BotBundle, BotProcess, Status, Tier


# -- the time rules and the CPU rlimit ----------------------------------------------------------
@strong
@pytest.mark.parametrize("fork_server", [False, True], ids=["cold", "forked"])
def test_a_bot_is_out_of_time_by_the_time_rules_never_by_its_cpu_rlimit(tier: Tier, witness: BotProcess,
                                                                         fork_server: bool) -> None:
    """The decision limit (4 s) is above the CPU safety margin (1 s) and the start-up limit (1.5 s): the
    bot's RLIMIT_CPU is above the whole game's grant (uid slots) or raised before each request (user
    namespace), so the bot spins until the decision limit and its status says which time rule ended
    it. Before, the kernel ended it at 1 s of CPU ("killed by SIGXCPU"), below what the rules granted."""
    bot = BotProcess.start(hostile_bundle("cpu_spin"), fast_limits(cpu_seconds=1, decision_ms=4000, bank_ms=0,
                                                                    startup_ms=1500, fork_server=fork_server), tier)
    reply = bot.request({"type": "decide"})
    bot.close()
    assert_gone(bot)
    assert reply.status is Status.TIMEOUT, reply
    assert reply.detail == "decision limit: no reply within 4000 ms (its time bank is spent)", reply


def cpu_rlimit_of(pid: int) -> tuple[int, int]:
    """(soft, hard) RLIMIT_CPU of a process, from /proc (prlimit would need CAP_SYS_RESOURCE for another uid)."""
    with open(f"/proc/{pid}/limits", encoding="ascii") as f:
        row = next(line for line in f if line.startswith("Max cpu time"))
    soft, hard = row.split()[3:5]
    return int(soft), int(hard)


@pytest.mark.parametrize("tier", [Tier.PLAIN, pytest.param(Tier.STRONG, marks=needs_strong)])
def test_the_cpu_rlimit_is_never_below_what_the_next_request_may_use(tier: Tier) -> None:
    """After the start (1 s) the bot may use 5 s + its 7 s bank in its first request: its RLIMIT_CPU
    is at least that plus the 1 s margin, raised before the request where the referee may, else set
    at start from the whole game's grant (start-up + max_decisions x decision limit + bank)."""
    limits = fast_limits(cpu_seconds=1, decision_ms=5000, bank_ms=7000, startup_ms=1000, max_decisions=10)
    bot = BotProcess.start(BotBundle("calm", "def act(message):\n    return {}\n"), limits, tier)
    try:
        assert bot.request({"type": "decide"}).status is Status.OK
        assert bot.pid is not None
        soft, hard = cpu_rlimit_of(bot.pid)
    finally:
        bot.close()
    assert soft >= 5 + 7 + 1 and hard == 1 + 10 * 5 + 7 + 1 + 1, (soft, hard)


@pytest.mark.parametrize("tier", [Tier.PLAIN])
def test_a_bot_past_its_cpu_safety_net_is_killed_and_its_status_says_so(tier: Tier, witness: BotProcess) -> None:
    """A bot whose thread keeps computing after its reply (plain tier, not frozen) reaches the safety
    net above what it was granted: the kernel ends it, and the status names the net."""
    source = ("import threading\n"
              "def spin():\n    while True:\n        pass\n"
              "threading.Thread(target=spin, daemon=True).start()\n"
              "def act(message):\n    return {}\n")
    # 2 s for the first reply: the spinning thread shares the GIL with the one that answers, and under load the
    # process may wait its turn (200 ms timed out once beside the rest of the suite)
    limits = fast_limits(cpu_seconds=1, decision_ms=2000, bank_ms=0, freeze=False, startup_ms=1000)
    bot = BotProcess.start(BotBundle("net", source), limits, tier)
    try:
        assert bot.request({"type": "decide"}).status is Status.OK
        pid = bot.pid
        assert pid is not None
        for _ in range(600):  # until the kernel has ended it (it has at most a few seconds of CPU left)
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                        break
            except FileNotFoundError:  # reaped already: its fork server's keeper waits for it
                break
            time.sleep(0.1)
        reply = bot.request({"type": "decide"})
    finally:
        bot.close()
    assert reply.status is Status.CRASH, reply
    assert re.fullmatch(r"killed by SIGXCPU at its CPU safety net \(RLIMIT_CPU \d+ s\) during request",
                        reply.detail), reply
