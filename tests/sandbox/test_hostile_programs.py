"""Hostile bots in other languages (sandbox/languages.py) in the strong tier: a JavaScript bot with
node's threads and a native C bot get the same confinement as a Python bot (no process, network,
file, signal or extra memory), their threads' CPU time counts, and their build sees nothing of the
machine. Each attack is one request; the bot says what happened and the test says what must have."""
from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import pytest
from sandbox_helpers import HOSTILE, SECRET_MARKER, assert_gone, fast_limits, hostile_bundle, needs_strong

from sandbox import BotBundle, BotProcess, Limits, Reply, Status, Tier
from sandbox import languages
from sandbox.languages import BuildError, Language, build, language_named
from sandbox.procscan import processes_with_tag

pytestmark = needs_strong
#: a test that starts a bot starts it from a fork server and cold; a build starts none
forked_and_cold = pytest.mark.parametrize("fork_server", [True, False], ids=["forked", "cold"])


def run(name: str, messages: list[dict], limits: Limits) -> tuple[list[Reply], BotProcess]:
    """Start a hostile program in the strong tier, send ``messages``, close it; nothing may be left and
    no secret of the referee's may show up in what it said."""
    bot = BotProcess.start(hostile_bundle(name), limits, Tier.STRONG)
    assert bot.status is Status.OK, (bot.failure, bot.stderr_tail)
    replies = [bot.request(m) for m in messages]
    bot.close()
    assert_gone(bot)
    assert SECRET_MARKER not in repr([r.message for r in replies]) + bot.stderr_tail
    return replies, bot


@forked_and_cold
def test_a_javascript_bot_cannot_spawn_connect_write_read_or_signal(fork_server: bool,
                                                                    witness_strong: BotProcess) -> None:
    # the checks are on what it said, not its pace (fast_limits: a decision limit a loaded machine cannot reach)
    replies, _ = run("program_escape.js", [{"type": "decide", "mode": "escape"}], fast_limits(fork_server=fork_server))
    assert replies[0].status is Status.OK, replies[0]
    said = replies[0].message
    assert said is not None
    assert said["spawn"].startswith("error:") and said["exec"].startswith("error:"), said  # no new process
    assert said["write"] == "error:EROFS", said
    assert said["passwd"] == "error:ENOENT", said  # no /etc of the machine
    assert len(said["referee"].removeprefix("ok:").split(",")) == 1, said  # /proc shows itself alone
    assert said["socket"] == "error:EPERM", said
    assert said["kill_pid_1"] == "error:EPERM", said


@forked_and_cold
def test_the_cpu_time_of_a_javascript_bots_threads_counts(fork_server: bool, witness_strong: BotProcess) -> None:
    """Three worker threads spin 1 s of wall clock side by side, and the time charged for the decision
    covers their CPU time, not only the wall clock (so threads buy no more thinking than one thread
    would; over the limit, a timeout). On two free cores the CPU is about twice the wall clock; on a busy
    machine the threads may not overlap (the charge, then the wall clock, is still at least the CPU), so
    the bot burns again, up to five times, until they do."""
    bot = BotProcess.start(hostile_bundle("program_escape.js"), fast_limits(decision_ms=60_000, bank_ms=0,
                                                                             fork_server=fork_server), Tier.STRONG)
    assert bot.status is Status.OK and bot.pid is not None
    with open(f"/proc/{bot.pid}/stat", "rb") as stat:
        def cpu_ms() -> float:
            fields = stat.read().rsplit(b")", 1)[1].split()
            stat.seek(0)
            return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

        figures = []
        for _ in range(5):  # until the threads overlap (at once on two free cores), or five tries
            before, started = cpu_ms(), time.monotonic()
            reply = bot.request({"type": "decide", "mode": "burn", "threads": 3, "ms": 1000})
            wall, cpu = (time.monotonic() - started) * 1000, cpu_ms() - before
            figures.append((reply.status, reply.elapsed_ms, wall, cpu))
            if reply.status is not Status.OK or cpu > wall + 100:
                break
    bot.close()
    assert_gone(bot)
    assert all(status is Status.OK and charged >= cpu - 20 for status, charged, _, cpu in figures), figures


