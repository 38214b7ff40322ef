"""The integrity audit: do two bots of different authors play as a team?

Bots may trade, and a gift is legal (C-6.5), so two bots under two names can recognise each other at
a table by some signature and then feed one another. Nothing in one game shows it; a season does.

Every closed deal is valued for both sides *in their own public position*: the marginal worth, in
coins, of planting the cards received less the cards paid in the fields as they were then
(``strategy.valuation``; fields are public and do not change while trading). A deal's **excess** is what
the side that gained more gained beyond the other: near zero for a fair trade (both gain), small for
a liability dumped on the player it helps least, large for good cards fed to a partner.

For an ordered pair (giver a, receiver b), every game both sat at gives one difference: the excess
a's deals gave b, less the mean excess they gave each of a's other opponents. A bot that gives to
whoever is at the table (a kingmaker, or a weak bot that strong bots take advantage of) spreads its
excess and the difference stays small; a feeder concentrates it on its partner. The pair is
**flagged** when the mean difference exceeds ``MARGIN`` coins a game with a t statistic beyond a
Bonferroni bound for every direction of every pair tested (family error ``ALPHA``), the receiver got
at least ``CONCENTRATION`` times what each other opponent got, over at least ``MIN_GAMES`` shared
games. So a flag needs a large, concentrated effect and strong evidence of it. A feeder that feeds
in only some games, to keep its mean under the margin, is caught the other way: it has *big games*
(a difference over ``BIG`` coins), which honest pairs almost never have, and their count is tested
(binomial tail, same Bonferroni bound) against the rate of big games into the receiver from its other
givers, or of every other direction, whichever is higher: a bot that talks everybody into lopsided
deals (a beg that naive bots accept) has big games with several givers, a partner with one.

Reported beside it: the **lift** (how much better b's table score is with a seated than without,
less how much better everybody else does with a seated: a weak bot lifts everyone, a partner lifts
one) and the **givers** (bots whose excess given per game stands far above everyone else's, whoever
receives it: kingmakers).

**Teams** (Sybil feeders: several accounts that each feed one partner now and then, no pair standing out):
each receiver is also tested against the set of its givers, the per-game sum of its opponents' differences,
by its mean and by its big games, Bonferroni over the receivers; the givers over ``TEAM_GIVER`` coins a shared
game are named. Pairs the pair test flagged are left out of it: a team is what the pairs do not explain.

``bench/audit.py`` calibrates the constants: false flags among honest bots, power against a planted
colluding pair and a planted team (docs/benchmarks.md, "Integrity audit", "Integrity audit: teams").
"""
from __future__ import annotations

import functools
import math
from collections import defaultdict
from dataclasses import dataclass, field, replace
from statistics import NormalDist, fmean
from typing import Any, Mapping, Sequence

from engine.events import Traded
from engine.replay import Replay, Resimulation
from engine.rules import Rules
from strategy.valuation import position_value, settle

#: family-wise error of one audit over every direction of every pair it tests (Bonferroni): at most
#: one season in a hundred with a false flag, were every honest pair right at the margin
ALPHA = 0.01
#: a flagged direction gives its receiver more than this many coins of excess a shared game beyond
#: what the giver's other opponents get
MARGIN = 1.0
#: ... and at least this many times what each of the giver's other opponents gets: a kingmaker's
#: gifts reach the seats that take them more than the rest, but they reach every seat
CONCENTRATION = 2.0
#: a *big game* for a direction: its receiver got this many coins more than each other opponent. A
#: feeder that feeds in only some games (to keep its mean under the margin) still has big games, which
#: honest pairs almost never do; their count is tested against the rate of every other direction
BIG = 4.0
#: a flagged pair shared at least this many games
MIN_GAMES = 8
#: a giver's excess given per game: at least this many coins (the random bot gives about 2.5), and
#: ``GIVER_RATIO`` times everyone else's
MIN_GIVEN = 4.0
GIVER_RATIO = 3.0
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

_normal = NormalDist()


@dataclass(frozen=True)
class AuditGame:
    """One recorded game as the audit reads it: the bot of each seat, each seat's table score (the
    share of its opponents it finished above, a tie counting half), and the excess value its deals
    gave from seat to seat (``flows[(giver, receiver)]``, coins)."""

    match_id: int
    bots: tuple[str, ...]
    scores: tuple[float, ...]
    flows: Mapping[tuple[int, int], float] = field(default_factory=dict)

    def given(self, seat: int) -> float:
        return sum(v for (g, _), v in self.flows.items() if g == seat)


