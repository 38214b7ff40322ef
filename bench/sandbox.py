"""Sandbox benchmark: spawn-to-ready and per-decision round trip per tier, next to a raw JSON echo.

Run: python3 bench/sandbox.py [--spawns 30] [--requests 2000]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox import BotBundle, BotProcess, Limits, Status, Tier, detect_tier  # noqa: E402

ECHO_BOT = "def act(message):\n    return {'ok': message['n']}\n"
RAW_ECHO = (
    "import sys,json\n"
    "r=sys.stdin.buffer;w=sys.stdout.buffer\n"
    "w.write(b'{\"type\":\"ready\"}\\n');w.flush()\n"
    "for l in r:\n"
    "    m=json.loads(l);w.write(json.dumps({'ok':m['n']},separators=(',',':')).encode()+b'\\n');w.flush()\n"
)
MESSAGE = {"type": "decide", "kind": "plant", "choices": [0, 1], "n": 0}


def raw_echo(spawns: int, requests: int) -> tuple[float, float]:
    ready = []
    for _ in range(spawns):
        t = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-I", "-S", "-c", RAW_ECHO], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, env={})
        assert p.stdout is not None and p.stdout.readline() == b'{"type":"ready"}\n'
        ready.append(time.perf_counter() - t)
        p.kill()
        p.wait()
    p = subprocess.Popen([sys.executable, "-I", "-S", "-c", RAW_ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env={})
    assert p.stdin is not None and p.stdout is not None
    p.stdout.readline()
    times = []
    for n in range(requests):
        msg = dict(MESSAGE, n=n)
        t = time.perf_counter()
        p.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        p.stdin.flush()
        json.loads(p.stdout.readline())
        times.append(time.perf_counter() - t)
    p.kill()
    p.wait()
    return statistics.median(ready) * 1e3, statistics.median(times) * 1e6


def sandboxed(tier: Tier, spawns: int, requests: int, freeze: bool) -> tuple[float, float]:
    limits = Limits(freeze=freeze)
    bundle = BotBundle("echo", ECHO_BOT)
    ready = []
    for _ in range(spawns):
        t = time.perf_counter()
        bot = BotProcess.start(bundle, limits, tier)
        ready.append(time.perf_counter() - t)
        assert bot.status is Status.OK, bot.stderr_tail
        bot.close()
    times = []
    with BotProcess.start(bundle, limits, tier) as bot:
        for n in range(requests):
            t = time.perf_counter()
            reply = bot.request(dict(MESSAGE, n=n))
            times.append(time.perf_counter() - t)
            assert reply.status is Status.OK
    return statistics.median(ready) * 1e3, statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spawns", type=int, default=30)
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    tiers = [Tier.PLAIN] + ([Tier.STRONG] if detect_tier() is Tier.STRONG else [])
    print(f"python {sys.version.split()[0]} at {sys.executable}; {os.cpu_count()} cpus; kernel {os.uname().release}")
    print(f"{'setup':<34} {'spawn-to-ready ms':>18} {'round trip us':>14} {'vs raw':>7}")
    raw_ready, raw_rt = raw_echo(args.spawns, args.requests)
    print(f"{'raw echo (python3 -I -S, json)':<34} {raw_ready:>18.1f} {raw_rt:>14.0f} {1.0:>6.2f}x")
    for tier in tiers:
        for freeze in (True, False):
            ready, rt = sandboxed(tier, args.spawns, args.requests, freeze)
            label = f"{tier.value} tier, {'freezing' if freeze else 'no freezing'}"
            print(f"{label:<34} {ready:>18.1f} {rt:>14.0f} {rt / raw_rt:>6.2f}x")


if __name__ == "__main__":
    main()
