"""Calibration of the sequential test of `arena test` (arena/testrun/sprt.py): on simulated pairs, and with real bots.

    python3 bench/sprt_calibration.py [--tests 2000] [--elo1 5]          # simulated pair outcomes
    python3 bench/sprt_calibration.py --bots [--quick]                   # real bots, in-process (docs/benchmarks.md)

Simulated: pairs are drawn from a pentanomial distribution whose mean score is that of a true Elo
difference (the shape of draws-heavy Bohnanza pairs: most pairs level, the rest spread around): at
the true difference elo0 (0) the share of H1 verdicts is the false-positive rate, which must stay at
or below alpha; at elo1 the share of H1 is the power (1 - beta at best). Also the mean number of
pairs to a verdict. This measures the statistic, not the pairing.

``--bots``: the built-in bots and "epsilon copies" of them (``trader-e10``: the trader, but with
probability 0.1 a uniformly random legal option) play in this process, through their SDK decision
methods on typed Requests built from the engine state (no sandbox, no JSON; the search bot, which
follows the events, is not supported). A pair is exactly arena test's: ``arena.testrun.run.pair_games``
seats NEW and OLD (same deck, seat, field and field seeds in both games of a deal, a fresh bot
object every game) and ``arena.testrun.run.pair_scores`` scores it; only the seeds come from a seeded
generator instead of ``secrets``. An epsilon copy's coin is its own randomness, drawn from the
referee's bot seed and its index at the table, so NEW and OLD flip different coins (as a bot with a
clock-bound search would differ between two runs); a bot without epsilon takes all its randomness
from the bot seed, so an exact copy plays exactly the same game. Per pairing NEW:OLD:

- the true gap: ``--gap-pairs`` pairs, pentanomial counts and the Elo estimate with its interval;
- ``--runs`` full sequential tests per ``--elo1`` (elo0 0, alpha = beta = 0.05): shares of H1 / H0 /
  undecided after ``--max-pairs``, with Wilson 95 % intervals, mean pairs (and games: 4 a pair);
- ``--seasons`` TrueSkill runs: tables of NEW, OLD and the field together in a random seating, a fresh
  deck each, rated one game at a time by ``arena.ladder.ratings.RatingBook`` (the ladder's constants, ranks
  from the game's final standing) from fresh ratings, up to ``--horizon`` games. TrueSkill is
  "confident" when P(NEW better) = Phi((mu_new - mu_old) / sqrt(sigma_new^2 + sigma_old^2)) >= 1 - beta
  (the ladder's ``misorder_risk`` formula): games until it first is, until it is for good (up to the
  horizon; censored runs are counted at the horizon and reported), and the share confident at the
  SPRT's mean games for the same pairing (its false-positive analogue for equal bots).
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
from typing import Any, Iterable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.play.tables import GameSpec  # noqa: E402
from arena.ladder.ratings import RatingBook  # noqa: E402
from arena.testrun.sprt import PAIR_SCORES, Hypotheses, Pentanomial, score_of_elo  # noqa: E402
from arena.testrun.run import pair_games, pair_scores  # noqa: E402
from engine import classic_rules, new_game  # noqa: E402
from sandbox.sdk import Request  # noqa: E402

import common  # noqa: E402

BASE = (0.05, 0.15, 0.6, 0.15, 0.05)  # probabilities of pair scores 0, 1/4, 1/2, 3/4, 1 at an even match


def shifted(elo: float) -> list[float]:
    """BASE tilted (exponentially) until its mean score is that of ``elo``."""
    target = score_of_elo(elo)
    low, high = -50.0, 50.0
    for _ in range(100):
        t = (low + high) / 2
        weights = [p * 2.718281828 ** (t * s) for p, s in zip(BASE, PAIR_SCORES)]
        mean = sum(w * s for w, s in zip(weights, PAIR_SCORES)) / sum(weights)
        low, high = (t, high) if mean < target else (low, t)
    total = sum(weights)
    return [w / total for w in weights]


def one_test(rng: random.Random, probabilities: list[float], h: Hypotheses, max_pairs: int) -> tuple[str | None, int]:
    results = Pentanomial()
    while results.pairs < max_pairs:
        results.counts[rng.choices(range(5), probabilities)[0]] += 1
        verdict = results.verdict(h)
        if verdict:
            return verdict, results.pairs
    return None, results.pairs


def simulated(opts: Any) -> None:
    h = Hypotheses(0.0, float(opts.elo1), 0.05, 0.05)
    rng = random.Random(1)
    print(common.machine(f"{opts.tests} simulated tests per row, elo0 0, elo1 {h.elo1:g}, alpha = beta = 0.05"))
    print("true Elo | H1 share | H0 share | undecided | mean pairs to a verdict")
    for elo in (0.0, h.elo1 / 2, h.elo1, 2 * h.elo1):
        probabilities = shifted(elo)
        runs = [one_test(rng, probabilities, h, opts.max_pairs) for _ in range(opts.tests)]
        decided = [n for v, n in runs if v]
        print(f"{elo:8.1f} | {sum(v == 'H1' for v, _ in runs) / len(runs):8.3f} | "
              f"{sum(v == 'H0' for v, _ in runs) / len(runs):8.3f} | {sum(v is None for v, _ in runs):9d} | "
              f"{sum(decided) / max(1, len(decided)):.0f}")


# ----------------------------------------------------------------- real bots, in-process
FIELD = ("random", "greedy", "trader")  # arena test's default field
STEMS = ("random", "greedy", "trader")
MASK = 2**63 - 1


def parse_bot(name: str) -> tuple[str, float]:
    """``trader`` -> ("trader", 0.0); ``trader-e10`` -> ("trader", 0.10)."""
    stem, _, eps = name.partition("-e")
    if stem not in STEMS or (eps and not eps.isdigit()):
        raise ValueError(f"unknown bot {name!r}: one of {', '.join(STEMS)}, optionally with -eNN (epsilon NN %)")
    return stem, int(eps) / 100 if eps else 0.0


bot_class = common.bot_class


class Player:
    """Bot ``name`` at one seat of one game; an epsilon copy flips its own coin (``coin_seed``)."""

    def __init__(self, name: str, rules: Any, seat: int, players: int, bot_seed: int, coin_seed: int) -> None:
        stem, self.eps = parse_bot(name)
        self.bot = bot_class(stem)()  # a fresh object every game, as the sandbox runner starts one
        self.bot.rules, self.bot.seat, self.bot.players = rules, seat, players
        self.bot.rng = random.Random(bot_seed)
        self.coin = random.Random(coin_seed)

    def decide(self, request: Request) -> Any:
        if self.eps and self.coin.random() < self.eps:
            return self.coin.choice(request.options)
        return getattr(self.bot, request.kind.value)(request)


RULES: Any = None


def play(bots: Sequence[str], game_spec: GameSpec) -> tuple[int, ...]:
    """Ranks by seat (1 = best, ties shared) of one classic game: ``bots`` seated as ``game_spec.seating`` says."""
    global RULES
    rules = RULES = RULES or classic_rules()
    n = len(game_spec.seating)
    game = new_game(rules, n, game_spec.seed)
    players = [Player(bots[b], rules, seat, n, game_spec.bot_seeds[seat],
                      (game_spec.bot_seeds[seat] * 0x9E3779B97F4A7C15 + b + 1) & MASK)
               for seat, b in enumerate(game_spec.seating)]
    number = 0
    while not game.over:
        d = game.decision
        assert d is not None  # the game is not over
        game.apply(players[d.seat].decide(Request(number, d.kind, game.view(d.seat), (), d.options, 1000.0)))
        number += 1
    assert game.result is not None
    return tuple(game.result.ranks)


def play_pair(new: str, old: str, field: Sequence[str], number: int, rng: random.Random) -> tuple[float, float]:
    """One pair as ``arena test`` plays it, its seat, deck and bot seeds drawn from ``rng``."""
    players = len(field) + 1
    seat = rng.randrange(players)
    deck = rng.getrandbits(63)
    bot_seeds = [tuple(rng.getrandbits(63) for _ in range(players)) for _deal in (0, 1)]
    games = pair_games(number, players, seat, deck, bot_seeds)
    bots = (new, old, *field)
    return pair_scores(games, [play(bots, g) for g in games])


def gap_chunk(task: tuple[str, str, tuple[str, ...], int, int]) -> list[int]:
    """Pentanomial counts of pairs ``first``..``first + count - 1`` of NEW:OLD."""
    new, old, field, first, count = task
    results = Pentanomial()
    for k in range(first, first + count):
        results.add(*play_pair(new, old, field, k, random.Random(f"gap/{new}/{old}/{k}")))
    return results.counts


def sequential(task: tuple[str, str, tuple[str, ...], float, int, int]) -> tuple[str | None, int]:
    """One full sequential test of NEW:OLD (elo0 0, elo1, alpha = beta = 0.05): its verdict and pairs."""
    new, old, field, elo1, run, max_pairs = task
    h = Hypotheses(0.0, elo1, 0.05, 0.05)
    rng = random.Random(f"test/{new}/{old}/{elo1}/{run}")
    results = Pentanomial()
    while results.pairs < max_pairs:
        results.add(*play_pair(new, old, field, results.pairs, rng))
        verdict = results.verdict(h)
        if verdict:
            return verdict, results.pairs
    return None, results.pairs


def season(task: tuple[str, str, tuple[str, ...], int, int]) -> list[float]:
    """P(NEW better than OLD) by TrueSkill after each game of a fresh ladder of NEW, OLD and the field."""
    new, old, field, run, horizon = task
    bots = (new, old, *field)
    rng = random.Random(f"season/{new}/{old}/{run}")
    book = RatingBook({})
    history = []
    for number in range(horizon):
        seating = list(range(len(bots)))
        rng.shuffle(seating)
        spec = GameSpec(number, rng.getrandbits(63), tuple(seating), tuple(rng.getrandbits(63) for _ in bots))
        ranks = play(bots, spec)
        book.record(spec.seating, ranks)
        a, b = book.get(0), book.get(1)
        spread = math.sqrt(a.sigma ** 2 + b.sigma ** 2)
        history.append(statistics.NormalDist().cdf((a.mu - b.mu) / spread))
    return history


def _init() -> None:
    if os.nice(0) < 10:
        os.nice(10)


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial share."""
    if not n:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def share(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits}/{n} = {hits / n:.3f} [{low:.3f}, {high:.3f}]" if n else "-"


