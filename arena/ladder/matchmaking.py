"""Choosing who plays whom: games go where the leaderboard's order is still in doubt.

For every pair of active bots the ratings give the probability that the leaderboard shows the two
in the wrong order (``misorder_risk``). A table starts from one pair, drawn with weight its risk;
each further seat is drawn with weight its summed risk with the bots already seated; of ``TRIES``
such tables the one whose pairs carry the most risk is kept. Bots whose place is settled (far above
or below everyone near them) therefore play less, and close neighbours, new versions and bots whose
displayed score disagrees with their mean play more: active ranking rather than the round-robin-like
balance of Halite's or the AI Challenge's schedulers (which this module used before: it needed
about a fifth more games, docs/benchmarks.md).

Guards, so that a season stays a fair ladder:
- nobody starves: a bot with less than ``STARVE_SHARE`` of the mean seats scheduled (in this
  season, or a live season's latest seats: ``Candidate.scheduled``, arena/ladder/seat_counts.py) takes the first
  seat, and the table is built around it;
- some exploration: every weight gets ``EXPLORE`` added, so pairs the ratings believe settled are
  still checked now and then;
- a table played recently is avoided while another will do;
- pairs the integrity audit flagged (``apart_pairs``, arena/audit/stats.py) never share a table; a bot flagged with
  so many that it fits no table is left out, never the table (``Matchmaker._fitting``), and never because
  others gave to it: a flag is its giver's, so a bot flagged only as a receiver is seated first while it has
  fewer seats than the mean, at a smaller table if its givers leave no larger one (the givers wait);
- table sizes are mixed, larger tables more often (a table of n seats compares n(n-1)/2 pairs).

Measured with bench/accuracy.py (docs/benchmarks.md, "Ladder accuracy").
"""
from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass
from statistics import NormalDist, fmean
from typing import Callable, Collection, Sequence

from arena.ladder.ratings import Skill

#: a bot with fewer scheduled games than this share of the mean is seated first
STARVE_SHARE = 0.5
#: added to every draw weight (a weight is a sum of probabilities)
EXPLORE = 0.02
#: draw weights are raised to this power: above 1 concentrates on the most uncertain pairs
FOCUS = 2.0
#: candidate tables drawn per decision; the one worth most is kept
TRIES = 4
#: seats tried, at most, when no drawn table fits (``Matchmaker._fitting``)
SEARCH_STEPS = 20_000

_normal_cdf = NormalDist().cdf


@dataclass(frozen=True, slots=True)
class Candidate:
    version_id: int
    skill: Skill
    scheduled: int  # seats in this season, played or planned
    group: str | None = None  # bots of one group (one author) never share a table; None: no group


def misorder_risk(a: Skill, b: Skill) -> float:
    """Probability, by the ratings, that the leaderboard (sorted by score) shows ``a`` and ``b``
    in the wrong order: the chance that the one shown lower is in fact the better."""
    if a.score == b.score:
        return 0.5  # shown in name order, which the ratings say nothing about
    spread = math.sqrt(a.sigma ** 2 + b.sigma ** 2) or 1e-9
    a_better = _normal_cdf((a.mu - b.mu) / spread)
    return 1.0 - a_better if a.score > b.score else a_better


