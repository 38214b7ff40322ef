"""The team test of the integrity audit (the pair test is arena/audit/stats.py).

**Teams** (Sybil feeders: several accounts that each feed one partner now and then, no pair standing out):
each receiver is also tested against the set of its givers, the per-game sum of its opponents' differences,
by its mean and by its big games, Bonferroni over the receivers; the givers over ``TEAM_GIVER`` coins a shared
game are named. Pairs the pair test flagged are left out of it: a team is what the pairs do not explain.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, replace
from statistics import fmean
from typing import AbstractSet, Any, Mapping, Sequence

from arena.audit.stats import ALPHA, BIG, CONCENTRATION, NORMAL, AuditGame, binomial_z, t_quantile, variance

#: the team test (a receiver against the set of its givers): the excess a receiver got a game from all its
#: opponents of other authors together, beyond what each of them gave its other opponents, must exceed this
TEAM_MARGIN = 1.5
#: ... over at least this many games of the receiver
TEAM_MIN_GAMES = 16
#: a giver is named in a team when its own mean difference toward the receiver is above this (coins a shared
#: game), over at least ``TEAM_GIVER_GAMES`` shared games, and concentrated as a flagged pair's is
TEAM_GIVER = 1.0
TEAM_GIVER_GAMES = 3
#: a receiver's big game: its opponents together gave it this many coins more than each of their other opponents
TEAM_BIG = BIG


@dataclass(frozen=True)
class TeamGiver:
    """One giver's part in what a receiver got: over the games it shared with the receiver, the excess its deals
    gave it and what they gave each of its other opponents, a game on average, in all."""

    giver: str
    games: int
    excess: float
    to_others: float
    big: int  # shared games in which this giver alone gave the receiver over BIG coins beyond each other opponent
    trusted: bool = False  # a built-in bot: nobody's account, so never a feeder of a team

    def margin(self) -> float:
        return (self.excess - self.to_others) / self.games if self.games else 0.0

    def named(self) -> bool:
        """A member of the team: it gave the receiver more than ``TEAM_GIVER`` coins a shared game beyond each
        other opponent, concentrated as a flagged pair's direction is, and it is no built-in bot (what a receiver
        takes from the operator's bots, by begging say, is its own play: no Sybil account gave it)."""
        return (not self.trusted and self.games >= TEAM_GIVER_GAMES and self.margin() > TEAM_GIVER
                and self.excess >= CONCENTRATION * self.to_others)

    def to_json(self) -> dict[str, Any]:
        return {"giver": self.giver, "games": self.games, "excess": round(self.excess, 3),
                "to_each_other_opponent": round(self.to_others, 3), "margin_per_game": round(self.margin(), 3),
                "big_games": self.big, "named": self.named()}


