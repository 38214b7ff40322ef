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

``bench/audit.py`` calibrates the constants: false flags among honest bots, power against a planted
colluding pair and a planted team (docs/benchmarks.md, "Integrity audit", "Integrity audit: teams").
"""
from __future__ import annotations

import functools
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
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

NORMAL = NormalDist()


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

    @functools.cached_property
    def beyond(self) -> dict[tuple[int, int], tuple[float, float]]:
        """(giver seat, receiver seat) -> (the excess the giver's deals gave the receiver, the mean excess they gave
        each of the giver's other opponents): what the pair test and the team test both measure, once a game."""
        seats = range(len(self.bots))
        flows = self.flows
        givers = {giver for giver, _ in flows}
        table = {}
        for me in seats:
            for them in seats:
                if me == them:
                    continue
                if me not in givers:  # most seats give nothing beyond fair value
                    table[(me, them)] = (0.0, 0.0)
                    continue
                others = [flows.get((me, k), 0.0) for k in seats if k not in (me, them)]
                # fmean's own sum and division, without its checks (the same float)
                table[(me, them)] = (flows.get((me, them), 0.0), math.fsum(others) / len(others) if others else 0.0)
        return table


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


class TradeFlows:
    """The excess of every closed deal of a game, summed by (giver, receiver) seats, counted as the game goes:
    ``seen`` takes each step's new events with the game as it stands after them (a deal's cards wait in the
    trade area, so the fields are those it was made on). The worker that plays a game counts them live (the
    season's record carries them, arena/play/tables.py); ``trade_flows`` counts a recorded game played again."""

    def __init__(self) -> None:
        self.flows: dict[tuple[int, int], float] = defaultdict(float)

    def seen(self, game: Any, events: Sequence[object]) -> None:
        for event in events:
            if type(event) is Traded:
                rules = game.rules
                fa, fb = _fields(game, event.a), _fields(game, event.b)
                gain_a = _worth(rules, fa, event.b_gave) - _worth(rules, fa, event.a_gave)
                gain_b = _worth(rules, fb, event.a_gave) - _worth(rules, fb, event.b_gave)
                if gain_b > gain_a:
                    self.flows[(event.a, event.b)] += gain_b - gain_a
                elif gain_a > gain_b:
                    self.flows[(event.b, event.a)] += gain_a - gain_b

    def to_json(self) -> str:
        """``[[giver, receiver, coins], ...]``, as a record stores them (``flows_from_json`` reads them back)."""
        return json.dumps(sorted([a, b, v] for (a, b), v in self.flows.items()), separators=(",", ":"))


def flows_from_json(text: str) -> dict[tuple[int, int], float]:
    """A record's stored flows (``TradeFlows.to_json``)."""
    return {(int(a), int(b)): float(v) for a, b, v in json.loads(text)}


def trade_flows(replay: Replay, rules: Rules | None = None) -> dict[tuple[int, int], float]:
    """The flows of a recorded game (``TradeFlows``), played again from its actions (its events are not needed)."""
    walk = Resimulation.of(replay, rules, check=False)
    counted = TradeFlows()
    for step in walk:
        counted.seen(walk.game, step.events)
    return dict(counted.flows)


def _fields(game: Any, seat: int) -> tuple[tuple[Any, int], ...]:
    s = game.seats[seat]
    return tuple(zip(s.field_beans, s.field_counts))


def audit_game(match_id: int, replay: Replay | None, bots: Sequence[str], ranks: Sequence[int]) -> AuditGame:
    """A game as the audit reads it; ``replay`` None: a game without a deal (a replay read without its
    events is played again whatever it holds)."""
    if replay is None or (replay.events and not any(isinstance(e, Traded) for e in replay.events)):
        return AuditGame(match_id, tuple(bots), table_scores(ranks))
    return AuditGame(match_id, tuple(bots), table_scores(ranks), trade_flows(replay))


# ----------------------------------------------------------------- the pair test
def direction_of(common: Sequence[AuditGame], giver: str, receiver: str) -> Direction:
    """Per shared game: the excess to ``receiver`` less the mean excess to each other opponent; the t
    statistic of the mean of those differences beyond ``MARGIN``."""
    differences = []
    excess = to_others = 0.0
    for g in common:
        x, rest = g.beyond[(g.bots.index(giver), g.bots.index(receiver))]
        excess += x
        to_others += rest
        differences.append(x - rest)
    big = sum(1 for d in differences if d > BIG)
    if len(differences) < 2:
        return Direction(giver, receiver, excess, to_others, 0.0, big)
    se = math.sqrt(variance(differences) / len(differences))
    t = (fmean(differences) - MARGIN) / se if se > 0 else (math.inf if fmean(differences) > MARGIN else -math.inf)
    return Direction(giver, receiver, excess, to_others, max(-99.0, min(99.0, t)), big)


def lift_table(games: Sequence[AuditGame], bots: Sequence[str]) -> dict[tuple[str, str], tuple[float, float]]:
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
        se = math.sqrt(variance(with_a) / len(with_a) + variance(without) / len(without))
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


def giver_findings(games: Sequence[AuditGame], bots: Sequence[str]) -> tuple[GiverFinding, ...]:
    per_bot: dict[str, list[float]] = defaultdict(list)
    for g in games:
        for seat, bot in enumerate(g.bots):
            per_bot[bot].append(g.given(seat))
    threshold = NORMAL.inv_cdf(1 - ALPHA / max(1, len(bots)))
    found = []
    for bot in bots:
        mine = per_bot[bot]
        others = [v for b, vs in per_bot.items() if b != bot for v in vs]
        if len(mine) < 2 or len(others) < 2:
            continue
        m, o = fmean(mine), fmean(others)
        se = math.sqrt(variance(mine) / len(mine) + variance(others) / len(others))
        z = (m - o) / se if se > 0 else 0.0
        if z >= threshold and m >= MIN_GIVEN and m >= GIVER_RATIO * o:
            found.append(GiverFinding(bot, len(mine), m, o, z))
    return tuple(sorted(found, key=lambda f: -f.given_per_game))


def binomial_z(k: int, n: int, p: float) -> float:
    """The normal quantile of P(X >= k) for X ~ Binomial(n, p): how surprising k of n is at rate p."""
    if k == 0 or n == 0:
        return 0.0
    if p <= 0.0 or p >= 1.0:
        tail = 1.0 if p >= 1.0 else 0.0
    else:  # in logarithms: C(n, x) of a long ladder's thousands of shared games is too big for a float
        log_p, log_q, log_n = math.log(p), math.log1p(-p), math.lgamma(n + 1)
        tail = math.fsum(math.exp(log_n - math.lgamma(x + 1) - math.lgamma(n - x + 1) + x * log_p + (n - x) * log_q)
                         for x in range(k, n + 1))
    return -NORMAL.inv_cdf(min(max(tail, 1e-15), 1 - 1e-15))  # z 7.9 at most: beyond any bound used


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (Cornish-Fisher from the normal one; within 1% for df >= 5 in the tail used here)."""
    z = NORMAL.inv_cdf(p)
    if df < 1:
        return math.inf
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


def variance(values: Sequence[float]) -> float:
    m = fmean(values)
    return sum((v - m) ** 2 for v in values) / (len(values) - 1)
