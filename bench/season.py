"""Season throughput with fresh bot state every game: fork servers against a cold start per bot.

    python3 bench/season.py [--games N] [--workers N] [--breakdown-games N]

In one run, on a fresh SQLite file with the example bots (plus renamed copies, so that 4-player
tables have 4 different bots): a season of 4-player, seat-rotated deals in the strong sandbox
with (a) fork servers (the default: every bot of every game is a fresh child of a warmed
template) and (b) a cold start of every bot for every game; prints games per minute of each,
then where one game's time goes (bot start-up, bot requests, the referee and engine), the
protocol round trip with real ``decide`` messages through a sandboxed bot against a raw echo
that uses the runner's JSON codec, and last ``fresh state vs cold spawn: X.XXx``.
"""
from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.db import make_engine  # noqa: E402
from arena.ladder import run_season  # noqa: E402
from arena.planning import SeasonSettings  # noqa: E402
from arena.players import SandboxPlayer  # noqa: E402
from arena.referee import play_game  # noqa: E402
from engine import classic_rules  # noqa: E402
from sandbox import BotBundle, BotProcess, Limits, Reply, Tier, detect_tier  # noqa: E402
from sandbox.boot import RUNNER_PATH  # noqa: E402

import common  # noqa: E402

ECHO_BOT = "def act(message):\n    return {'id': message.get('id'), 'action': {'type': 'pass'}}\n"


def season_rate(engine: Any, name: str, games: int, workers: int, limits: Limits, tier: Tier) -> float:
    started = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    settings = SeasonSettings(name=name, games=games, min_players=4, max_players=4, seed=len(name), rotate=True)
    progress = run_season(engine, settings, workers, limits, tier)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    coordinator_ms = (after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime) * 1000 / max(1, progress.done)
    rate = progress.done / elapsed * 60
    print(f"{name:<12} {progress.done} games in {elapsed:6.1f} s = {rate:6.1f} games/min "
          f"(failures {progress.failures}, void {progress.void}; coordinator CPU {coordinator_ms:.1f} ms a game)",
          flush=True)
    return rate


class Recorder:
    """A player that records the messages its bot is sent (to replay real ``decide`` sizes)."""

    def __init__(self, inner: SandboxPlayer, sink: list[dict]) -> None:
        self.inner, self.sink, self.name = inner, sink, inner.name

    def request(self, message: dict) -> Reply:
        self.sink.append(message)
        return self.inner.request(message)

    def notify(self, message: dict) -> None:
        self.inner.notify(message)

    def time_left_ms(self) -> float:
        return self.inner.time_left_ms()

    def new_game(self) -> None:
        self.inner.new_game()

    def close(self) -> None:
        self.inner.close()

    @property
    def stderr_tail(self) -> str:
        return self.inner.stderr_tail


def breakdown(games: int, limits: Limits, tier: Tier) -> list[dict]:
    """One worker, games one after another: where a game's time goes. Returns the decide messages seen."""
    rules = classic_rules()
    sources = [(common.BOTS / f"{stem}.py").read_text()
               for stem in ("random_bot", "greedy_bot", "random_bot", "greedy_bot")]
    messages: list[dict] = []
    rows = []
    for seed in range(games):
        started = time.perf_counter()
        players = [SandboxPlayer(f"b{i}", source, limits, tier) for i, source in enumerate(sources)]
        spawned = time.perf_counter()
        record = play_game(rules, seed, [Recorder(p, messages) if seed == 0 else p for p in players], limits)
        played = time.perf_counter()
        for p in players:
            p.close()
        closed = time.perf_counter()
        bots_ms = sum(s.time_ms for s in record.seats)
        rows.append({"spawn": (spawned - started) * 1000, "game": (played - spawned) * 1000, "bots": bots_ms,
                     "close": (closed - played) * 1000, "decisions": sum(s.decisions for s in record.seats)})
    mean = {k: statistics.fmean(r[k] for r in rows) for k in rows[0]}
    total = mean["spawn"] + mean["game"] + mean["close"]
    print(f"  one game ({games} games, 4 seats, {mean['decisions']:.0f} decisions): {total:.1f} ms = "
          f"start 4 bots {mean['spawn']:.1f} + bot requests {mean['bots']:.1f} (round trips and thinking) "
          f"+ referee and engine {mean['game'] - mean['bots']:.1f} + close 4 bots {mean['close']:.1f}")
    return [m for m in messages if m.get("type") == "decide"]


RAW_ECHO = """
import sys, os
codec = {"__name__": "codec"}
exec(compile(open(sys.argv[1]).read(), "runner", "exec"), codec)
loads, dumps = codec["_json_codec"]()
r = sys.stdin.buffer
while True:
    line = r.readline()
    if not line:
        break
    m = loads(line.decode())
    os.write(1, (dumps({"id": m.get("id"), "action": {"type": "pass"}}) + "\\n").encode())
"""


def round_trips(decides: list[dict], tier: Tier, rounds: int = 3) -> tuple[float, float]:
    """Median µs per request with real decide messages: a sandboxed echo bot and a raw echo process."""
    from sandbox.framing import encode

    bot = BotProcess.start(BotBundle("echo", ECHO_BOT), Limits(), tier)
    try:
        times = []
        for _ in range(rounds):
            for m in decides:
                t = time.perf_counter()
                bot.request(m)
                times.append(time.perf_counter() - t)
        sandboxed = statistics.median(times) * 1e6
    finally:
        bot.close()
    raw = subprocess.Popen([sys.executable, "-S", "-c", RAW_ECHO, str(RUNNER_PATH)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, bufsize=0)
    assert raw.stdin and raw.stdout
    times = []
    for _ in range(rounds):
        for m in decides:
            t = time.perf_counter()
            raw.stdin.write(encode(m))  # encoding is timed on both sides, as BotProcess.request does it
            raw.stdout.readline()
            times.append(time.perf_counter() - t)
    raw.stdin.close()
    raw.wait()
    return sandboxed, statistics.median(times) * 1e6


def main() -> None:
    parser = common.parser(__doc__, 240, games_help="games per season (4-player rotated deals)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--breakdown-games", type=int, default=20)
    args = parser.parse_args()
    tier = detect_tier()
    print(common.machine(f"tier {tier.value}", f"{args.workers} workers", "4-player seat-rotated deals"), flush=True)
    forked, cold = Limits(), Limits(fork_server=False)
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{folder}/bench.sqlite")
        common.register_example_bots(engine)
        fresh = season_rate(engine, "fork-server", args.games, args.workers, forked, tier)
        spawn = season_rate(engine, "cold-spawn", args.games, args.workers, cold, tier)
    for label, limits in (("fork server", forked), ("cold spawn", cold)):
        print(f"breakdown, {label}:")
        decides = breakdown(args.breakdown_games, limits, tier)
    sizes = sorted(len(json.dumps(m, separators=(",", ":"))) for m in decides)
    sandboxed, raw = round_trips(decides, tier)
    print(f"round trip with {len(decides)} real decide messages (median {sizes[len(sizes) // 2]} B, "
          f"max {sizes[-1]} B): sandboxed bot {sandboxed:.0f} µs, raw echo with the runner's codec {raw:.0f} µs "
          f"({sandboxed / raw:.2f}x)")
    print(f"fresh state vs cold spawn: {fresh / spawn:.2f}x")


if __name__ == "__main__":
    main()
