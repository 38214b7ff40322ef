"""A flag of the integrity audit in words, by giver and receiver: the flag is its giver's.

A bot can feed an honest rival for a season; the pair is then flagged and kept apart (nobody can tell a
partner that asked for it from a rival that merely took a gift), but the rival's part may be none of its
doing, and every place a flag is shown (`arena audit`, `arena audit list`, `arena season run`, the audit
page, both bots' pages) says who gave and who received, never that both did unless both did."""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from arena.audit.report import AuditReport
from arena.audit.stats import PairFinding
from arena.audit.teams import TeamFinding
from arena.text import plural, shown

NOT_ITS_DOING = "not necessarily by its own doing"
ONE_WAY = "{giver} gave away value to {receiver}; {receiver} received value from {giver} (" + NOT_ITS_DOING + ")"
BOTH_WAYS = "{a} and {b} gave away value to each other"
GAVE = "gave away value to {other}"
RECEIVED = "received value from {other} (" + NOT_ITS_DOING + ")"
GAVE_AND_RECEIVED = "gave away value to {other} and received value from it"
TEAM = "{givers} gave away value to {receiver}; {receiver} received value from them (" + NOT_ITS_DOING + ")"


def givers_of(evidence: Mapping[str, object]) -> tuple[str, ...]:
    """The givers a stored flag's evidence (``PairFinding.to_json``) names. Evidence stored before the audit
    recorded them: the directions that meet its rule (t or big games beyond their bound, and concentrated),
    or else the one of the larger t."""
    bots, flows = evidence.get("bots"), evidence.get("flow")
    recorded = evidence.get("flagged_givers")
    if isinstance(bots, list) and isinstance(recorded, list) and recorded:
        return tuple(str(g) for g in recorded if g in bots)
    if not isinstance(flows, dict) or not isinstance(bots, list):
        return ()

    def number(data: Mapping[str, object], key: str, default: float = 0.0) -> float:
        value = data.get(key, default)
        return float(value) if isinstance(value, (int, float)) else default

    t_bound, z_bound = number(evidence, "t_threshold", float("inf")), number(evidence, "big_games_z_threshold",
                                                                              float("inf"))
    directions = [(str(name).split("->", 1)[0], flow) for name, flow in sorted(flows.items())
                  if isinstance(flow, dict) and "->" in str(name)]
    meets = tuple(giver for giver, flow in directions
                  if (number(flow, "t") >= t_bound or number(flow, "big_games_z") >= z_bound)
                  and number(flow, "excess") >= 2.0 * number(flow, "to_each_other_opponent"))
    if meets:
        return meets
    return (max(directions, key=lambda d: number(d[1], "t"))[0],) if directions else ()


def pair_words(bots: Sequence[str], givers: Sequence[str], names: Mapping[str, str] | None = None,
               wrap: Callable[[str], str] = str) -> str:
    """A flagged pair in words. ``names``: how each bot is shown (a link, a cleaned name); ``wrap``: the type
    of the words (``markupsafe.Markup`` for a page: the names then go in as they are, the rest escaped)."""
    a, b = bots
    shown = {n: (names or {}).get(n, n) for n in (a, b)}
    if a in givers and b in givers or not givers:
        return wrap(BOTH_WAYS).format(a=shown[a], b=shown[b])
    giver = givers[0]
    receiver = b if giver == a else a
    return wrap(ONE_WAY).format(giver=shown[giver], receiver=shown[receiver])


def bot_words(me: str, other: str, givers: Sequence[str], shown_other: str | None = None,
              wrap: Callable[[str], str] = str) -> str:
    """What a flag says of one of its bots, ``me``: it gave, it received (not necessarily by its own doing), or both."""
    both = (me in givers and other in givers) or not givers
    words = GAVE_AND_RECEIVED if both else GAVE if me in givers else RECEIVED
    return wrap(words).format(other=other if shown_other is None else shown_other)


def team_of(evidence: Mapping[str, object]) -> tuple[str, tuple[str, ...]] | None:
    """(receiver, givers) of a flag stored for a team finding (its evidence holds ``TeamFinding.to_json`` under
    ``team``); None for a pair's flag."""
    team = evidence.get("team")
    if not isinstance(team, dict) or not isinstance(team.get("givers"), list) or "receiver" not in team:
        return None
    return str(team["receiver"]), tuple(str(g) for g in team["givers"])


def team_words(receiver: str, givers: Sequence[str], names: Mapping[str, str] | None = None,
               wrap: Callable[[str], str] = str) -> str:
    """A flagged team in words: "A, B and C gave away value to R; R received value from them (not necessarily by
    its own doing)"; a team of one giver reads as a one-way pair."""
    shown = {n: (names or {}).get(n, n) for n in (receiver, *givers)}
    if len(givers) == 1:
        return wrap(ONE_WAY).format(giver=shown[givers[0]], receiver=shown[receiver])
    listed = wrap(", ").join(shown[g] for g in givers[:-1]) + wrap(" and ") + shown[givers[-1]]
    return wrap(TEAM).format(givers=listed, receiver=shown[receiver])


def flag_words(bots: Sequence[str], givers: Sequence[str], evidence: Mapping[str, object],
               names: Mapping[str, str] | None = None, wrap: Callable[[str], str] = str) -> str:
    """A stored flag in words: its team's if it was stored for a team finding, else its pair's."""
    team = team_of(evidence)
    if team is not None:
        return team_words(team[0], team[1], names, wrap)
    return pair_words(bots, givers, names, wrap)


def finding_words(finding: PairFinding | TeamFinding) -> str:
    """A flagged pair, or a flagged team ("A, B and C gave away value to R; ..."), the names cleaned."""
    if isinstance(finding, PairFinding):
        return pair_words(finding.bots, finding.givers, {name: shown(name) for name in finding.bots})
    return team_words(finding.receiver, finding.givers,
                      {name: shown(name) for name in (finding.receiver, *finding.givers)})


def apart_words(finding: PairFinding | TeamFinding) -> str:
    """What the planner does about a new flag."""
    if isinstance(finding, PairFinding) or len(finding.givers) == 1:
        return "they are no longer seated together"
    return f"none of them is seated with {shown(finding.receiver)} again"


def season_audit_lines(season: str, report: AuditReport, flagged: Sequence[PairFinding | TeamFinding]) -> list[str]:
    """What a season's audit at its end found: one line of what it tested, then a line per new flag."""
    news = f"{plural(len(flagged), 'new flag')}" if flagged else "nothing flagged"
    lines = [f"audit of season {shown(season)}: {plural(report.games, 'game')} audited, "
             f"{plural(len(report.pairs), 'pair')} of bots of different authors tested, {news}"]
    for finding in flagged:  # the ladder protects itself: a flagged pair is kept apart from the next table on
        lines.append(f"audit: {finding_words(finding)}; {apart_words(finding)} ('arena audit --season "
                     f"{shown(season)}' shows the evidence); the games they shared are not rated")
    return lines
