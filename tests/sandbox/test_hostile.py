"""Hostile-bot battery: each bot is contained and gets its status; the witness bot, the referee
and the machine are unaffected; no process, file or secret escapes.

Harmless misbehaviour runs on every available tier; attacks the plain tier does not claim to
stop (reading, writing, network, exec) run on the strong tier only, and the bombs only after
a probe in the same test has shown fork/threads/kill are denied there.
"""
from __future__ import annotations

import errno
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandbox_helpers import SECRET_MARKER, assert_gone, fast_limits, hostile_bundle, message_of, needs_strong

from sandbox import BotBundle, BotProcess, Limits, Reply, Status, Tier, modules_from_package
from sandbox import isolation
from sandbox.isolation import Confinement
from sandbox.procscan import live_descendants, processes_with_tag

ROOT = Path(__file__).resolve().parents[2]


def sdk_bundle_modules() -> dict[str, str]:
    """The modules a real bot gets: the engine and the SDK (as arena/players.py ships them)."""
    modules = modules_from_package(ROOT / "engine", "engine")
    modules["sandbox.sdk"] = (ROOT / "sandbox" / "sdk.py").read_text(encoding="utf-8")
    modules["sandbox.protocol"] = (ROOT / "sandbox" / "protocol.py").read_text(encoding="utf-8")
    return modules


def run(name: str, tier: Tier, messages: list[dict], limits: Limits | None = None) -> tuple[list[Reply], BotProcess]:
    """Start a hostile bot, send ``messages``, close it; check it left nothing and leaked no secret."""
    bot = BotProcess.start(hostile_bundle(name), limits or fast_limits(), tier)
    failure = bot.failure  # None while the bot is well (its status OK)
    replies = [bot.request(m) for m in messages] if failure is None else [failure]
    bot.notify({"type": "end"})
    bot.close()
    assert_gone(bot)
    text = json.dumps([r.message for r in replies if r]) + bot.stderr_tail
    assert SECRET_MARKER not in text
    return replies, bot


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
        assert replies[0].message == {"daemon": "started"}
    # run() already asserted no process with the bot's tag remains (the setsid grandchild included)


# -- strong tier only ----------------------------------------------------------------------------
strong = pytest.mark.parametrize("tier", [pytest.param(Tier.STRONG, marks=needs_strong, id="strong")])


@strong
def test_cannot_read_sources_database_or_secrets(tier: Tier, witness: BotProcess, tmp_path: Path) -> None:
    secret = tmp_path / "root-only.txt"
    secret.write_text("TOP SECRET " + SECRET_MARKER)
    secret.chmod(0o600)
    db = tmp_path / "arena.sqlite"
    db.write_bytes(b"SQLite format 3\x00" + SECRET_MARKER.encode())
    paths = [str(secret), str(db), str(tmp_path), str(ROOT / "sandbox" / "process.py"), str(ROOT),
             "/run/bohnanza-sandbox"]
    replies, _ = run("read_files", tier, [{"type": "decide", "paths": paths, "pids": [os.getpid(), witness.pid]}])
    results = message_of(replies[0])["results"]
    for path in paths:
        assert results[path].startswith("error:"), (path, results[path])
    for pid in (os.getpid(), witness.pid):
        assert results[f"/proc/{pid}/environ"].startswith("error:")
    assert results["/work"].startswith("error:") and results["/root"] != "ok:.pyenv,.ssh"


@strong
def test_cannot_write_or_delete_files(tier: Tier, witness: BotProcess, tmp_path: Path) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("keep")
    target = tmp_path / "new.txt"
    replies, _ = run("write_files", tier, [{"type": "decide", "paths": [str(target), str(ROOT / "pwned")],
                                            "delete": [str(keep)], "usual_places": True}])
    results = message_of(replies[0])["results"]
    assert results[str(target)].startswith("error:") and results["rm " + str(keep)].startswith("error:")
    assert results["/bohnanza-hostile"].startswith("error:") and results["/tmp/bohnanza-hostile"].startswith("error:")
    assert not target.exists() and keep.read_text() == "keep" and not (ROOT / "pwned").exists()
    assert not Path("/tmp/bohnanza-hostile").exists() and not Path("/dev/shm/bohnanza-hostile").exists()


@strong
def test_no_network(tier: Tier, witness: BotProcess) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0bohnanza-test-" + str(os.getpid()))
    abstract.listen()
    abstract.setblocking(False)
    try:
        replies, _ = run("network", tier, [{"type": "decide", "port": server.getsockname()[1],
                                            "abstract": "bohnanza-test-" + str(os.getpid())}])
        for sock in (server, abstract):
            with pytest.raises(BlockingIOError):
                sock.accept()
    finally:
        server.close()
        abstract.close()
    results = message_of(replies[0])["results"]
    assert results == {"tcp": "error:1", "udp": "error:1", "unix-abstract": "error:1", "raw-socket": "error:1"}


def outer_seccomp() -> bool:
    """Whether this test process already runs under a seccomp filter (a container's, say)."""
    status = Path("/proc/self/status").read_text()
    return any(line.split()[1:] == ["2"] for line in status.splitlines() if line.startswith("Seccomp:"))


x86_64_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="raw_syscalls.py knows x86_64 numbers only")


@strong
@x86_64_only
def test_raw_denied_syscalls_get_eperm_from_the_filter(tier: Tier, witness: BotProcess) -> None:
    replies, _ = run("raw_syscalls", tier, [{"type": "decide"}])
    results = message_of(replies[0])["results"]
    assert len(results) == 8 and results == {name: "error:1" for name in results}, results