@dataclass(frozen=True)
class Direction:
    """The evidence that value went from ``giver`` to ``receiver`` in the games they shared."""

    giver: str
    receiver: str
    excess: float  # what the giver's deals gave the receiver, in all (coins)
    to_others: float  # what they gave each of the giver's other opponents, a game on average, in all
    t: float  # of the mean difference beyond MARGIN
    big: int = 0  # big games (a difference over BIG coins)
    big_z: float = 0.0  # how surprising that many big games are at every other direction's rate
    flagged: bool = False  # this direction flags its pair: the flag is its giver's

    def margin(self, games: int) -> float:
        """The mean difference: coins a shared game beyond each other opponent's share."""
        return (self.excess - self.to_others) / games if games else 0.0

    def to_json(self, games: int) -> dict[str, Any]:
        return {"giver": self.giver, "receiver": self.receiver, "excess": round(self.excess, 3),
                "to_each_other_opponent": round(self.to_others, 3), "margin_per_game": round(self.margin(games), 3),
                "t": round(self.t, 3), "big_games": self.big, "big_games_z": round(self.big_z, 3),
                "flagged": self.flagged}


@dataclass(frozen=True)
class PairFinding:
    """The evidence on two bots (in name order): both directions, and each one's lift with the other."""

    bots: tuple[str, str]
    games: int  # games they shared
    flagged: bool
    directions: tuple[Direction, Direction]  # a -> b, b -> a
    lift: tuple[float, float]  # b's lift with a seated, a's lift with b seated (table score)
    lift_z: tuple[float, float]
    threshold: float  # the t a direction needed
    big_threshold: float = math.inf  # the z its big games needed

    @property
    def top_t(self) -> float:
        return max(d.t for d in self.directions)

    @property
    def givers(self) -> tuple[str, ...]:
        """The bots whose giving flagged the pair (one, or both when they fed each other)."""
        return tuple(d.giver for d in self.directions if d.flagged)

    def to_json(self) -> dict[str, Any]:
        a, b = self.bots
        return {
            "bots": [a, b], "flagged": self.flagged, "flagged_givers": list(self.givers), "games": self.games,
            "t_threshold": round(self.threshold, 3),
            "big_games_z_threshold": round(self.big_threshold, 3),
            "flow": {f"{d.giver}->{d.receiver}": d.to_json(self.games) for d in self.directions},
            "lift": {f"{b} with {a}": {"table_score": round(self.lift[0], 4), "z": round(self.lift_z[0], 3)},
                     f"{a} with {b}": {"table_score": round(self.lift[1], 4), "z": round(self.lift_z[1], 3)}},
        }


@dataclass(frozen=True)
class GiverFinding:
    """A bot that gives value away far beyond everyone else, to whoever takes it."""

    bot: str
    games: int
    given_per_game: float
    others_per_game: float
    z: float

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "games": self.games, "given_per_game": round(self.given_per_game, 3),
                "others_per_game": round(self.others_per_game, 3), "z": round(self.z, 3)}


@dataclass(frozen=True)
class TeamGiver:
    """One giver's part in what a receiver got: over the games it shared with the receiver, the excess its deals
    gave it and what they gave each of its other opponents, a game on average, in all."""

    giver: str
    games: int
    excess: float
    to_others: float
    big: int  # shared games in which this giver alone gave the receiver over BIG coins beyond each other opponent

    def margin(self) -> float:
        return (self.excess - self.to_others) / self.games if self.games else 0.0

    def named(self) -> bool:
        """A member of the team: it gave the receiver more than ``TEAM_GIVER`` coins a shared game beyond each
        other opponent, concentrated as a flagged pair's direction is."""
        return (self.games >= TEAM_GIVER_GAMES and self.margin() > TEAM_GIVER
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


@dataclass(frozen=True)
class AuditReport:
    games: int
    pairs: tuple[PairFinding, ...]
    givers: tuple[GiverFinding, ...]
    teams: tuple[TeamFinding, ...] = ()  # every receiver tested, the flagged first

    @property
    def flagged(self) -> tuple[PairFinding, ...]:
        return tuple(p for p in self.pairs if p.flagged)

    @property
    def flagged_teams(self) -> tuple[TeamFinding, ...]:
        return tuple(t for t in self.teams if t.flagged)

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "pairs": [p.to_json() for p in self.pairs],
                "givers": [g.to_json() for g in self.givers], "teams": [t.to_json() for t in self.teams],
                "alpha": ALPHA, "margin": MARGIN, "concentration": CONCENTRATION, "big_game": BIG,
                "min_games": MIN_GAMES, "team_margin": TEAM_MARGIN, "team_min_games": TEAM_MIN_GAMES,
                "team_giver": TEAM_GIVER}


