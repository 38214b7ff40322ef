"""The duel thrower (issue 41 item 7): what a partner gains when a bot loses to it on purpose, and a pair test.

    python3 bench/thrower.py                    # 10 seasons of 150 duels, each played twice (throw, control)
    python3 bench/thrower.py --quick            # 3 seasons of 60
    python3 bench/thrower.py --seasons 20 --games 300

A season is ``--games`` duels (``duel-v1``) between the pairs of a field drawn uniformly, seats in random
order: random, greedy, greedy-e10, greedy-e25 (epsilon copies, as in bench/audit.py), the partner and the
thrower of tests/sandbox/hostile/duel_thrower.py, played in this process through the bots' SDK moves
(bench/games.py), rated as the ladder rates a duel (arena.ladder.ratings.RatingBook, in the order played). The
control season deals the same games with the thrower's twin, which recognises the partner and plays on.
Figures: the partner's and the thrower's mu, wins and gold in both; then a pair test (each pair's wins
against what TrueSkill fitted on every other game of the season predicts, an exact binomial tail with a
Bonferroni bound at family error 0.01): how often it flags the pair in throwing seasons, and any pair in
control seasons (honest play). Seeds are fixed (``random.Random(f"thrower/{k}")``) and so is the hash order.
"""
from __future__ import annotations

import math
import os
import random
import statistics
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.ladder.ratings import BETA, RatingBook  # noqa: E402
from engine import duel_rules  # noqa: E402
from sandbox.sdk import Bot  # noqa: E402

import common  # noqa: E402
import games  # noqa: E402

ALPHA = 0.01
FIELD = ("random", "greedy", "greedy-e10", "greedy-e25", "partner", "thrower")
_HOSTILE = common.load_module("bench_duel_thrower", ROOT / "tests" / "sandbox" / "hostile" / "duel_thrower.py")


def bot(name: str, throws: bool) -> tuple[type, float]:
    """A field name as (bot class, epsilon); the thrower is its twin in a control season."""
    if name in ("partner", "thrower"):
        moves = {"partner": _HOSTILE.PartnerMoves, "thrower": _HOSTILE.ThrowerMoves if throws else _HOSTILE.TwinMoves}
        return type(name, (Bot,), {"princes_moves": moves[name]}), 0.0
    stem, _, eps = name.partition("-e")
    return common.bot_class(stem), int(eps or 0) / 100


Game = tuple[str, str, int, int, int, int]  # seat 0, seat 1, their ranks, their gold


def season(task: tuple[int, int, bool]) -> list[Game]:
    """Season ``k`` of ``length`` duels, throwing or control (the same deals and seatings)."""
    k, length, throws = task
    rng, rules = random.Random(f"thrower/{k}"), duel_rules()
    played: list[Game] = []
    for _ in range(length):
        a, b = rng.sample(FIELD, 2)
        game, _ = games.play_out(rules, [bot(a, throws), bot(b, throws)], rng.getrandbits(63), events=True)
        result = common.result_of(game)
        played.append((a, b, result.ranks[0], result.ranks[1], result.coins[0], result.coins[1]))
    return played


def rate(played: list[Game]) -> RatingBook:
    book = RatingBook({})
    for a, b, ra, rb, _, _ in played:
        book.record([FIELD.index(a), FIELD.index(b)], [ra, rb])
    return book


def tail(wins: int, n: int, p: float) -> float:
    """P(at most ``wins`` wins in ``n`` games at ``p`` each)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(wins + 1))


def pair_test(played: list[Game]) -> list[tuple[str, str, float, int, int]]:
    """Per ordered pair (loser, winner): the tail of the loser's wins against the rating fitted without
    their shared games, the loser's wins and the decisive games; ties are left out."""
    out = []
    for i, x in enumerate(FIELD):
        for y in FIELD[i + 1:]:
            shared = [g for g in played if {g[0], g[1]} == {x, y}]
            book = rate([g for g in played if {g[0], g[1]} != {x, y}])
            sx, sy = book.get(FIELD.index(x)), book.get(FIELD.index(y))
            p = 0.5 * (1 + math.erf((sx.mu - sy.mu) / math.sqrt(2 * (2 * BETA ** 2 + sx.sigma ** 2 + sy.sigma ** 2))))
            wx = sum(1 for g in shared if (g[2] < g[3]) == (g[0] == x) and g[2] != g[3])
            n = sum(1 for g in shared if g[2] != g[3])
            out.append((x, y, tail(wx, n, p), wx, n))
            out.append((y, x, tail(n - wx, n, 1 - p), n - wx, n))
    return out