@forked_and_cold
def test_a_javascript_bot_gets_a_bounded_number_of_threads(fork_server: bool, witness_strong: BotProcess) -> None:
    replies, _ = run("program_escape.js", [{"type": "decide", "mode": "threads", "count": 64}],
                     fast_limits(fork_server=fork_server))
    reply = replies[0]
    # node either reports the refused thread or gives up: both are the bot's own end, nothing else's
    assert reply.status is Status.CRASH or (reply.message is not None and reply.message["error"]), reply


@forked_and_cold
def test_a_javascript_bots_memory_is_capped(fork_server: bool, witness_strong: BotProcess) -> None:
    # near its cap V8 collects garbage again and again before it gives up, which under load took over 2 s: the
    # verdict is the memory's, not the clock's (fast_limits: a decision limit a loaded machine cannot reach)
    replies, _ = run("program_escape.js", [{"type": "decide", "mode": "hog", "mb": 2048}],
                     fast_limits(memory_mb=256, fork_server=fork_server))
    reply = replies[0]
    # V8 ends the process when its allocation is refused, or the bot catches the refusal short of the cap
    assert reply.status is Status.CRASH or (reply.message is not None and reply.message["mb"] < 256), reply


@forked_and_cold
@pytest.mark.parametrize("mode, result", [
    ("fork", -errno.EPERM), ("clone3", -errno.EPERM), ("socket", -errno.EPERM), ("kill", -errno.EPERM),
    ("passwd", -errno.ENOENT), ("write", -errno.EROFS), ("raise-limit", -errno.EPERM),
    ("shared", -errno.ENOMEM),  # the address-space cap counts shared memory too
    ("shell", -errno.ENOENT),  # nothing to execute but the libraries and the interpreter
    ("caps", 0),  # no capability came back with its exec (a user namespace's root would get them without no_new_privs)
    ("growsdown", -errno.ENOMEM),  # memory the kernel counts as stack: the address-space cap counts it
    ("pagemap", -errno.ENOENT), ("mem", -errno.ENOENT),  # no /proc: no page-cache probe, no rewriting its own code
    ("pageout", -errno.EPERM), ("cold", -errno.EPERM),  # no eviction: a page's cached state is not a reusable bit
])
def test_a_c_bot_is_refused(fork_server: bool, mode: str, result: int, witness_strong: BotProcess) -> None:
    replies, _ = run("program_escape.c", [{"type": "decide", "mode": mode}], fast_limits(fork_server=fork_server))
    assert replies[0].status is Status.OK and replies[0].message == {"result": result}, replies[0]


@forked_and_cold
def test_a_c_bot_has_no_threads_and_bounded_memory(fork_server: bool, witness_strong: BotProcess) -> None:
    replies, _ = run("program_escape.c", [{"type": "decide", "mode": "thread"}, {"type": "decide", "mode": "hog"},
                                          {"type": "decide", "mode": "futex-wake"}],
                     fast_limits(memory_mb=256, fork_server=fork_server))
    assert replies[0].message is not None and replies[0].message["result"] < 0, replies[0]
    assert replies[1].message is not None and 0 < replies[1].message["result"] < 256, replies[1]
    # without threads a shared futex wake can only reach another process: refused
    assert replies[2].message is not None and replies[2].message["result"] == -errno.EPERM, replies[2]


