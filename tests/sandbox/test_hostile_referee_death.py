"""A referee killed mid-game leaves no bot behind.

The battery's promises and its ``run``: hostile_helpers.py.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hostile_helpers import ROOT
from sandbox_helpers import gone_within, live_threads

from sandbox import Tier
from sandbox.procscan import live_descendants, processes_with_tag


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


DAEMON_REFEREE = """
import json, sys, time
sys.path.insert(0, {root!r})
from sandbox import BotBundle, BotProcess, Limits, Tier
bot = BotProcess.start(BotBundle("daemon", open({bot!r}).read()), Limits(decision_ms=60000), Tier.PLAIN)
reply = bot.request({{"type": "decide"}})
print(json.dumps({{"bot": bot.pid, "forked": bot.server_tag is not None, "said": reply.message}}), flush=True)
time.sleep(600)  # the test SIGKILLs us meanwhile
"""


def test_a_plain_bots_setsid_daemon_ends_with_a_sigkilled_referee() -> None:
    """A forked plain bot leaves a daemon in a session of its own, then its referee is SIGKILLed: the template dies
    with the referee, and the bot's keeper, told by a catchable signal, ends the bot and every orphan it left
    (a SIGKILL to the keeper, as before, left the daemon to init)."""
    code = DAEMON_REFEREE.format(root=str(ROOT), bot=str(Path(__file__).with_name("hostile") / "orphan_daemon.py"))
    referee = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert referee.stdout is not None
        info = json.loads(referee.stdout.readline())
        assert info["forked"] and info["said"]["daemon"] == "started"
        daemon = info["said"]["pid"]
        assert live_threads(daemon)
        referee.send_signal(signal.SIGKILL)
        referee.wait(timeout=10)
        assert gone_within(daemon, 30) and gone_within(info["bot"], 30)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
