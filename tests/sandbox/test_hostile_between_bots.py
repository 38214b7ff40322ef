"""Hostile bots against the other bots of a table and of the machine: no timer wakes a frozen bot, no bot
computes while another is asked, and no futex, lock, counter, page cache or process of the sandbox
carries anything between bots or games.

The battery's promises and its ``run``: hostile_helpers.py.
"""
from __future__ import annotations

import errno
import platform
import time

import pytest
from hostile_helpers import ROOT, run, sdk_bundle_modules, strong
from sandbox_helpers import assert_gone, fast_limits, hostile_bundle, message_of

from sandbox import BotBundle, BotProcess, Status, Tier


# -- between the bots of a table, and of the machine --------------------------------------------
def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime, in 10 ms ticks


def _stopped(pid: int, seconds: float = 10.0) -> bool:
    """Whether the process is (or, within ``seconds``, becomes) stopped: SIGSTOP takes effect when the process
    next leaves the kernel, so on a busy machine it may still have microseconds to run, which can end a tick."""
    deadline = time.monotonic() + seconds
    while True:
        with open(f"/proc/{pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1].split()[0] in (b"T", b"t"):
                return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)


def test_a_timer_signal_cannot_wake_a_frozen_bot(tier: Tier, witness: BotProcess) -> None:
    """The bot arms POSIX timers that send SIGCONT (every 2 ms, and once at several later times), with a
    spinning handler. Strong tier:
    timer_create is refused, and its CPU while frozen stays flat. Plain tier, the control: the timer
    arms and wakes the stopped bot, which computes on others' time -- and pays for it from its bank."""
    bot = BotProcess.start(hostile_bundle("self_waking"), fast_limits(bank_ms=2000), tier)
    try:
        reply = bot.request({"type": "hello"})
        assert reply.status is Status.OK and bot.pid is not None
        before = _cpu_ticks(bot.pid)
        time.sleep(1.0)
        grown = _cpu_ticks(bot.pid) - before
        if tier is Tier.STRONG:
            assert message_of(reply)["armed"] == errno.EPERM
            assert grown <= 1
            assert bot.request({"type": "decide"}).status is Status.OK and bot.cpu_at_rest_ms == 0.0
        else:
            assert message_of(reply)["armed"] == 0
            deadline = time.monotonic() + 60  # a busy machine gives the woken bot its 200 ms later
            while grown <= 20 and time.monotonic() < deadline:
                time.sleep(0.1)
                grown = _cpu_ticks(bot.pid) - before
            assert grown > 20
            bot.request({"type": "decide"})
            assert bot.cpu_at_rest_ms > 200 and bot.bank_left_ms < 2000 - 200
    finally:
        bot.close()
    assert_gone(bot)


def test_a_bot_computing_after_its_reply_is_stopped_before_another_bot_is_asked(tier: Tier,
                                                                                witness: BotProcess) -> None:
    """early_reply.py (ROLE "spin") writes its reply itself and keeps computing. Before the next bot of its table
    is asked it is stopped (strong tier: it is not asleep on its pipe; plain tier: SIGSTOP at once), so
    its CPU stays flat while the other bot is asked, and its second line is a reply to the wrong request."""
    bot = BotProcess.start(hostile_bundle("early_reply"), fast_limits(bank_ms=5000), tier)
    try:
        assert bot.request({"type": "hello"}).status is Status.OK
        reply = bot.request({"type": "decide", "id": 1, "options": [{"type": "pass"}]})
        assert reply.status is Status.OK and reply.message == {"id": 1, "action": {"type": "pass"}}
        assert witness.request({"type": "decide", "n": 1}).status is Status.OK  # settles the spinner first
        assert bot.pid is not None and _stopped(bot.pid)  # a spinner is never at rest: both tiers stop it
        before = _cpu_ticks(bot.pid)
        time.sleep(0.5)
        assert witness.request({"type": "decide", "n": 2}).status is Status.OK
        assert _cpu_ticks(bot.pid) - before == 0
        if tier is Tier.STRONG:
            assert bot.stops == 1
        after = bot.request({"type": "decide", "id": 2, "options": []})  # resumed, it ends its spin and act
        stale = after.status is Status.OK and after.message == {"id": 1, "action": {"type": "pass"}}
        assert stale or after.status is Status.PROTOCOL  # stale: the referee sees the wrong id
    finally:
        bot.close()
    assert_gone(bot)


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the futex syscall number in early_reply.py is x86-64's")
@pytest.mark.parametrize("freeze", [True, False], ids=["frozen", "not-frozen"])
def test_a_futex_on_a_shared_file_carries_nothing_between_bots_of_a_table(tier: Tier, freeze: bool) -> None:
    """early_reply.py, ROLE "wait" and "wake": one bot waits on a futex in a page of a file every sandbox binds
    (the same key everywhere) after writing its reply itself; the next bot asked wakes it and reports how many
    it woke. Strong tier: a shared wake is refused (-1), frozen or not, so no game can wake another's
    waiter, also one running at the same time. Plain tier: settled (stopped) before the other bot runs,
    the waiter has left the futex queue: 0; without freezing (the control) it is seen: 1."""
    source = (ROOT / "tests" / "sandbox" / "hostile" / "early_reply.py").read_text().replace('ROLE = "spin"',
                                                                                             'ROLE = "wait"')
    limits = fast_limits(freeze=freeze, bank_ms=5000)
    waiter = BotProcess.start(BotBundle("waiter", source), limits, tier)
    waker = BotProcess.start(BotBundle("waker", source.replace('ROLE = "wait"', 'ROLE = "wake"')), limits, tier)
    try:
        assert waiter.request({"type": "decide", "id": 1}).status is Status.OK
        time.sleep(0.05)  # the waiter is now in its futex wait (or stopped)
        reply = waker.request({"type": "decide", "id": 1})
        assert reply.status is Status.OK
        assert message_of(reply)["woke"] == (-1 if tier is Tier.STRONG else 0 if freeze else 1)
    finally:
        waiter.close()
        waker.close()
    assert_gone(waiter)
    assert_gone(waker)


