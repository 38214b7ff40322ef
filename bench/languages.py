"""What a bot's language costs in the strong tier: the same "first legal option" bot written in Python
(the SDK), JavaScript (node) and C (gcc), each seated with two greedy bots on the same deals, one game
after another on one worker, fork servers on (as seasons run). Per language: start-up (spawn to
ready, then the first reply: a program's own start-up counts there), its time over a game, and whole
games a minute for the table.

Run: python3 bench/languages.py [--games 40]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.play.players import SandboxPlayer  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from engine import classic_rules  # noqa: E402
from sandbox import Limits, Tier, detect_tier  # noqa: E402
from sandbox.fork_server_pool import close_fork_servers  # noqa: E402

import common  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
PYTHON_FIRST_OPTION = '''
def act(message):
    if message["type"] == "hello":
        return {"type": "ready"}
    if message["type"] == "decide":
        options = message["options"]
        choice = next((o for o in options if o["type"] not in ("harvest", "buy_field")), options[0])
        return {"id": message["id"], "action": choice}
'''
BOTS = {"python": PYTHON_FIRST_OPTION, "javascript": (EXAMPLES / "first_option_bot.js").read_text(),
        "c": (EXAMPLES / "first_option_bot.c").read_text()}


def measure(language: str, games: int, limits: Limits) -> dict[str, float]:
    greedy = (common.BOTS / "greedy_bot.py").read_text()
    rules = classic_rules()
    starts, own, walls, coins = [], [], [], []
    SandboxPlayer("warm", BOTS[language], limits, Tier.STRONG, language).close()  # fork server and build, once
    for seed in range(games):
        started = time.perf_counter()
        players = [SandboxPlayer("first", BOTS[language], limits, Tier.STRONG, language),
                   SandboxPlayer("g1", greedy, limits, Tier.STRONG), SandboxPlayer("g2", greedy, limits, Tier.STRONG)]
        ready = time.perf_counter()
        try:
            record = play_game(rules, seed, players, limits)
        finally:
            for player in players:
                player.close()
        walls.append(time.perf_counter() - started)
        seat = record.seats[0]
        assert seat.status.value == "ok", (language, seat.status, seat.detail)
        starts.append((ready - started) / 3 * 1000)
        own.append(seat.time_ms)
        coins.append(seat.coins)
    return {"start_ms": statistics.median(starts), "own_ms": statistics.median(own),
            "games_per_min": games / sum(walls) * 60, "coins": statistics.mean(coins)}


def main() -> None:
    args = common.parser(__doc__ or "", 40).parse_args()
    if detect_tier() is not Tier.STRONG:
        sys.exit("the strong tier is needed (bubblewrap)")
    limits = Limits()
    print(common.machine())
    print(f"{'language':<11} {'start ms':>9} {'bot ms/game':>12} {'games/min':>10} {'mean coins':>11}")
    results = {}
    for language in BOTS:
        results[language] = row = measure(language, args.games, limits)
        print(f"{language:<11} {row['start_ms']:>9.1f} {row['own_ms']:>12.1f} {row['games_per_min']:>10.1f} "
              f"{row['coins']:>11.2f}")
    close_fork_servers()
    base = results["python"]["games_per_min"]
    print("table pace relative to Python, same run: " + ", ".join(
        f"{language} {row['games_per_min'] / base:.2f}x" for language, row in results.items()))


if __name__ == "__main__":
    main()