@x86_64_only
@pytest.mark.skipif(outer_seccomp(), reason="an outer seccomp filter (e.g. a container's) answers these calls itself")
def test_raw_syscalls_run_for_real_without_the_filter() -> None:
    """The control for the test above: in the plain tier (no seccomp) the same calls are not EPERM,
    so that EPERM is the filter's answer, not the kernel's."""
    replies, _ = run("raw_syscalls", Tier.PLAIN, [{"type": "decide"}])
    results = message_of(replies[0])["results"]
    assert len(results) == 8 and "error:1" not in results.values(), results


@strong
def test_no_exec(tier: Tier, witness: BotProcess) -> None:
    replies, _ = run("exec_shell", tier, [{"type": "decide"}])
    results = message_of(replies[0])["results"]
    assert (results["system"] != 0 and str(results["subprocess"]).startswith("error:")
            and results["execv"].startswith("error:"))
    assert not Path("/tmp/bohnanza-shell").exists()


@strong
def test_bombs_only_after_probe_shows_they_are_denied(tier: Tier, witness: BotProcess) -> None:
    bot = BotProcess.start(hostile_bundle("process_probe"), fast_limits(), tier)
    reply = bot.request({"type": "decide"})
    assert reply.message is not None and bot.pid is not None
    probe = message_of(reply)["results"]
    with open(f"/proc/{bot.pid}/status") as f:  # from the outside: the bot itself has no /proc
        status = {k: v.strip() for k, v in (line.split(":", 1) for line in f)}
    userns = os.readlink(f"/proc/{bot.pid}/ns/user")
    bot.close()
    assert_gone(bot)
    if isolation.confinement() is Confinement.UID_SLOTS:
        assert probe["uid"] != 0 and probe["gid"] != 0 and probe["groups"] == []
    else:  # root of a user namespace of its own, without a single capability
        assert userns != os.readlink("/proc/self/ns/user") and probe["uid"] == 0
    assert probe["proc"] is False
    assert status["Seccomp"] == "2" and status["NoNewPrivs"] == "1"
    assert status["CapEff"] == status["CapPrm"] == status["CapAmb"] == "0000000000000000"
    assert probe["fork"] == "error:1" and probe["thread"].startswith("error:") and probe["kill-parent-0"] == "error:1"
    replies, _ = run("bombs", tier, [{"type": "decide"}])
    results = message_of(replies[0])["results"]
    assert results == {"forks": 0, "threads": 0, "kill-all": "error:1", "kill-parent": "error:1",
                       "kill-init": "error:1"}


def test_plain_tier_does_not_claim_file_isolation(tmp_path: Path) -> None:
    """Documents the plain tier's limit: RLIMIT_FSIZE=0 stops contents, not (empty) file creation."""
    target = tmp_path / "plain.txt"
    replies, _ = run("write_files", Tier.PLAIN, [{"type": "decide", "paths": [str(target)]}])
    assert message_of(replies[0])["results"][str(target)] == "error:OSError"  # EFBIG
    assert target.stat().st_size == 0


# -- the referee dies ----------------------------------------------------------------------------
REFEREE = """
import json, sys, threading, time
sys.path.insert(0, {root!r})
from sandbox import BotBundle, BotProcess, Limits, Tier
bot = BotProcess.start(BotBundle("spin", open({bot!r}).read()), Limits(decision_ms=60000), Tier({tier!r}))
print(json.dumps({{"pid": bot.pid, "uid": bot.uid, "tag": bot.tag, "status": bot.status.value}}), flush=True)
bot.request({{"type": "decide"}})  # spins forever; the test SIGKILLs us meanwhile
"""


def test_referee_sigkilled_mid_game_leaves_no_bot(tier: Tier) -> None:
    code = REFEREE.format(root=str(ROOT), bot=str(Path(__file__).with_name("hostile") / "cpu_spin.py"), tier=tier.value)
    referee = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert referee.stdout is not None
        info = json.loads(referee.stdout.readline())
        started = live_descendants(os.getpid()).get(info["pid"])  # the bot, by pid and start time (pids are reused)

        def alive() -> bool:
            return started is not None and live_descendants(os.getpid()).get(info["pid"]) == started

        assert info["status"] == "ok" and alive()
        time.sleep(0.2)  # the bot is now spinning inside its request
        referee.send_signal(signal.SIGKILL)
        referee.wait(timeout=10)
        deadline = time.monotonic() + 30  # a bound for a busy machine
        while time.monotonic() < deadline and (alive() or processes_with_tag(info["tag"])):
            time.sleep(0.05)
        assert not alive() and processes_with_tag(info["tag"]) == []
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime, in 10 ms ticks


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
        assert bot.pid is not None
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
        decide = {"type": "decide", "id": 1, "kind": decision.kind.value, "view": game.view(0).to_json(),
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
    limits = fast_limits(cpu_seconds=1, decision_ms=200, bank_ms=0, freeze=False, startup_ms=1000)
    bot = BotProcess.start(BotBundle("net", source), limits, tier)
    try:
        assert bot.request({"type": "decide"}).status is Status.OK
        pid = bot.pid
        assert pid is not None
        for _ in range(600):  # until the kernel has ended it (it has at most a few seconds of CPU left)
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    break
            time.sleep(0.1)
        reply = bot.request({"type": "decide"})
    finally:
        bot.close()
    assert reply.status is Status.CRASH, reply
    assert re.fullmatch(r"killed by SIGXCPU at its CPU safety net \(RLIMIT_CPU \d+ s\) during request",
                        reply.detail), reply
