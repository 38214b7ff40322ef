"""Fork servers in the plain tier (issue 46 item 4): a plain bot starts from a warmed template of its own tier,
whatever it leaves behind (a double fork into a session of its own included) dies with its game, and a template
dies with its referee."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sandbox_helpers import ECHO_SOURCE, STRONG_AVAILABLE, alive, assert_gone, fast_limits, leftovers

from sandbox import BotBundle, BotProcess, Status, Tier, close_fork_servers

ROOT = Path(__file__).resolve().parents[2]


def start(name: str, source: str = ECHO_SOURCE, tier: Tier = Tier.PLAIN) -> BotProcess:
    return BotProcess.start(BotBundle(name, source), fast_limits(), tier)


def test_a_plain_bot_comes_from_a_plain_template_that_serves_the_next_one() -> None:
    close_fork_servers()
    first = start("first")
    assert first.status is Status.OK and first.server_pid is not None and first.uid is None
    assert first.request({"type": "decide", "n": 1}).message == {"echo": {"type": "decide", "n": 1}}
    template = first.server_pid
    first.close()
    assert_gone(first)
    second = start("second")
    assert second.server_pid == template  # the same template, warm: no cold start
    assert second.pid != first.pid
    second.close()
    assert_gone(second)
    if STRONG_AVAILABLE:  # a strong bot never gets a plain template, nor the other way round
        strong = start("strong", tier=Tier.STRONG)
        assert strong.server_pid not in (None, template) and strong.uid is not None
        strong.close()


ESCAPER = """import os, signal, time
def act(message):
    if message.get("type") != "decide":
        return {{}}
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, str(os.getpid()).encode() + b"\\n")
            os.write(2, b"orphan %d\\n" % os.getpid())
            if {kill_keeper}:  # its keeper shares its uid: without it, what is left goes up to the template
                os.kill({keeper}, signal.SIGKILL)
            if {exec_}:
                os.execv("/bin/sleep", ["sleep", "600"])  # no tag of any kind in its argv any more
            time.sleep(600)
        os._exit(0)
    os.wait()
    return {{"orphan": int(os.read(r, 64).split()[0])}}
"""

@pytest.mark.parametrize("how", ["sleeps", "execs", "kills-its-keeper", "cold-start"])
def test_what_a_plain_bot_leaves_in_a_session_of_its_own_dies_with_its_game(how: str) -> None:
    """A double fork into a session of its own, then a sleep, an exec (no tag left in its argv), or the keeper
    killed first; and the same escape from a cold start, whose tag sweep finds it."""
    source = ESCAPER.format(kill_keeper=how == "kills-its-keeper", exec_=how == "execs", keeper="keeper")
    source = source.replace("def act(message):", "keeper = os.getppid()  # read at import\ndef act(message):")
    bot = BotProcess.start(BotBundle("escaper", source), fast_limits(fork_server=how != "cold-start"), Tier.PLAIN)
    assert bot.pid is not None
    reply = bot.request({"type": "decide"})
    if how == "kills-its-keeper":  # and with it the bot, soon (it dies with its keeper), before or after its reply
        assert reply.status in (Status.OK, Status.CRASH), reply
        bot.close()
        said = reply.message["orphan"] if reply.message else bot.stderr_tail.split("orphan ")[1].split()[0]
        orphan = int(said)  # in its reply, or, when it died first, on the stderr its orphan shares
    else:
        assert reply.status is Status.OK and reply.message is not None, reply
        orphan = reply.message["orphan"]
        assert os.getsid(orphan) != os.getsid(bot.pid)  # out of the bot's session and group
        bot.close()
    deadline = time.monotonic() + 10
    while alive(orphan) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(orphan)
    if how != "cold-start":
        assert leftovers(bot) == set()
        after = start("after")  # its template is unharmed
        assert after.server_pid == bot.server_pid and after.status is Status.OK
        after.close()


def test_a_plain_bot_started_from_another_thread_starts_cold() -> None:
    """A plain template dies with the thread that started it: only a main thread starts one."""
    found: list[BotProcess] = []
    worker = threading.Thread(target=lambda: found.append(start("threaded")))
    worker.start()
    worker.join(60)
    assert found and found[0].status is Status.OK and found[0].server_pid is None
    found[0].close()
    assert_gone(found[0])


REFEREE = """import sys, time
from sandbox import BotBundle, BotProcess, Limits, Tier
bot = BotProcess.start(BotBundle("b", "def act(m):\\n    return {}\\n"), Limits(), Tier.PLAIN)
print(bot.server_pid, bot.keeper_pid, bot.pid, flush=True)
time.sleep(600)
"""


def test_a_plain_template_its_keeper_and_its_bot_die_with_their_referee() -> None:
    referee = subprocess.Popen([sys.executable, "-c", REFEREE], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert referee.stdout is not None
        pids = [int(word) for word in referee.stdout.readline().split()]
        assert len(pids) == 3 and all(alive(pid) for pid in pids), pids
        referee.send_signal(signal.SIGKILL)
        referee.wait(30)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in pids if alive(pid)] == []
    finally:
        referee.kill()
        referee.wait(30)