class Matchmaker:
    def __init__(self, rng: random.Random, memory: int = 50) -> None:
        self.rng = rng
        self.recent: deque[frozenset[int]] = deque(maxlen=memory)

    def table(self, candidates: Sequence[Candidate], size: int,
              apart_pairs: Collection[frozenset[int]] = frozenset(), receivers: Collection[int] = frozenset(),
              min_size: int | None = None) -> list[int]:
        """Version ids of one table of ``size`` seats, in seat order (shuffled); no two of one group, no
        pair of ``apart_pairs`` (version ids). Fewer seats only when those leave no table of ``size``.

        ``receivers``: versions flagged only as receivers of a pair kept apart. A flag is its giver's, so a
        receiver is never the one left out: one below the mean of scheduled seats takes the first seat, at a
        table as small as ``min_size`` if its givers leave no larger one, and a table that cannot seat
        everyone is searched receivers first (the givers are the ones that wait)."""
        if distinct(candidates) < size:
            raise ValueError(f"a table of {size} needs {size} bots of different authors, "
                             f"only {distinct(candidates)} are active")
        count = len(candidates)

        def apart(i: int, seated: Sequence[int]) -> bool:
            group = candidates[i].group
            if apart_pairs and any(frozenset((candidates[i].version_id, candidates[j].version_id)) in apart_pairs
                                   for j in seated):
                return False
            return group is None or all(candidates[j].group != group for j in seated)

        def best_of_tries(first: Callable[[], list[int]], size: int = size) -> tuple[float, list[int]] | None:
            """Of ``TRIES`` tables grown from ``first()``, the one worth most; None if none was filled."""
            best: tuple[float, list[int]] | None = None
            for _ in range(TRIES):
                seated = first()
                gain = [sum(risk[i][j] for i in seated) for j in range(count)]
                while len(seated) < size:
                    others = [i for i in range(count) if i not in seated and apart(i, seated)]
                    if not others:  # the groups left cannot fill it this way
                        break
                    pick = self.rng.choices(others, weights=self._weights([gain[i] for i in others]))[0]
                    seated.append(pick)
                    gain = [g + r for g, r in zip(gain, risk[pick])]
                if len(seated) < size:
                    continue
                worth = sum(risk[i][j] for k, i in enumerate(seated) for j in seated[k + 1:])
                if frozenset(candidates[i].version_id for i in seated) in self.recent:
                    worth -= size * size  # more than any table is worth: repeats only when nothing else fits
                if best is None or worth > best[0]:
                    best = (worth, seated)
            return best

        risk = [[misorder_risk(a.skill, b.skill) if i != j else 0.0 for j, b in enumerate(candidates)]
                for i, a in enumerate(candidates)]
        mean = fmean(c.scheduled for c in candidates)
        starving = [i for i, c in enumerate(candidates) if c.scheduled < STARVE_SHARE * mean
                    or (c.version_id in receivers and c.scheduled < mean)]
        best: tuple[float, list[int]] | None = None
        if starving:
            fed = [i for i in starving if candidates[i].version_id in receivers]
            starving = fed or starving  # a receiver before its givers: they are the ones that wait
            least = min(candidates[i].scheduled for i in starving)
            anchor = self.rng.choice([i for i in starving if candidates[i].scheduled == least])
            best = best_of_tries(lambda: [anchor])
            if best is None and candidates[anchor].version_id in receivers:  # its givers leave no table this big
                for smaller in range(size - 1, (min_size or size) - 1, -1):
                    best = best_of_tries(lambda: [anchor], smaller)
                    if best is not None:
                        break
        if best is None:  # nobody starves, or the one who does fits no table (flagged with most others)
            pairs = [(i, j) for i in range(count) for j in range(i + 1, count) if apart(j, [i])]
            if pairs:
                pair_weights = self._weights([risk[i][j] for i, j in pairs])
                best = best_of_tries(lambda: list(self.rng.choices(pairs, weights=pair_weights)[0]))
        if best is None:  # every try ran into a group or a flagged pair
            first = [i for i, c in enumerate(candidates) if c.version_id in receivers]
            best = (0.0, self._fitting(count, size, apart, first))
        chosen = [candidates[i].version_id for i in best[1]]
        self.recent.append(frozenset(chosen))
        self.rng.shuffle(chosen)
        return chosen

    def placement(self, newcomer: int, candidates: Sequence[Candidate], size: int,
                  apart_pairs: Collection[frozenset[int]] = frozenset(), receivers: Collection[int] = frozenset(),
                  min_size: int | None = None) -> list[int]:
        """A placement table for version ``newcomer`` (CodinGame's placement): its opponents drawn one from each
        of ``size - 1`` bands of the board, by score, so that its first games meet the top, the middle and the
        bottom of the ladder rather than its nearest neighbours. The groups and ``apart_pairs`` hold as at any
        table; where a band has nobody who may sit with those seated, the seat is drawn from the rest."""
        index = {c.version_id: i for i, c in enumerate(candidates)}
        anchor = index[newcomer]

        def fits(i: int, seated: Sequence[int]) -> bool:
            c = candidates[i]
            return all((c.group is None or c.group != candidates[j].group)
                       and frozenset((c.version_id, candidates[j].version_id)) not in apart_pairs for j in seated)

        others = sorted((i for i in range(len(candidates)) if i != anchor),
                        key=lambda i: (-candidates[i].skill.score, candidates[i].version_id))
        bands = max(1, size - 1)
        seated = [anchor]
        for band in self.rng.sample(range(bands), bands):
            members = [i for i in others[band * len(others) // bands:(band + 1) * len(others) // bands]
                       if fits(i, seated)]
            if members and len(seated) < size:
                seated.append(self.rng.choice(members))
        while len(seated) < size:
            rest = [i for i in others if i not in seated and fits(i, seated)]
            if not rest:
                break
            seated.append(self.rng.choice(rest))
        if len(seated) < size:  # the bands and the groups left it short: a table like any other
            return self.table(candidates, size, apart_pairs, receivers, min_size)
        chosen = [candidates[i].version_id for i in seated]
        self.recent.append(frozenset(chosen))
        self.rng.shuffle(chosen)
        return chosen

    def _fitting(self, count: int, size: int, apart: Callable[[int, Sequence[int]], bool],
                 first: Sequence[int] = ()) -> list[int]:
        """A table of ``size`` that ``apart`` allows, found by a search in a random order (the candidates ``first``,
        the flags' receivers, tried before the rest), else the largest found.

        Bots of one group exclude each other, and one greedy pass finds a table whenever there are enough
        groups; pairs the audit flagged do not: a bot flagged with most others, seated first, left a table
        short that the others filled (and the planner stopped the season). ``SEARCH_STEPS`` bounds the search."""
        rest = [i for i in range(count) if i not in first]
        order = self.rng.sample(list(first), len(first)) + self.rng.sample(rest, len(rest))
        largest: list[int] = []
        steps = 0

        def grow(seated: list[int], start: int) -> bool:
            nonlocal largest, steps
            if len(seated) > len(largest):
                largest = list(seated)
            if len(seated) == size:
                return True
            for k in range(start, count):
                steps += 1
                if steps > SEARCH_STEPS:
                    return False
                if apart(order[k], seated) and grow(seated + [order[k]], k + 1):
                    return True
            return False

        grow([], 0)
        return largest

    @staticmethod
    def _weights(risks: Sequence[float]) -> list[float]:
        return [(r + EXPLORE) ** FOCUS for r in risks]

    def size(self, min_players: int, max_players: int, available: int) -> int:
        """A table size in the range, chosen with weight n(n-1) (the pairs of bots it compares)."""
        sizes = range(min_players, min(max_players, available) + 1)
        return self.rng.choices(sizes, weights=[max(1, n * (n - 1)) for n in sizes])[0]


def distinct(candidates: Sequence[Candidate]) -> int:
    """How many bots could share one table: one per group, every ungrouped one."""
    groups = {c.group for c in candidates if c.group is not None}
    return len(groups) + sum(1 for c in candidates if c.group is None)