def test_colluding_bots_find_no_channel_in_the_strong_tier(tier: Tier, witness: BotProcess) -> None:
    """covert_channel.py as sender and receiver at once. Plain tier, the control: the receiver sees the
    sender's lock on a shared file and signals it (field 99). Strong tier: every channel is refused."""
    import re

    from engine import classic_rules, new_game

    source = (ROOT / "tests" / "sandbox" / "hostile" / "covert_channel.py").read_text()
    modules = sdk_bundle_modules()
    bots = {role: BotProcess.start(BotBundle(role, re.sub(r"^ROLE = .*$", f"ROLE = {role!r}", source, flags=re.M),
                                             modules), fast_limits(), tier) for role in ("send", "receive")}
    try:
        rules = classic_rules()
        game = new_game(rules, 3, 5)
        hello = {"type": "hello", "protocol": 1, "seat": 0, "players": 3, "seats": ["seat0", "seat1", "seat2"],
                 "rules": rules.to_json(), "bot_seed": 1, "limits": {}}
        decision = game.decision
        assert decision is not None
        decide = {"type": "decide", "id": 1, "kind": decision.kind.value, "view": game.view_json(0),
                  "events": [], "options": decision.to_json()["options"], "time_left_ms": 1000.0}
        for bot in bots.values():
            assert bot.request(hello).status is Status.OK
        assert bots["send"].request(decide).status is Status.OK
        field = message_of(bots["receive"].request(decide))["action"]["field"]
        assert field == (0 if tier is Tier.STRONG else 99)
    finally:
        for bot in bots.values():
            bot.close()


def test_no_counter_page_cache_or_terminal_outlives_a_bot_or_crosses_sandboxes(tier: Tier, witness: BotProcess) -> None:
    """From the attacker's review of the fork servers. Strong tier: the bot sees only its own process
    in /proc (not the fork server, whose counters of reaped children once carried a byte from one
    game to the next), none of the machine-wide counters, no pseudo-terminals, cannot lock memory,
    and cannot evict or probe the page cache of the shared files. Plain tier, the control: most of
    them work there."""
    bot = BotProcess.start(hostile_bundle("shared_counters"), fast_limits(), tier)
    try:
        reply = bot.request({"type": "hello"})
        assert reply.status is Status.OK, bot.stderr_tail
        results = message_of(reply)["results"]
    finally:
        bot.close()
    closed = ["proc-1-stat", "proc-2-stat", "pty-nr", "meminfo", "file-nr", "loadavg", "ptmx", "mlock", "fadvise",
              "preadv2-nowait", "mincore", "pagemap", "own-stat", "pageout"]
    if tier is Tier.STRONG:
        assert {k: v for k, v in results.items() if k in closed and not v.startswith("error:")} == {}
        assert results["proc-listing"] == "ok:[]"  # no /proc at all, not even its own process
    else:
        assert sum(results[k].startswith("ok:") for k in closed) >= 6


@strong
@pytest.mark.parametrize("fork_server", [False, True], ids=["cold", "forked"])
def test_no_other_process_of_the_sandbox_can_be_written_or_seen(tier: Tier, witness: BotProcess,
                                                                fork_server: bool) -> None:
    """proc_mem.py looks for bubblewrap's reaper and the fork server in its /proc and opens their memory
    for writing (code planted there would run without a seccomp filter). In a user namespace they share
    its uid: the reaper is left out (the runner is pid 1) and the fork server keeps a capability the bot
    lacks. Now the sandbox has no /proc at all: it sees nothing, itself included, in both ways a bot starts."""
    replies, _ = run("proc_mem", tier, [{"type": "hello"}, {"type": "decide", "id": 1}],
                     fast_limits(fork_server=fork_server))
    assert replies[1].status is Status.OK
    assert message_of(replies[1])["reached"] == {} and message_of(replies[1])["listed"] == [], replies[1].message


@strong
def test_nothing_is_left_for_the_next_game_or_another_sandbox(tier: Tier, witness: BotProcess) -> None:
    """fork_server_tamper.py, twice from one fork server (the same bundle modules, so the same template):
    /dev and the host's device nodes are read-only (devices still read and write), the fork server's
    limits and priority are out of reach, sysinfo and big pipes are refused; the second game finds
    nothing the first could have left. (In a user namespace the first four were open.)"""
    modules: dict[str, str] = {}  # one dict for both bots: they share a fork server, as a season's bots do
    source = (ROOT / "tests" / "sandbox" / "hostile" / "fork_server_tamper.py").read_text()
    for game in (1, 2):
        bot = BotProcess.start(BotBundle(f"tamper{game}", source, modules), fast_limits(fork_server=True), tier)
        try:
            reply = bot.request({"type": "decide", "id": 1})
        finally:
            bot.close()
        assert reply.status is Status.OK, bot.stderr_tail
        assert {k: v for k, v in message_of(reply)["attacks"].items() if v == "ok"} == {}, reply.message
        assert message_of(reply)["controls"] == {"write-null": "ok", "read-urandom": "ok"}
        assert message_of(reply)["start"] == {"dev-entries": [], "rss-limit-marked": False}
