"""Calibration of the integrity audit (arena/audit/stats.py): false flags among honest bots, power against a
colluding pair.

    python3 bench/audit.py                      # 100 honest seasons, 100 seasons with a colluding pair
    python3 bench/audit.py --quick              # 10 + 10, a smoke run
    python3 bench/audit.py --seasons 40 --games 60
    python3 bench/audit.py --kinds honest,team,twin --cache /tmp/audit-seasons   # the team test (issue 41)

Every season is played in this process (no sandbox, no JSON) through the bots' SDK decision methods on
typed Requests built from the engine state, the events since a seat's last decision included (the
colluders follow them). A season is ``--games`` classic games (100: a new season's default) at seat-
rotated deals: a table of 3-5 bots (size drawn with weight n(n-1), as the matchmaker does), its deck
played once per rotation of the seating, as ``arena season run`` plays them. Each game's record goes
through the same ``arena.audit.stats.audit_game`` as a recorded game (played again from the record, every
trade valued), and each season through ``arena.audit.report.audit``.

- honest seasons: the example bots (random, greedy, trader) and epsilon copies (a uniformly random
  legal option with probability epsilon, else the base bot's move), every bot its own author. A
  season with any flagged pair is a false flag; so is any bot named a giver.
- part-time seasons: the same pair, but the feeder feeds in about a third of its games only (a way to
  keep its mean under the margin, from an attacker's review).
- colluding seasons: the same field plus the pair of tests/sandbox/hostile/colluder.py (a feeder and a
  partner, two authors: a begging signature, then consenting gifts). Power: the share of seasons that
  flag exactly that pair. Also reported: other pairs flagged there, and seasons with a kingmaker
  (the same file's third role) that name it a giver.
- team seasons (issue 41, Sybil feeders): the honest field plus three ``teamfeeder`` bots (three authors) that
  each feed their ``teampartner`` in about a third of their games. Power: the share of seasons whose team test
  flags the partner; also reported: which feeders it names, whether it names a bot outside the team, and
  whether the pair test alone flagged a feeder with the partner.
- twin seasons: the team's harmless twin, honest bots (a trader, a greedy and an epsilon copy of the trader)
  in the feeders' seats beside the same partner. Any flag, team or giver there is a false one.

``--cache DIR`` keeps each season's games (as the audit reads them, JSON) and reads them back instead of
playing them again, so that the audit's statistics can be calibrated on seasons played once; ``--kinds``
runs some kinds only.

Seeds are fixed (season k of a kind: ``random.Random(f"audit/{kind}/{k}")``) and so is the hash order
(the script runs itself again with ``PYTHONHASHSEED=0``: the bots iterate over sets of beans): a run
is reproducible.
"""
from __future__ import annotations

import json
import math
import os
import random
import sys
import time
import types
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.audit.report import audit  # noqa: E402
from arena.audit.stats import AuditGame, audit_game  # noqa: E402
from engine import classic_rules  # noqa: E402
from engine.replay import Replay  # noqa: E402

import common  # noqa: E402
import games  # noqa: E402

HOSTILE = ROOT / "tests" / "sandbox" / "hostile"
HONEST: tuple[tuple[str, str, float], ...] = (
    ("random", "random", 0.0), ("greedy", "greedy", 0.0), ("trader", "trader", 0.0),
    ("greedy-e10", "greedy", 0.1), ("trader-e05", "trader", 0.05), ("trader-e20", "trader", 0.2),
)
COLLUDERS = (("feeder", "feeder", 0.0), ("partner", "partner", 0.0))
KINGMAKER = (("kingmaker", "kingmaker", 0.0),)
SOMETIMES = (("feeder", "sometimes", 0.0), ("partner", "partner", 0.0))  # feeds in about a third of its games
# three feeders under three authors (Sybil accounts), each feeding the partner in about a third of its games
TEAM = (("feeder1", "teamfeeder", 0.0), ("feeder2", "teamfeeder", 0.0), ("feeder3", "teamfeeder", 0.0),
        ("partner", "teampartner", 0.0))
# the harmless twin: the same partner (it still begs), honest bots in the feeders' seats
TWIN = (("seat1", "trader", 0.1), ("seat2", "greedy", 0.05), ("seat3", "trader", 0.0), ("partner", "teampartner", 0.0))
FIELDS = {"colluding": COLLUDERS, "sometimes": SOMETIMES, "kingmaker": KINGMAKER, "team": TEAM, "twin": TWIN}


