"""The referee's own cost against the bare engine's, and a bot request against a raw echo (issue 28).

    python3 bench/referee.py [--games N] [--rounds N] [--code DIR] [--compare OLD_DIR]

(a) ``--games`` 4-player games (random, greedy, random, greedy), played by the referee with sandboxed bots
(fork servers, the best tier here); per game the referee and engine's time is the game's wall time less
the time its bots' requests took as the sandbox measured them, and the same game's actions are replayed
through the bare engine alone (a new game; at each step its decision and legal options, then the
recorded action applied: what a bot-less engine does): ``referee and engine vs engine alone: X.XXx``; and
the same games refereed without the sandbox, each seat replaying its bot's recorded replies (the referee's
own work: messages, replies, the engine), against the bare engine, interleaved (``without the sandbox``).
(b) the round trip with these games' real ``decide`` messages, a request of a sandboxed echo bot against a
raw echo process with the runner's JSON codec (each timed from the message to its parsed reply):
``sandboxed vs raw echo: X.XXx``. Medians over ``--rounds`` rounds.

``--code DIR`` runs the code of another checkout (e.g. a worktree of an older commit); ``--compare OLD_DIR``
runs this script on OLD_DIR's code and on this checkout's, interleaved, ``--rounds`` times each, and prints
the medians of both side by side.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _code_root() -> Path:
    if "--code" in sys.argv:
        return Path(sys.argv[sys.argv.index("--code") + 1]).resolve()
    return ROOT


sys.path.insert(0, str(_code_root()))

from arena.play.players import SandboxPlayer  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from engine import action_from_json, classic_rules, new_game  # noqa: E402
from sandbox import BotBundle, BotProcess, Limits, Reply, Status, Tier, detect_tier  # noqa: E402
from sandbox.boot import RUNNER_PATH  # noqa: E402
from sandbox.framing import decode  # noqa: E402
from sandbox.protocol import DecideMessage, Message, encode  # noqa: E402

import common  # noqa: E402

ECHO_BOT = "def act(message):\n    return {'id': message.get('id'), 'action': {'type': 'pass'}}\n"
STEMS = ("random_bot", "greedy_bot", "random_bot", "greedy_bot")
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


class Recorder(common.Relay):
    """A seat that keeps the full ``decide`` messages its bot is sent (forwarding them as its bot gets them)."""

    def __init__(self, inner: SandboxPlayer, sink: list[dict[str, Any]], rules: Any, seed: int) -> None:
        super().__init__(inner)
        self.sink = sink
        self.rules, self.seed = rules, seed

    def request(self, message: Message) -> Reply:
        if isinstance(message, DecideMessage):
            self.sink.append(json.loads(encode(message)))
        return self.inner.request(message)


def engine_alone_ms(rules: Any, seed: int, players: int, actions: list[Any]) -> float:
    """The bare engine playing ``actions`` (decoded beforehand): a new game, each step's decision, each action."""
    started = time.perf_counter()
    game = new_game(rules, players, seed)
    for action in actions:
        game.decision  # noqa: B018 - the legal options, as the referee asks them at every step
        game.apply(action)
    return (time.perf_counter() - started) * 1000


def referee_vs_engine(games: int, limits: Limits, tier: Tier, first_seed: int = 0,
                      record: list[dict[str, Any]] | None = None,
                      played: list[tuple[int, list[tuple[int, dict[str, Any]]]]] | None = None
                      ) -> tuple[float, float, float]:
    """Per game means (ms): the referee and engine, the bare engine on the same actions, and the bots' requests.
    The first game's full decide messages go into ``record``, every game's (seed, steps) into ``played``."""
    rules = classic_rules()
    sources = [(common.BOTS / f"{stem}.py").read_text() for stem in STEMS]
    referee: list[float] = []
    alone: list[float] = []
    bots: list[float] = []
    for seed in range(first_seed, first_seed + games):
        players: list[Any] = [SandboxPlayer(f"b{i}", source, limits, tier) for i, source in enumerate(sources)]
        try:
            seats = [Recorder(p, record, rules, seed) for p in players] if record is not None and not referee \
                else players
            started = time.perf_counter()
            result = play_game(rules, seed, seats, limits)
            wall = (time.perf_counter() - started) * 1000
        finally:
            for p in players:
                p.close()
        assert result.void is None and all(s.status.value == "ok" for s in result.seats), result
        bots_ms = sum(s.time_ms for s in result.seats)
        steps = [(seat, action) for seat, action in json.loads(result.replay_text)["actions"]]
        if played is not None:
            played.append((seed, steps))
        actions = [action_from_json(a) for _, a in steps]
        referee.append(wall - bots_ms)
        bots.append(bots_ms)
        alone.append(min(engine_alone_ms(rules, seed, len(players), actions) for _ in range(3)))
    return statistics.fmean(referee), statistics.fmean(alone), statistics.fmean(bots)