@forked_and_cold
def test_native_code_with_threads_is_held_like_javascript(fork_server: bool, witness_strong: BotProcess,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A JavaScript bot that reached native code (the attacker's review did it through /proc/self/mem,
    which is gone now) runs under the threaded filter and RLIMIT_DATA: modelled by the hostile C bot
    built as a language with threads."""
    threaded = Language("c-threads", (".c",), "gcc", build=language_named("c").build, threads=True)
    monkeypatch.setattr(languages, "LANGUAGES", (*languages.LANGUAGES, threaded))
    source = (HOSTILE / "program_escape.c").read_text()
    modes = ["thread", "fork", "clone3", "shared", "growsdown", "hog", "caps", "pagemap", "futex-wake"]
    bot = BotProcess.start(BotBundle("native", source, language="c-threads"),
                           fast_limits(memory_mb=256, fork_server=fork_server), Tier.STRONG)
    said = {mode: bot.request({"type": "decide", "mode": mode}) for mode in modes}
    bot.close()
    assert_gone(bot)
    results = {mode: reply.message["result"] if reply.message else reply.status.value for mode, reply in said.items()}
    assert results.pop("hog") in range(1, 256), said  # RLIMIT_DATA: private memory up to the limit
    # a shared futex wake reaches its own thread: node's runtime (libstdc++'s atomic waits) needs it, and
    # refused it hung JavaScript bots under load (a worker thread's start waited for a wake that never came)
    assert results == {"thread": 0, "fork": -errno.EPERM, "clone3": -errno.ENOSYS, "shared": -errno.EPERM,
                       "growsdown": -errno.EPERM, "caps": 0, "pagemap": -errno.ENOENT, "futex-wake": 1}


@forked_and_cold
def test_a_fork_servers_next_game_learns_nothing_from_the_pids_of_the_last(fork_server: bool,
                                                                          witness_strong: BotProcess) -> None:
    """From the attacker's review: every bot of a fork server shared one PID namespace, so the number of
    threads a JavaScript bot made was the pid of the next game's bot. Now each bot is pid 1 of its own."""
    pids = []
    for threads in (2, 0, 1, 0):  # a worker takes several of its 32 descriptors
        replies, _ = run("program_escape.js", [{"type": "decide", "mode": "pid", "threads": threads}],
                         fast_limits(fork_server=fork_server))
        assert replies[0].message is not None, replies[0]
        pids.append(replies[0].message["pid"])
    assert len(set(pids)) == 1, pids  # the same pid every game, whatever the game before did


def test_a_c_build_cannot_read_the_operators_terminal_or_flood_the_referee() -> None:
    """From the attacker's review: ``#include "/dev/stdin"`` read what the operator typed into the
    compiler's error, and a few macros made 1.5 GB of error messages the referee held in memory."""
    read, write = os.pipe()
    os.write(write, SECRET_MARKER.encode() + b"\n")
    saved = os.dup(0)
    os.dup2(read, 0)
    try:  # its standard input is empty: the include adds nothing, and the program builds
        program = build(language_named("c"), '#include "/dev/stdin"\nint main(void) { return 0; }\n')
    finally:
        os.dup2(saved, 0)
        os.close(saved)
    os.set_blocking(read, False)
    assert os.read(read, 100) == SECRET_MARKER.encode() + b"\n"  # still there: the build never read it
    assert SECRET_MARKER.encode() not in program
    os.close(read)
    os.close(write)
    macros = "".join(f"#define A{i} " + (" ".join([f"A{i - 1}"] * 10) if i else "x=;" * 10) + "\n" for i in range(8))
    flood = macros + "int main(void) { int x; A7 return 0; }\n"
    with pytest.raises(BuildError) as flooded:
        build(language_named("c"), flood)
    assert len(str(flooded.value)) < 3200 and "expected expression" in str(flooded.value)


def test_a_c_build_sees_nothing_of_the_machine(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET_MARKER)
    for source in (f'#include "{secret}"\nint main(void) {{ return 0; }}\n',
                   f'__asm__(".section .rodata\\n.incbin \\"{secret}\\"\\n");\nint main(void) {{ return 0; }}\n',
                   '#include "/etc/passwd"\nint main(void) { return 0; }\n'):
        with pytest.raises(BuildError, match="No such file|file not found") as refused:
            build(language_named("c"), source)
        assert SECRET_MARKER not in str(refused.value)


@forked_and_cold
def test_a_c_source_that_does_not_build_is_the_bots_crash(fork_server: bool) -> None:
    bot = BotProcess.start(BotBundle("broken", "int main(void) { return oops; }\n", language="c"),
                           fast_limits(fork_server=fork_server), Tier.STRONG)
    assert bot.status is Status.CRASH and bot.failure is not None and "did not build" in bot.failure.detail
    assert "'oops' undeclared" in bot.stderr_tail  # the compiler's words, for the author
    assert processes_with_tag(bot.tag) == []
    bot.close()