def colluder_source(role: str) -> str:
    """The trader's source with its class no longer the entry point, then the colluder with ``ROLE``."""
    trader = (common.BOTS / "trader_bot.py").read_text(encoding="utf-8")
    colluder = (HOSTILE / "colluder.py").read_text(encoding="utf-8").replace('ROLE = "feeder"', f"ROLE = {role!r}", 1)
    return f"{trader}\nTraderBot.__bohnanza_bot__ = False\n{colluder}"


_CLASSES: dict[str, type] = {}


def bot_class(stem: str) -> type:
    if stem in ("random", "greedy", "trader"):
        return common.bot_class(stem)
    if stem not in _CLASSES:
        common.bot_class("trader")  # memoizes strategy.valuation.position_value in this process
        module = types.ModuleType(f"bench_{stem}")
        exec(compile(colluder_source(stem), f"<{stem}>", "exec"), module.__dict__)
        _CLASSES[stem] = module.Colluder
    return _CLASSES[stem]


def play(seating: Sequence[tuple[str, str, float]], seed: int, match_id: int) -> AuditGame:
    game, _ = games.play_out(classic_rules(), [(bot_class(stem), eps) for _, stem, eps in seating], seed, events=True)
    names = [name for name, _, _ in seating]
    return audit_game(match_id, Replay.of(game, names), names, common.result_of(game).ranks)


def played_season(kind: str, k: int, length: int, cache: Path | None) -> list[AuditGame]:
    """Season ``k`` of ``kind``: its games as the audit reads them, played here or read from ``cache`` (the
    audit of a season played once can then be run again at no cost)."""
    stored = cache / f"{kind}-{length}-{k}.json" if cache is not None else None
    if stored is not None and stored.exists():
        return [AuditGame(g["match_id"], tuple(g["bots"]), tuple(g["scores"]),
                          {(int(a), int(b)): v for a, b, v in g["flows"]})
                for g in json.loads(stored.read_text(encoding="utf-8"))]
    rng = random.Random(f"audit/{kind}/{k}")
    field = list(HONEST) + list(FIELDS.get(kind, ()))
    played: list[AuditGame] = []
    while len(played) < length:
        sizes = range(3, 6)
        size = rng.choices(sizes, weights=[n * (n - 1) for n in sizes])[0]
        table = rng.sample(field, size)
        seed = rng.getrandbits(63)
        for r in range(size):
            if len(played) < length:
                played.append(play(table[r:] + table[:r], seed, len(played)))
    if stored is not None:
        text = json.dumps([{"match_id": g.match_id, "bots": g.bots, "scores": g.scores,
                            "flows": [[a, b, v] for (a, b), v in sorted(g.flows.items())]} for g in played])
        stored.with_suffix(".part").write_text(text, encoding="utf-8")
        stored.with_suffix(".part").rename(stored)
    return played


Task = tuple[str, int, int, "Path | None"]


def season(task: Task) -> dict[str, Any]:
    kind, k, length, cache = task
    played = played_season(kind, k, length, cache)
    report = audit(played)
    partner = next((t for t in report.teams if t.receiver == "partner"), None)
    honest_teams = [t for t in report.teams if t.receiver != "partner"]
    return {"kind": kind, "season": k,
            "teams": [(t.receiver, list(t.givers)) for t in report.flagged_teams],
            "team_t": None if partner is None else partner.t - partner.threshold,
            "team_big_z": None if partner is None else partner.big_z - partner.big_threshold,
            "team_big": None if partner is None else partner.big,
            "team_games": None if partner is None else partner.games,
            "team_margin": None if partner is None else partner.margin(),
            "max_other_team": max((max(t.t - t.threshold, t.big_z - t.big_threshold) for t in honest_teams),
                                  default=None),
            "flagged": sorted(tuple(p.bots) for p in report.flagged),
            "givers": [g.bot for g in report.givers],
            "shared": next((p.games for p in report.pairs if set(p.bots) == {"feeder", "partner"}), 0),
            "pair_t": next((p.top_t for p in report.pairs if set(p.bots) == {"feeder", "partner"}), None),
            "pair_threshold": next((p.threshold for p in report.pairs if set(p.bots) == {"feeder", "partner"}), None),
            "pair_big": next((max(d.big for d in p.directions) for p in report.pairs
                              if set(p.bots) == {"feeder", "partner"}), None),
            "pair_margin": next((max(d.margin(p.games) for d in p.directions) for p in report.pairs
                                 if set(p.bots) == {"feeder", "partner"}), None),
            "max_honest_t": max((p.top_t for p in report.pairs
                                 if not {"feeder", "partner"} & set(p.bots) and "kingmaker" not in p.bots),
                                default=0.0),
            "max_honest_margin": max((max(d.margin(p.games) for d in p.directions) for p in report.pairs
                                      if not {"feeder", "partner"} & set(p.bots) and "kingmaker" not in p.bots),
                                     default=0.0)}