class ReplayPlayer:
    """A seat answering each decide with the action its bot chose in a recorded game (replies made beforehand),
    that reads only the lines it is sent, as a sandboxed bot does: the referee without any bot."""

    stderr_tail = ""

    def __init__(self, name: str, replies: list[dict[str, Any]]) -> None:
        self.name, self._replies, self._next = name, replies, 0
        self._ready = Reply(Status.OK, {"type": "ready"}, 0.0)

    def request(self, message: Message) -> Reply:
        if not isinstance(message, DecideMessage):
            return self._ready
        encode(message)  # what a sandboxed seat's player does with it
        reply = self._replies[self._next]
        self._next += 1
        reply["id"] = message.id
        return Reply(Status.OK, reply, 0.0)

    def notify(self, message: Message) -> None:
        encode(message)

    def time_left_ms(self) -> float:
        return 3000.0

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        pass


def referee_alone_vs_engine(games: list[tuple[int, list[tuple[int, dict[str, Any]]]]], rounds: int = 3
                            ) -> tuple[float, float]:
    """Per game medians (ms) of the referee with ``ReplayPlayer`` seats (no sandbox, no bot) and of the bare engine
    on the same (seed, [(seat, action JSON)]) games, interleaved."""
    rules = classic_rules()
    referee, alone = [], []
    for _ in range(rounds):
        for seed, steps in games:
            replies: list[list[dict[str, Any]]] = [[] for _ in range(4)]
            for seat, action in steps:
                replies[seat].append({"id": 0, "action": action})
            players = [ReplayPlayer(f"b{i}", replies[i]) for i in range(4)]
            started = time.perf_counter()
            play_game(rules, seed, players)
            referee.append((time.perf_counter() - started) * 1000)
            alone.append(engine_alone_ms(rules, seed, 4, [action_from_json(a) for _, a in steps]))
    return statistics.median(referee), statistics.median(alone)


def round_trips(decides: list[dict[str, Any]], tier: Tier, rounds: int = 3) -> tuple[float, float]:
    """Median µs from a decide message to its parsed reply: a sandboxed echo bot, a raw echo process."""
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
            raw.stdin.write(encode(m))  # encoding and parsing are timed on both sides, as BotProcess.request does
            decode(raw.stdout.readline()[:-1])
            times.append(time.perf_counter() - t)
    raw.stdin.close()
    raw.wait()
    return sandboxed, statistics.median(times) * 1e6


def measure(games: int) -> dict[str, float]:
    tier = detect_tier()
    decides: list[dict[str, Any]] = []
    played: list[tuple[int, list[tuple[int, dict[str, Any]]]]] = []
    referee, alone, bots = referee_vs_engine(games, Limits(), tier, record=decides, played=played)
    bare, bare_engine = referee_alone_vs_engine(played)
    sandboxed, raw = round_trips(decides, tier)
    return {"referee_ms": referee, "engine_ms": alone, "bots_ms": bots, "ratio": referee / alone,
            "bare_ms": bare, "bare_engine_ms": bare_engine, "bare_ratio": bare / bare_engine,
            "sandboxed_us": sandboxed, "raw_us": raw, "rt_ratio": sandboxed / raw}


def show(label: str, r: dict[str, float]) -> str:
    return (f"{label}referee and engine {r['referee_ms']:.1f} ms a game, engine alone {r['engine_ms']:.1f} ms, "
            f"bot requests {r['bots_ms']:.1f} ms: referee and engine vs engine alone: {r['ratio']:.2f}x; "
            f"without the sandbox (replayed seats) {r['bare_ms']:.1f} ms vs {r['bare_engine_ms']:.1f} ms: "
            f"{r['bare_ratio']:.2f}x; "
            f"round trip sandboxed {r['sandboxed_us']:.0f} µs, raw echo {r['raw_us']:.0f} µs: "
            f"sandboxed vs raw echo: {r['rt_ratio']:.2f}x")


def compare(old: Path, games: int, rounds: int) -> None:
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for _ in range(rounds):
        for label, code in (("old", old), ("new", ROOT)):
            argv = [sys.executable, __file__, "--code", str(code), "--games", str(games), "--json"]
            out = subprocess.run(argv, check=True, capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": str(code)})
            runs[label].append(json.loads(out.stdout.splitlines()[-1]))
            print(show(f"  {label}: ", runs[label][-1]), flush=True)
    for label, rows in runs.items():
        print(show(f"median {label} ({old if label == 'old' else ROOT}): ",
                   {k: statistics.median(r[k] for r in rows) for k in rows[0]}))


def main() -> None:
    parser = common.parser(__doc__, 10, games_help="games per round (4-player)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code is measured")
    parser.add_argument("--compare", type=Path, help="an older checkout to measure interleaved with this one")
    parser.add_argument("--json", action="store_true", help="one round, printed as JSON")
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.games)))
        return
    print(common.machine(f"tier {detect_tier().value}", f"{args.games} games a round"), flush=True)
    if args.compare:
        compare(args.compare, args.games, args.rounds)
        return
    rows = [measure(args.games) for _ in range(args.rounds)]
    print(show(f"median of {args.rounds}: ", {k: statistics.median(r[k] for r in rows) for k in rows[0]}))


if __name__ == "__main__":
    main()