def first_at(history: Sequence[float], level: float) -> int | None:
    """Games (1-based) until P first reaches ``level``; None if never."""
    return next((i + 1 for i, p in enumerate(history) if p >= level), None)


def for_good(history: Sequence[float], level: float) -> int | None:
    """Games after which P stays >= ``level`` up to the horizon; None if it is below at the horizon."""
    if not history or history[-1] < level:
        return None
    last_below = max((i for i, p in enumerate(history) if p < level), default=-1)
    return last_below + 2


def quartiles(values: Sequence[float]) -> str:
    if not values:
        return "-"
    if len(values) < 2:
        return f"{values[0]:.0f}"
    q = statistics.quantiles(values, n=4, method="inclusive")
    return f"{statistics.median(values):.0f} ({q[0]:.0f}-{q[2]:.0f}), mean {statistics.fmean(values):.0f}"


def bots_mode(opts: Any) -> None:
    field = tuple(opts.field.split(","))
    pairings = [tuple(p.split(":")) for p in opts.pairings.split(",")]
    elo1s = [float(e) for e in str(opts.elo1).split(",")]
    runs = [int(r) for r in str(opts.runs).split(",")]
    if len(runs) == 1:
        runs *= len(elo1s)
    for name in {*field, *(b for p in pairings for b in p)}:
        parse_bot(name)
    level = 0.95  # 1 - beta
    print(common.machine(f"{os.cpu_count()} cpus, {opts.workers} workers, field {','.join(field)}, "
                         f"gap pairs {opts.gap_pairs}, tests {runs} at elo1 {elo1s} (elo0 0, alpha = beta = 0.05, "
                         f"max pairs {opts.max_pairs}), {opts.seasons} TrueSkill seasons of {opts.horizon} games"),
          flush=True)
    started = time.perf_counter()
    with get_context("fork").Pool(opts.workers, initializer=_init) as pool:
        def mapped(function: Any, tasks: Iterable[Any]) -> list[Any]:
            return list(pool.imap(function, tasks, chunksize=1))

        for new, old in pairings:
            clock = time.perf_counter()
            print(f"\n## {new} (NEW) : {old} (OLD)", flush=True)
            if opts.gap_pairs:
                chunk = max(1, opts.gap_pairs // (8 * opts.workers))
                gap = Pentanomial()
                for counts in mapped(gap_chunk, [(new, old, field, k, min(chunk, opts.gap_pairs - k))
                                                  for k in range(0, opts.gap_pairs, chunk)]):
                    gap.counts = [a + b for a, b in zip(gap.counts, counts)]
                elo, low, high = gap.elo()
                print(f"gap: {gap.pairs} pairs, pentanomial {gap.counts}, NEW's mean pair score "
                      f"{gap.mean_and_variance()[0]:.4f}, Elo {elo:+.1f} [{low:+.1f}, {high:+.1f}]", flush=True)
            mean_games: dict[float, float] = {}
            for elo1, count in zip(elo1s, runs):
                if not count:
                    continue
                tests = mapped(sequential, [(new, old, field, elo1, r, opts.max_pairs)
                                            for r in range(opts.first_run, opts.first_run + count)])
                pairs = [n for _, n in tests]
                mean_games[elo1] = 4 * statistics.fmean(pairs)
                print(f"SPRT elo1 {elo1:g}: {count} tests, H1 {share(sum(v == 'H1' for v, _ in tests), count)}, "
                      f"H0 {share(sum(v == 'H0' for v, _ in tests), count)}, "
                      f"undecided {sum(v is None for v, _ in tests)}; "
                      f"pairs to the end {quartiles(pairs)} (games = 4 x pairs: mean {mean_games[elo1]:.0f})",
                      flush=True)
            if opts.seasons:
                histories = mapped(season, [(new, old, field, r, opts.horizon) for r in range(opts.seasons)])
                n = len(histories)
                first = [first_at(h, level) for h in histories]
                good = [for_good(h, level) for h in histories]
                wrong = [first_at([1 - p for p in h], level) for h in histories]
                print(f"TrueSkill ({n} seasons, horizon {opts.horizon} games, confident: P(NEW better) >= {level}):")
                print(f"  games to first confident: {quartiles([g for g in first if g])}; "
                      f"never {first.count(None)}/{n}")
                print(f"  games to confident for good: {quartiles([g if g else opts.horizon for g in good])} "
                      f"(censored at the horizon: {good.count(None)}/{n})")
                print(f"  confident the wrong way (P(OLD better) >= {level}) at some game: "
                      f"{share(sum(w is not None for w in wrong), n)}")
                for elo1, games in mean_games.items():
                    g = min(opts.horizon, max(1, round(games)))
                    capped = ", capped at the horizon" if g < round(games) else ""
                    print(f"  at {g} games (SPRT elo1 {elo1:g} mean {games:.0f}{capped}): "
                          f"confident {share(sum(h[g - 1] >= level for h in histories), n)}, "
                          f"confident at some game so far {share(sum(f is not None and f <= g for f in first), n)}")
                print(f"  at the horizon: confident {share(sum(h[-1] >= level for h in histories), n)}, "
                      f"mean P(NEW better) {statistics.fmean(h[-1] for h in histories):.3f}", flush=True)
            print(f"({time.perf_counter() - clock:.0f} s)", flush=True)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


QUICK = dict(pairings="greedy:greedy,greedy:greedy-e20", gap_pairs=4, runs="2", elo1="50", max_pairs=12,
             seasons=2, horizon=12)


def main(argv: Sequence[str] | None = None) -> None:
    args = common.parser(__doc__, 0)
    args.add_argument("--tests", type=int, default=2000, help="simulated tests per row")
    args.add_argument("--elo1", help="default 5 simulated, 50 with --bots (there a comma list, e.g. 50,5)")
    args.add_argument("--max-pairs", type=int, default=200_000)
    args.add_argument("--bots", action="store_true", help="real bots, in-process (see the module doc)")
    args.add_argument("--quick", action="store_true", help="with --bots: a smoke run of a few seconds")
    args.add_argument("--pairings", default="greedy:greedy,greedy-e05:greedy-e05,trader:trader-e02,greedy:greedy-e05")
    args.add_argument("--field", default=",".join(FIELD))
    args.add_argument("--gap-pairs", type=int, default=300)
    args.add_argument("--runs", default="30", help="sequential tests per pairing (a comma list: one per elo1)")
    args.add_argument("--first-run", type=int, default=0,
                      help="number of the first sequential test (its seeds): later runs extend earlier ones")
    args.add_argument("--seasons", type=int, default=20)
    args.add_argument("--horizon", type=int, default=200)
    args.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    opts = args.parse_args(argv)
    if opts.quick:
        opts.bots = True
        for key, value in QUICK.items():
            setattr(opts, key, value)
    if opts.elo1 is None:
        opts.elo1 = "50" if opts.bots else "5"
    if opts.bots:
        bots_mode(opts)
    else:
        simulated(opts)


if __name__ == "__main__":
    main()
