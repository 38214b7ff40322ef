"""Choosing who plays whom.

Learned from Halite and the AI Challenge: the seat that has played least goes first (nobody
starves); the rest of the table is filled by TrueSkill match quality with opponents drawn from
both above and below that seat's rating, mostly its nearest neighbours; the same table is not
repeated while another will do; table sizes are mixed, larger tables more often (a table of n seats
compares n(n-1)/2 pairs of bots: 3, 6 or 10).

Measured with bench/accuracy.py (docs/benchmarks.md, "Ladder accuracy"): picking nearer
neighbours (``NEIGHBOUR_RATE`` 1.5 instead of 0.7) and weighting table sizes by their pairs each cut
the games a 14-bot season needs before its order is right.
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Sequence

from arena.ratings import Skill, match_quality

#: rate of the exponential draw of an opponent's position among the candidates above (or below) the
#: anchor, nearest first: P(nearest) = 1 - exp(-rate), 0.78 at 1.5
NEIGHBOUR_RATE = 1.5


@dataclass(frozen=True, slots=True)
class Candidate:
    version_id: int
    skill: Skill
    scheduled: int  # games played plus games planned


class Matchmaker:
    def __init__(self, rng: random.Random, memory: int = 50) -> None:
        self.rng = rng
        self.recent: deque[frozenset[int]] = deque(maxlen=memory)

    def table(self, candidates: Sequence[Candidate], size: int) -> list[int]:
        """Version ids of one table of ``size`` seats, in seat order (shuffled)."""
        if len(candidates) < size:
            raise ValueError(f"a table of {size} needs {size} bots, only {len(candidates)} are active")
        least = min(c.scheduled for c in candidates)
        anchor = self.rng.choice([c for c in candidates if c.scheduled == least])
        others = [c for c in candidates if c.version_id != anchor.version_id]
        above = sorted((c for c in others if c.skill.mu >= anchor.skill.mu), key=lambda c: c.skill.mu)
        below = sorted((c for c in others if c.skill.mu < anchor.skill.mu), key=lambda c: -c.skill.mu)
        best: tuple[float, list[Candidate]] | None = None
        rate = NEIGHBOUR_RATE
        for _ in range(8):
            table = [anchor] + self._pick(above, below, size - 1, rate)
            key = frozenset(c.version_id for c in table)
            quality = match_quality(c.skill for c in table)
            if key in self.recent:  # repeats only when nothing else fits: look further afield
                quality -= 1.0  # (quality <= 1)
                rate *= 0.6
            if best is None or quality > best[0]:
                best = (quality, table)
        assert best is not None
        chosen = [c.version_id for c in best[1]]
        self.recent.append(frozenset(chosen))
        self.rng.shuffle(chosen)
        return chosen

    def _pick(self, above: list[Candidate], below: list[Candidate], count: int,
              rate: float = NEIGHBOUR_RATE) -> list[Candidate]:
        """Alternate above and below, each side preferring near ratings but with some luck."""
        above, below = list(above), list(below)
        picked: list[Candidate] = []
        side = self.rng.random() < 0.5
        while len(picked) < count:
            pool = above if (side and above) or not below else below
            index = min(int(self.rng.expovariate(rate)), len(pool) - 1)
            picked.append(pool.pop(index))
            side = not side
        return picked

    def size(self, min_players: int, max_players: int, available: int) -> int:
        """A table size in the range, chosen with weight n(n-1) (the pairs of bots it compares)."""
        sizes = range(min_players, min(max_players, available) + 1)
        return self.rng.choices(sizes, weights=[max(1, n * (n - 1)) for n in sizes])[0]
