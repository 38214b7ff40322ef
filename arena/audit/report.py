"""The audit of a set of games: every pair of bots of different authors tested (arena/audit/stats.py), the
givers, and every receiver against its givers (arena/audit/teams.py), in one report."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import AbstractSet, Any, Mapping, Sequence

from arena.audit.stats import (ALPHA, BIG, CONCENTRATION, MARGIN, MIN_GAMES, NORMAL, AuditGame, GiverFinding,
                               PairFinding, binomial_z, direction_of, giver_findings, lift_table, t_quantile)
from arena.audit.teams import TEAM_GIVER, TEAM_MARGIN, TEAM_MIN_GAMES, TeamFinding, team_findings


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


def audit(games: Sequence[AuditGame], groups: Mapping[str, str | None] | None = None,
          since: Mapping[frozenset[str], int] | None = None, trusted: AbstractSet[str] = frozenset()) -> AuditReport:
    """The findings on ``games``: every pair of bots of different groups (authors; ``None`` or a
    missing bot is a group of its own) that shared a table, flagged or not, and the givers.
    ``since``: for a pair the operator cleared, only games with a larger match id count as its evidence.
    ``trusted`` (the built-in bots): a pair or a team made of them alone is tested, and its directions count in the
    rates the others are measured against, but it is never flagged (their trades follow the operator's fixed rules:
    a false alarm would take back every game they shared)."""
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
    lifts = lift_table(games, bots)
    directions = {(a, b): (direction_of(shared[(a, b)], a, b), direction_of(shared[(a, b)], b, a)) for a, b in tested}
    big_into: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # receiver -> [big games, games], every giver
    for (a, b), (ab, ba) in directions.items():
        for d in (ab, ba):
            big_into[d.receiver][0] += d.big
            big_into[d.receiver][1] += len(shared[(a, b)])
    big_all = [sum(v[0] for v in big_into.values()), sum(v[1] for v in big_into.values())]
    big_threshold = NORMAL.inv_cdf(1 - ALPHA / tests)
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
            scored.append(replace(d, big_z=binomial_z(d.big, len(common), rate)))
        ab, ba = (replace(d, flagged=len(common) >= MIN_GAMES and (d.t >= threshold or d.big_z >= big_threshold)
                          and d.excess >= CONCENTRATION * d.to_others and not {a, b} <= trusted) for d in scored)
        flagged = ab.flagged or ba.flagged
        la, za = lifts.get((a, b), (0.0, 0.0))
        lb, zb = lifts.get((b, a), (0.0, 0.0))
        findings.append(PairFinding((a, b), len(common), flagged, (ab, ba), (la, lb), (za, zb), threshold,
                                    big_threshold))
    findings.sort(key=lambda p: (not p.flagged, -p.top_t))
    # the team test looks for what the flagged pairs do not explain: a flagged pair's games are left out of it
    explained = {frozenset(p.bots) for p in findings if p.flagged}
    return AuditReport(len(games), tuple(findings), giver_findings(games, bots),
                       team_findings(games, groups, since, explained, trusted))