def figure(value: float | None) -> str:
    """A pair's statistic, or "none" when the pair never shared a game in that season."""
    return "none" if value is None else f"{value:.2f}"


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":  # the bots iterate over sets of beans: a fixed hash order
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    parser = common.parser(__doc__, games=100, games_help="games per season (100: a new season's default)")
    parser.add_argument("--seasons", type=int, default=100, help="seasons of each kind")
    parser.add_argument("--kingmaker-seasons", type=int, default=20)
    parser.add_argument("--sometimes-seasons", type=int, default=30,
                        help="seasons with a feeder that feeds in a third of its games")
    parser.add_argument("--team-seasons", type=int, default=100,
                        help="seasons with three part-time feeders of three authors and their partner")
    parser.add_argument("--twin-seasons", type=int, default=30,
                        help="the team's harmless twin: honest bots in the feeders' seats")
    parser.add_argument("--kinds", default="honest,colluding,kingmaker,sometimes,team,twin",
                        help="the kinds of season to run (comma-separated)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="a folder keeping every season's games: a season played once is audited again at no cost")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="10 seasons of each kind")
    args = parser.parse_args()
    if args.quick:
        args.seasons, args.kingmaker_seasons, args.sometimes_seasons = 10, 5, 5
        args.team_seasons, args.twin_seasons = 10, 5
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    kinds = set(args.kinds.split(","))
    print(common.machine(f"{args.workers} workers"))
    print(f"# seasons of {args.games} games at seat-rotated deals; honest field: "
          + ", ".join(name for name, _, _ in HONEST))
    started = time.monotonic()
    counts = {"honest": args.seasons, "colluding": args.seasons, "kingmaker": args.kingmaker_seasons,
              "sometimes": args.sometimes_seasons, "team": args.team_seasons, "twin": args.twin_seasons}
    tasks: list[Task] = [(kind, k, args.games, args.cache) for kind in counts if kind in kinds
                         for k in range(counts[kind])]
    with get_context("fork").Pool(args.workers) as pool:
        results = pool.map(season, tasks, chunksize=1)
    of = {kind: [r for r in results if r["kind"] == kind] for kind in counts}
    if of["honest"]:
        honest_report(of["honest"])
    if of["colluding"]:
        colluding_report(of["colluding"])
    if of["sometimes"]:
        sometimes = of["sometimes"]
        caught = sum(1 for r in sometimes if ("feeder", "partner") in r["flagged"])
        lo, hi = wilson(caught, len(sometimes))
        print(f"a feeder that feeds in a third of its games flagged with its partner: {caught}/{len(sometimes)} "
              f"(95% interval {100 * lo:.1f}-{100 * hi:.1f}%); its big games: median "
              f"{sorted(r['pair_big'] or 0 for r in sometimes)[len(sometimes) // 2]}")
    others = of["colluding"] + of["kingmaker"] + of["sometimes"]
    if others:
        print(f"other pairs flagged in colluding, kingmaker and part-time seasons: "
              f"{sum(1 for r in others if any({'feeder', 'partner'} != set(p) for p in r['flagged']))}/{len(others)}"
              " seasons")
    if of["kingmaker"]:
        named = sum(1 for r in of["kingmaker"] if r["givers"] == ["kingmaker"])
        print(f"kingmaker named the only giver: {named}/{len(of['kingmaker'])}")
    if of["team"]:
        team_report(of["team"], args.games)
    if of["twin"]:
        twin = of["twin"]
        wrong = sum(1 for r in twin if r["flagged"] or r["teams"] or r["givers"])
        lo, hi = wilson(wrong, len(twin))
        print(f"harmless twin (honest bots in the feeders' seats) with a flag, a team or a giver: {wrong}/{len(twin)} "
              f"(95% interval {100 * lo:.1f}-{100 * hi:.1f}%); its partner's team statistics against their bounds: "
              f"t - bound max {max(r['team_t'] or -99.0 for r in twin):+.2f}, big-games z - bound max "
              f"{max(r['team_big_z'] or -99.0 for r in twin):+.2f}")
    print(f"# {time.monotonic() - started:.0f} s")


def honest_report(honest: list[dict[str, Any]]) -> None:
    false_flags = sum(1 for r in honest if r["flagged"] or r["givers"] or r["teams"])
    lo, hi = wilson(false_flags, len(honest))
    print(f"honest seasons with a flag, a team or a giver: {false_flags}/{len(honest)} "
          f"(95% interval {100 * lo:.1f}-{100 * hi:.1f}%); an honest pair's largest t in a season: "
          f"median {sorted(r['max_honest_t'] for r in honest)[len(honest) // 2]:.2f}, "
          f"max {max(r['max_honest_t'] for r in honest):.2f}; its largest margin (coins a game): "
          f"max {max(r['max_honest_margin'] for r in honest):.2f}; a receiver's team statistic beyond its bound "
          f"(the larger of t and big-games z, less its bound): max "
          f"{max(r['max_other_team'] or -99.0 for r in honest):+.2f}")


def colluding_report(colluding: list[dict[str, Any]]) -> None:
    caught = sum(1 for r in colluding if ("feeder", "partner") in r["flagged"])
    lo, hi = wilson(caught, len(colluding))
    ts = sorted(r["pair_t"] or 0.0 for r in colluding)
    print(f"colluding pair flagged: {caught}/{len(colluding)} (95% interval {100 * lo:.1f}-{100 * hi:.1f}%); "
          f"games shared: median {sorted(r['shared'] for r in colluding)[len(colluding) // 2]}; "
          f"its t: min {ts[0]:.2f}, median {ts[len(ts) // 2]:.2f} (bound at the median games shared "
          f"{sorted(r['pair_threshold'] or 0.0 for r in colluding)[len(colluding) // 2]:.2f})")
    for r in colluding:
        if ("feeder", "partner") not in r["flagged"]:
            print(f"  missed in season {r['season']}: {r['shared']} games shared, t {figure(r['pair_t'])} "
                  f"(bound {figure(r['pair_threshold'])}), margin {figure(r['pair_margin'])} coins a game, "
                  f"{r['pair_big'] or 0} big games")


def team_report(team: list[dict[str, Any]], games: int) -> None:
    feeders = {"feeder1", "feeder2", "feeder3"}
    flagged = [r for r in team if any(receiver == "partner" for receiver, _ in r["teams"])]
    named = {r["season"]: set(next(g for receiver, g in r["teams"] if receiver == "partner")) for r in flagged}
    whole = sum(1 for givers in named.values() if givers == feeders)
    strangers = sum(1 for givers in named.values() if givers - feeders)
    by_pairs = sum(1 for r in team if any("partner" in p and set(p) & feeders for p in r["flagged"]))
    apart = sum(1 for r in team if all(
        any(set(p) == {f, "partner"} for p in r["flagged"]) or f in named.get(r["season"], set()) for f in feeders))
    caught = sum(1 for r in team if r["season"] in named or any("partner" in p and set(p) & feeders
                                                                  for p in r["flagged"]))
    lo, hi = wilson(caught, len(team))
    print(f"team of three part-time feeders ({games}-game seasons): caught (the partner flagged by the team test, "
          f"or a feeder with it by the pair test) {caught}/{len(team)} (95% interval {100 * lo:.1f}-{100 * hi:.1f}%); "
          f"by the team test {len(flagged)}, by the pair test {by_pairs}; all three feeders named {whole}, a bot "
          f"outside the team named {strangers}; every feeder kept apart from the partner (pair or team flag) {apart}")
    print(f"  partner's games: median {sorted(r['team_games'] or 0 for r in team)[len(team) // 2]}; margin (coins "
          f"a game): median {sorted(r['team_margin'] or 0.0 for r in team)[len(team) // 2]:.2f}; big games: median "
          f"{sorted(r['team_big'] or 0 for r in team)[len(team) // 2]}; big-games z - bound: min "
          f"{min(r['team_big_z'] or -99.0 for r in team):+.2f}; t - bound: max "
          f"{max(r['team_t'] or -99.0 for r in team):+.2f}")
    others = sum(1 for r in team if any(receiver != "partner" for receiver, _ in r["teams"])
                 or any(not ("partner" in p and set(p) & feeders) for p in r["flagged"]))
    print(f"  other findings in team seasons (a team of another receiver, or a pair outside the team): "
          f"{others}/{len(team)}")


if __name__ == "__main__":
    main()