# ----------------------------------------------------------------- one game
def table_scores(ranks: Sequence[int]) -> tuple[float, ...]:
    """Each seat's share of its opponents it finished above (rank 1 is best; a tie counts half)."""
    n = len(ranks)
    if n < 2:
        return tuple(0.5 for _ in ranks)
    return tuple(sum(1.0 if r < o else 0.5 if r == o else 0.0 for k, o in enumerate(ranks) if k != i) / (n - 1)
                 for i, r in enumerate(ranks))


@functools.lru_cache(maxsize=100_000)  # the same fields and cards recur across the games of a season
def _worth(rules: Rules, fields: tuple[tuple[Any, int], ...], cards: tuple[Any, ...]) -> float:
    """What planting ``cards`` adds to ``fields``, in coins (negative for a card that forces a harvest)."""
    if not cards:
        return 0.0
    return position_value(rules, fields, (), cards) - settle(rules, fields)


def trade_flows(replay: Replay, rules: Rules | None = None) -> dict[tuple[int, int], float]:
    """The excess of every closed deal of a recorded game, summed by (giver, receiver) seats: the game
    is played again from its actions (its events are not needed) and each deal valued as it happened."""
    walk = Resimulation.of(replay, rules, check=False)
    game, rules = walk.game, walk.game.rules
    flows: dict[tuple[int, int], float] = defaultdict(float)
    for step in walk:
        for event in step.events:
            if isinstance(event, Traded):
                fa, fb = _fields(game, event.a), _fields(game, event.b)
                gain_a = _worth(rules, fa, event.b_gave) - _worth(rules, fa, event.a_gave)
                gain_b = _worth(rules, fb, event.a_gave) - _worth(rules, fb, event.b_gave)
                if gain_b > gain_a:
                    flows[(event.a, event.b)] += gain_b - gain_a
                elif gain_a > gain_b:
                    flows[(event.b, event.a)] += gain_a - gain_b
    return dict(flows)


def _fields(game: Any, seat: int) -> tuple[tuple[Any, int], ...]:
    s = game.seats[seat]
    return tuple(zip(s.field_beans, s.field_counts))


def audit_game(match_id: int, replay: Replay | None, bots: Sequence[str], ranks: Sequence[int]) -> AuditGame:
    """A game as the audit reads it; ``replay`` None: a game without a deal (a replay read without its
    events is played again whatever it holds)."""
    if replay is None or (replay.events and not any(isinstance(e, Traded) for e in replay.events)):
        return AuditGame(match_id, tuple(bots), table_scores(ranks))
    return AuditGame(match_id, tuple(bots), table_scores(ranks), trade_flows(replay))


