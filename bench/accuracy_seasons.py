"""The simulated seasons of bench/accuracy.py: a scheduler's season rated from fresh ratings, against the true order."""
from __future__ import annotations

import random
from collections import Counter, deque
from dataclasses import dataclass
from multiprocessing.pool import Pool

import arena.ladder.ratings as ratings
from arena.ladder.matchmaking import Candidate, Matchmaker
from arena.ladder.ratings import RatingBook

from accuracy_games import MAX_PLAYERS, MIN_PLAYERS, deal, games_store

THRESHOLD = 0.9
#: tables planned ahead of the results (arena.ladder.seasons keeps 2 per worker in flight, 2 workers)
LAG = 3


@dataclass(frozen=True)
class Params:
    """The rating constants a season runs with (arena.ladder.ratings' own by default)."""

    beta: float = ratings.BETA
    tau: float = ratings.TAU
    draw_ties: float = ratings.DRAW_PRIOR_TIES
    draw_pairs: float = ratings.DRAW_PRIOR_PAIRS

    def label(self) -> str:
        return f"beta={self.beta:.3g} tau={self.tau:.3g} draw prior={self.draw_ties:g}/{self.draw_pairs:g}"


def apply_params(p: Params) -> None:
    ratings.BETA, ratings.TAU = p.beta, p.tau
    ratings.DRAW_PRIOR_TIES, ratings.DRAW_PRIOR_PAIRS = p.draw_ties, p.draw_pairs


def kendall(order: list[str], value: dict[str, float]) -> float:
    """Kendall's tau-a between the true order (strongest first) and the ladder's values."""
    n = len(order)
    s = 0
    for i in range(n):
        vi = value[order[i]]
        for j in range(i + 1, n):
            vj = value[order[j]]
            s += 1 if vi > vj else -1 if vi < vj else 0
    return s / (n * (n - 1) / 2)


def season(task: tuple[str, int, Params, list[str], int]) -> dict:
    """One season of ``horizon`` games: the last game after which tau < 0.9 (by score and by mu).

    Tables are planned ``LAG`` tables ahead of the results, as ``arena.ladder.seasons.run_season`` keeps
    2 tables per worker in flight (4 with 2 workers): a table is chosen while the 3 before it are
    still being played, so the ratings it sees are that much behind and the bots' planned seats
    count as scheduled.
    """
    scheduler, seed, params, order, horizon = task
    apply_params(params)
    fresh = games_store().played
    rng = random.Random(f"season/{scheduler}/{seed}")
    maker = Matchmaker(random.Random(f"tables/{scheduler}/{seed}"))
    book = RatingBook({})
    ids = {name: i for i, name in enumerate(order)}  # the rating book and the matchmaker know bots by int ids
    registered = rng.sample(order, len(order))  # candidates in "registration" order, unrelated to strength
    seen: dict[frozenset, int] = {}
    pending: deque[list[tuple[list[str], int]]] = deque()  # planned tables: their (seating, deck) games
    pending_seats: Counter[str] = Counter()
    played = 0
    last_bad = {"score": 0, "mu": 0}
    trace: dict[str, list[float]] = {"score": [], "mu": []}  # tau at every 50th game
    marks = set(range(50, horizon + 1, 50))
    while played < horizon:
        while len(pending) <= LAG:
            if scheduler == "uniform":
                names = rng.sample(order, rng.randint(MIN_PLAYERS, MAX_PLAYERS))
            else:
                candidates = [Candidate(ids[v], book.get(ids[v]), book.get(ids[v]).games + pending_seats[v])
                              for v in registered]
                names = [order[i] for i in maker.table(candidates, maker.size(MIN_PLAYERS, MAX_PLAYERS, len(order)))]
            key = frozenset(names)
            k = seen.get(key, 0)
            seen[key] = k + 1
            seating, deck = deal(names, k)
            seatings = ([seating[r:] + seating[:r] for r in range(len(seating))] if scheduler == "rotated"
                        else [seating])
            pending.append([(s, deck) for s in seatings])
            pending_seats.update(names * len(seatings))
        for s, deck in pending.popleft()[: horizon - played]:
            book.record([ids[name] for name in s], games_store().ranks(s, deck))
            pending_seats.subtract(s)
            played += 1
            for how in ("score", "mu"):
                value = {v: (book.get(ids[v]).score if how == "score" else book.get(ids[v]).mu) for v in order}
                tau = kendall(order, value)
                if tau < THRESHOLD:
                    last_bad[how] = played
                if played in marks:
                    trace[how].append(tau)
    done = {how: (last_bad[how] if last_bad[how] < horizon else None) for how in last_bad}
    return {"scheduler": scheduler, "seed": seed, "params": params.__dict__, "needed": done, "trace": trace,
            "played_fresh": games_store().played - fresh, "illegal": games_store().illegal}


def run_seasons(pool: Pool, schedulers: list[str], seeds: int, params: Params, order: list[str], horizon: int,
                first_seed: int = 0) -> dict[str, list[dict]]:
    """``seeds`` seasons of each scheduler, seeds from ``first_seed`` on, played by ``pool``'s workers."""
    tasks = [(s, first_seed + k, params, order, horizon) for k in range(seeds) for s in schedulers]
    out: dict[str, list[dict]] = {s: [] for s in schedulers}
    for r in pool.imap_unordered(season, tasks, chunksize=1):
        out[r["scheduler"]].append(r)
    return out