def summary(played: list[Game]) -> dict[str, Any]:
    book = rate(played)
    def gold(name: str, against: str | None = None) -> list[int]:
        return [g[4] if g[0] == name else g[5] for g in played
                if name in g[:2] and (against is None or against in g[:2])]
    def wins(name: str, against: str) -> float:
        shared = [g for g in played if {g[0], g[1]} == {name, against}]
        return sum(1 for g in shared if (g[2] < g[3]) == (g[0] == name) and g[2] != g[3]) / max(1, len(shared))
    tests = pair_test(played)
    bound = ALPHA / len(tests)
    return {"mu": {n: book.get(FIELD.index(n)).mu for n in FIELD},
            "rank": {n: sorted(FIELD, key=lambda m: -book.get(FIELD.index(m)).score).index(n) + 1 for n in FIELD},
            "gold_vs_partner": statistics.mean(gold("thrower", "partner") or [0]),
            "gold_others": statistics.mean([c for a in FIELD[:4] for c in gold("thrower", a)] or [0]),
            "partner_wins": wins("partner", "thrower"), "shared": len(gold("thrower", "partner")),
            "flags": [(x, y) for x, y, t, _, _ in tests if t < bound],
            "pair_tail": min(t for x, y, t, _, _ in tests if {x, y} == {"partner", "thrower"})}


def main() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":  # the bots iterate over sets of beans: a fixed hash order
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    parser = common.parser(__doc__, games=150, games_help="duels per season")
    parser.add_argument("--seasons", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="3 seasons of 60 duels")
    args = parser.parse_args()
    if args.quick:
        args.seasons, args.games = 3, 60
    print(common.machine(f"{args.workers} workers"))
    print(f"# {args.seasons} seasons of {args.games} duels, field: {', '.join(FIELD)}; each season thrown and control")
    started = time.monotonic()
    tasks = [(k, args.games, throws) for k in range(args.seasons) for throws in (True, False)]
    with get_context("fork").Pool(args.workers) as pool:
        runs = pool.map(season, tasks, chunksize=1)
    results = [summary(p) for p in runs]
    thrown, control = results[0::2], results[1::2]
    def mean(rows: list[dict[str, Any]], *keys: str) -> float:
        def get(r: dict[str, Any]) -> float:
            return r[keys[0]][keys[1]] if len(keys) > 1 else r[keys[0]]
        return statistics.mean(get(r) for r in rows)
    differ = sum(1 for t, c in zip(runs[0::2], runs[1::2]) for a, b in zip(t, c)
                 if a != b and "partner" not in a[:2])
    alone = sum(1 for r in runs[0::2] for g in r if "partner" not in g[:2])
    print(f"games without the partner that differ between thrown and control (the thrower took an honest bot's "
          f"first turn for the signature): {differ} of {alone}")
    gains = [t["mu"]["partner"] - c["mu"]["partner"] for t, c in zip(thrown, control)]
    costs = [t["mu"]["thrower"] - c["mu"]["thrower"] for t, c in zip(thrown, control)]
    print(f"games shared by the pair: median {sorted(r['shared'] for r in thrown)[len(thrown) // 2]} a season")
    print(f"partner's wins against it: thrown {mean(thrown, 'partner_wins'):.2f}, "
          f"control {mean(control, 'partner_wins'):.2f}")
    print(f"partner's mu: thrown {mean(thrown, 'mu', 'partner'):.2f}, control {mean(control, 'mu', 'partner'):.2f}; "
          f"gain mean {statistics.mean(gains):.2f}, min {min(gains):.2f}, max {max(gains):.2f}")
    print(f"partner's board place (of {len(FIELD)}): thrown {mean(thrown, 'rank', 'partner'):.2f}, "
          f"control {mean(control, 'rank', 'partner'):.2f}")
    print(f"thrower's mu: thrown {mean(thrown, 'mu', 'thrower'):.2f}, control {mean(control, 'mu', 'thrower'):.2f}; "
          f"cost mean {-statistics.mean(costs):.2f}, max {-min(costs):.2f}")
    print(f"thrower's gold a game against the partner: thrown {mean(thrown, 'gold_vs_partner'):.2f}, "
          f"control {mean(control, 'gold_vs_partner'):.2f}; against the honest bots "
          f"{mean(thrown, 'gold_others'):.2f} / {mean(control, 'gold_others'):.2f}")
    print(f"greedy's mu (the board's noise): sd over control seasons "
          f"{statistics.stdev(r['mu']['greedy'] for r in control):.2f}")
    caught = sum(1 for r in thrown if ("thrower", "partner") in r["flags"])
    other = sum(1 for r in thrown for f in r["flags"] if f != ("thrower", "partner"))
    false = sum(1 for r in control if r["flags"])
    print(f"pair test (Bonferroni over {len(FIELD) * (len(FIELD) - 1)} ordered pairs, alpha {ALPHA}): "
          f"pair flagged {caught}/{len(thrown)} thrown seasons (other flags there: {other}); "
          f"control seasons with any flag {false}/{len(control)} {[r['flags'] for r in control if r['flags']]}")
    print(f"the pair's tail: thrown median {sorted(r['pair_tail'] for r in thrown)[len(thrown) // 2]:.2g} "
          f"(bound {ALPHA / (len(FIELD) * (len(FIELD) - 1)):.2g}), "
          f"control min {min(r['pair_tail'] for r in control):.2g}")
    print(f"# {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