# ----------------------------------------------------------------- the season
def audit(games: Sequence[AuditGame], groups: Mapping[str, str | None] | None = None,
          since: Mapping[frozenset[str], int] | None = None) -> AuditReport:
    """The findings on ``games``: every pair of bots of different groups (authors; ``None`` or a
    missing bot is a group of its own) that shared a table, flagged or not, and the givers.
    ``since``: for a pair the operator cleared, only games with a larger match id count as its evidence."""
    groups = groups or {}
    since = since or {}
    bots = sorted({b for g in games for b in g.bots})
    shared: dict[tuple[str, str], list[AuditGame]] = defaultdict(list)
    for g in games:
        for a, b in ((a, b) for a in g.bots for b in g.bots if a < b):
            if g.match_id > since.get(frozenset((a, b)), -1):
                shared[(a, b)].append(g)
    tested = [(a, b) for (a, b) in sorted(shared)
              if groups.get(a) is None or groups.get(b) is None or groups.get(a) != groups.get(b)]
    tests = max(1, 4 * len(tested))  # two directions a pair, two tests a direction
    lifts = _lift_table(games, bots)
    directions = {(a, b): (_direction(shared[(a, b)], a, b), _direction(shared[(a, b)], b, a)) for a, b in tested}
    big_into: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # receiver -> [big games, games], every giver
    for (a, b), (ab, ba) in directions.items():
        for d in (ab, ba):
            big_into[d.receiver][0] += d.big
            big_into[d.receiver][1] += len(shared[(a, b)])
    big_all = [sum(v[0] for v in big_into.values()), sum(v[1] for v in big_into.values())]
    big_threshold = _normal.inv_cdf(1 - ALPHA / tests)
    findings = []
    for (a, b), pair in directions.items():
        common = shared[(a, b)]
        threshold = t_quantile(1 - ALPHA / tests, len(common) - 1)
        scored = []
        for d in pair:
            # the rate of big games into this receiver from its other givers, or of every other
            # direction, whichever is higher: a bot that talks everybody into lopsided deals (a beg
            # that a naive bot accepts) has big games with several givers, a partner with one
            into = big_into[d.receiver]
            rate = max((into[0] - d.big + 1) / (into[1] - len(common) + 2),
                       (big_all[0] - d.big + 1) / (big_all[1] - len(common) + 2))
            scored.append(replace(d, big_z=_binomial_z(d.big, len(common), rate)))
        ab, ba = (replace(d, flagged=len(common) >= MIN_GAMES and (d.t >= threshold or d.big_z >= big_threshold)
                          and d.excess >= CONCENTRATION * d.to_others) for d in scored)
        flagged = ab.flagged or ba.flagged
        la, za = lifts.get((a, b), (0.0, 0.0))
        lb, zb = lifts.get((b, a), (0.0, 0.0))
        findings.append(PairFinding((a, b), len(common), flagged, (ab, ba), (la, lb), (za, zb), threshold,
                                    big_threshold))
    findings.sort(key=lambda p: (not p.flagged, -p.top_t))
    # the team test looks for what the flagged pairs do not explain: a flagged pair's games are left out of it
    explained = {frozenset(p.bots) for p in findings if p.flagged}
    return AuditReport(len(games), tuple(findings), _givers(games, bots), _teams(games, groups, since, explained))


def _binomial_z(k: int, n: int, p: float) -> float:
    """The normal quantile of P(X >= k) for X ~ Binomial(n, p): how surprising k of n is at rate p."""
    if k == 0 or n == 0:
        return 0.0
    if p <= 0.0 or p >= 1.0:
        tail = 1.0 if p >= 1.0 else 0.0
    else:  # in logarithms: C(n, x) of a long ladder's thousands of shared games is too big for a float
        log_p, log_q, log_n = math.log(p), math.log1p(-p), math.lgamma(n + 1)
        tail = math.fsum(math.exp(log_n - math.lgamma(x + 1) - math.lgamma(n - x + 1) + x * log_p + (n - x) * log_q)
                         for x in range(k, n + 1))
    return -_normal.inv_cdf(min(max(tail, 1e-15), 1 - 1e-15))  # z 7.9 at most: beyond any bound used