@dataclass(frozen=True)
class TeamFinding:
    """The evidence that a receiver got value from the set of its givers (Sybil feeders: several accounts that
    each feed it now and then, no pair of them standing out). Per game of the receiver: the excess every
    opponent of another author gave it, less what that opponent gave each of its other opponents, summed."""

    receiver: str
    games: int  # the receiver's games with an opponent of another author
    excess: float  # what its opponents' deals gave it, in all (coins)
    to_others: float  # what they gave each of their other opponents, a game on average, in all
    t: float  # of the mean of the per-game sums beyond TEAM_MARGIN
    threshold: float  # the t needed (Bonferroni over the receivers tested)
    big: int  # games whose sum is over TEAM_BIG coins
    big_z: float  # how surprising that many are at every other receiver's rate
    big_threshold: float
    flagged: bool
    contributions: tuple[TeamGiver, ...]  # every opponent that gave it more than its other opponents, most first

    @property
    def givers(self) -> tuple[str, ...]:
        """The team, in name order: the givers named (the flag is theirs; the receiver did not necessarily seek it)."""
        return tuple(sorted(c.giver for c in self.contributions if c.named()))

    def margin(self) -> float:
        return (self.excess - self.to_others) / self.games if self.games else 0.0

    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Each giver of the team with the receiver, in name order: the pairs the planner keeps apart."""
        return tuple((min(g, self.receiver), max(g, self.receiver)) for g in self.givers)

    def to_json(self) -> dict[str, Any]:
        return {"receiver": self.receiver, "givers": list(self.givers), "flagged": self.flagged,
                "games": self.games, "excess": round(self.excess, 3),
                "to_each_other_opponent": round(self.to_others, 3), "margin_per_game": round(self.margin(), 3),
                "t": round(self.t, 3), "t_threshold": round(self.threshold, 3), "big_games": self.big,
                "big_games_z": round(self.big_z, 3), "big_games_z_threshold": round(self.big_threshold, 3),
                "contributions": [c.to_json() for c in self.contributions]}


def team_findings(games: Sequence[AuditGame], groups: Mapping[str, str | None], since: Mapping[frozenset[str], int],
           explained: set[frozenset[str]], trusted: AbstractSet[str] = frozenset()) -> tuple[TeamFinding, ...]:
    """Every receiver against the set of its givers. Per game of receiver r, the sum over its opponents a of
    other authors of (excess a gave r) - (mean excess a gave each of its other opponents): a t test of its mean
    beyond ``TEAM_MARGIN``, and the count of games whose sum is over ``BIG`` against every other receiver's rate;
    both Bonferroni-bounded over the receivers tested (two tests each). A pair in ``explained`` (flagged by the
    pair test) is left out: a team is what the pairs do not explain. A ``trusted`` bot (built in) is never named a
    giver, so a receiver whose givers are built-in bots alone is never flagged (``audit``)."""

    def other_author(a: str, b: str) -> bool:
        return groups.get(a) is None or groups.get(b) is None or groups.get(a) != groups.get(b)

    sums: dict[str, list[float]] = defaultdict(list)
    parts: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0, 0.0, 0.0, 0]))
    for g in games:
        for r_seat, r in enumerate(g.bots):
            total, counted = 0.0, False
            for a_seat, a in enumerate(g.bots):
                if (a == r or not other_author(a, r) or g.match_id <= since.get(frozenset((a, r)), -1)
                        or frozenset((a, r)) in explained):
                    continue
                x, rest = g.beyond[(a_seat, r_seat)]
                part = parts[r][a]
                part[0] += 1
                part[1] += x
                part[2] += rest
                part[3] += 1 if x - rest > TEAM_BIG else 0
                total += x - rest
                counted = True
            if counted:
                sums[r].append(total)
    tests = max(1, 2 * len(sums))
    big_threshold = NORMAL.inv_cdf(1 - ALPHA / tests)
    bigs = {r: sum(1 for x in xs if x > TEAM_BIG) for r, xs in sums.items()}
    big_all = [sum(bigs.values()), sum(len(v) for v in sums.values())]
    found = []
    for r, xs in sorted(sums.items()):
        n = len(xs)
        big = bigs[r]
        # the rate of every other receiver together, or of the most favoured other receiver (a strong trader gets
        # lopsided deals from weak bots more often than the rest), whichever is higher
        rate = max([(big_all[0] - big + 1) / (big_all[1] - n + 2)]
                   + [(bigs[o] + 1) / (len(v) + 2) for o, v in sums.items() if o != r and len(v) >= TEAM_MIN_GAMES])
        big_z = binomial_z(big, n, rate)
        if n >= 2:
            se = math.sqrt(variance(xs) / n)
            m = fmean(xs)
            t = (m - TEAM_MARGIN) / se if se > 0 else (math.inf if m > TEAM_MARGIN else -math.inf)
            t = max(-99.0, min(99.0, t))
        else:
            t = 0.0
        threshold = t_quantile(1 - ALPHA / tests, n - 1)
        contributions = tuple(sorted((TeamGiver(a, int(p[0]), p[1], p[2], int(p[3]), a in trusted)
                                      for a, p in parts[r].items()
                                      if p[1] > p[2]), key=lambda c: (-(c.excess - c.to_others), c.giver)))
        excess, to_others = sum(p[1] for p in parts[r].values()), sum(p[2] for p in parts[r].values())
        finding = TeamFinding(r, n, excess, to_others, t, threshold, big, big_z, big_threshold, False, contributions)
        flagged = (n >= TEAM_MIN_GAMES and (t >= threshold or big_z >= big_threshold)
                   and excess >= CONCENTRATION * to_others and bool(finding.givers))
        found.append(replace(finding, flagged=flagged))
    found.sort(key=lambda f: (not f.flagged, -f.t))
    return tuple(found)