def _direction(common: Sequence[AuditGame], giver: str, receiver: str) -> Direction:
    """Per shared game: the excess to ``receiver`` less the mean excess to each other opponent; the t
    statistic of the mean of those differences beyond ``MARGIN``."""
    differences = []
    excess = to_others = 0.0
    for g in common:
        me, them = g.bots.index(giver), g.bots.index(receiver)
        x = g.flows.get((me, them), 0.0)
        others = [g.flows.get((me, k), 0.0) for k in range(len(g.bots)) if k not in (me, them)]
        rest = fmean(others) if others else 0.0
        excess += x
        to_others += rest
        differences.append(x - rest)
    big = sum(1 for d in differences if d > BIG)
    if len(differences) < 2:
        return Direction(giver, receiver, excess, to_others, 0.0, big)
    se = math.sqrt(_var(differences) / len(differences))
    t = (fmean(differences) - MARGIN) / se if se > 0 else (math.inf if fmean(differences) > MARGIN else -math.inf)
    return Direction(giver, receiver, excess, to_others, max(-99.0, min(99.0, t)), big)


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (Cornish-Fisher from the normal one; within 1% for df >= 5 in the tail used here)."""
    z = _normal.inv_cdf(p)
    if df < 1:
        return math.inf
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


def _lift_table(games: Sequence[AuditGame], bots: Sequence[str]) -> dict[tuple[str, str], tuple[float, float]]:
    """(a, b) -> (b's lift with a seated, its z): b's mean table score with a minus without, less the
    same difference averaged over every other bot that played with and without a."""
    scores: dict[str, list[tuple[frozenset[str], float]]] = defaultdict(list)
    for g in games:
        present = frozenset(g.bots)
        for seat, bot in enumerate(g.bots):
            scores[bot].append((present, g.scores[seat]))

    def raw(a: str, b: str) -> tuple[float, float] | None:
        with_a = [s for present, s in scores[b] if a in present]
        without = [s for present, s in scores[b] if a not in present]
        if len(with_a) < 2 or len(without) < 2:
            return None
        diff = fmean(with_a) - fmean(without)
        se = math.sqrt(_var(with_a) / len(with_a) + _var(without) / len(without))
        return diff, se

    out = {}
    for a in bots:
        raws = {b: raw(a, b) for b in bots if b != a}
        for b, r in raws.items():
            if r is None:
                continue
            others = [o[0] for k, o in raws.items() if k != b and o is not None]
            base = fmean(others) if others else 0.0
            lift = r[0] - base
            out[(a, b)] = (lift, lift / r[1] if r[1] > 0 else 0.0)
    return out


def _var(values: Sequence[float]) -> float:
    m = fmean(values)
    return sum((v - m) ** 2 for v in values) / (len(values) - 1)


def _givers(games: Sequence[AuditGame], bots: Sequence[str]) -> tuple[GiverFinding, ...]:
    per_bot: dict[str, list[float]] = defaultdict(list)
    for g in games:
        for seat, bot in enumerate(g.bots):
            per_bot[bot].append(g.given(seat))
    threshold = _normal.inv_cdf(1 - ALPHA / max(1, len(bots)))
    found = []
    for bot in bots:
        mine = per_bot[bot]
        others = [v for b, vs in per_bot.items() if b != bot for v in vs]
        if len(mine) < 2 or len(others) < 2:
            continue
        m, o = fmean(mine), fmean(others)
        se = math.sqrt(_var(mine) / len(mine) + _var(others) / len(others))
        z = (m - o) / se if se > 0 else 0.0
        if z >= threshold and m >= MIN_GIVEN and m >= GIVER_RATIO * o:
            found.append(GiverFinding(bot, len(mine), m, o, z))
    return tuple(sorted(found, key=lambda f: -f.given_per_game))


# ----------------------------------------------------------------- the team test
def _teams(games: Sequence[AuditGame], groups: Mapping[str, str | None], since: Mapping[frozenset[str], int],
           explained: set[frozenset[str]]) -> tuple[TeamFinding, ...]:
    """Every receiver against the set of its givers. Per game of receiver r, the sum over its opponents a of
    other authors of (excess a gave r) - (mean excess a gave each of its other opponents): a t test of its mean
    beyond ``TEAM_MARGIN``, and the count of games whose sum is over ``BIG`` against every other receiver's rate;
    both Bonferroni-bounded over the receivers tested (two tests each). A pair in ``explained`` (flagged by the
    pair test) is left out: a team is what the pairs do not explain."""

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
                x = g.flows.get((a_seat, r_seat), 0.0)
                others = [g.flows.get((a_seat, k), 0.0) for k in range(len(g.bots)) if k not in (a_seat, r_seat)]
                rest = fmean(others) if others else 0.0
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
    big_threshold = _normal.inv_cdf(1 - ALPHA / tests)
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
        big_z = _binomial_z(big, n, rate)
        if n >= 2:
            se = math.sqrt(_var(xs) / n)
            m = fmean(xs)
            t = (m - TEAM_MARGIN) / se if se > 0 else (math.inf if m > TEAM_MARGIN else -math.inf)
            t = max(-99.0, min(99.0, t))
        else:
            t = 0.0
        threshold = t_quantile(1 - ALPHA / tests, n - 1)
        contributions = tuple(sorted((TeamGiver(a, int(p[0]), p[1], p[2], int(p[3])) for a, p in parts[r].items()
                                      if p[1] > p[2]), key=lambda c: (-(c.excess - c.to_others), c.giver)))
        excess, to_others = sum(p[1] for p in parts[r].values()), sum(p[2] for p in parts[r].values())
        finding = TeamFinding(r, n, excess, to_others, t, threshold, big, big_z, big_threshold, False, contributions)
        flagged = (n >= TEAM_MIN_GAMES and (t >= threshold or big_z >= big_threshold)
                   and excess >= CONCENTRATION * to_others and bool(finding.givers))
        found.append(replace(finding, flagged=flagged))
    found.sort(key=lambda f: (not f.flagged, -f.t))
    return tuple(found)
