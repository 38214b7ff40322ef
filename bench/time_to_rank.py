"""Time to rank on the living ladder: from `arena submit` returning to the new version's 10th rated game.

    python3 bench/time_to_rank.py [--newcomers 5] [--gap 60] [--workers 2] [--search] [--folder DIR]

A ladder of 12 bots, one author each: random, greedy and trader as bosses, and 9 copies of the example bots
under other authors (``--search``: one of the 9 is ``bots/search_bot.py``, which thinks for its whole time
limit). `arena season run --live --workers N` (the real command, a subprocess, the strong sandbox, the
default limits) warms up until every bot has 10 rated games in classic and duel; then ``--newcomers`` new
versions (copies of greedy and trader under new authors) are submitted one after another with
`arena submit`, each once the one before has ranked in classic and duel and ``--gap`` seconds without a
newcomer have passed. Printed: each newcomer's time to rank in classic and duel (the finished_at of the
match that gave it its 10th rated game, less the moment `arena submit` returned), the median and range,
and what placement costs the bots already ranked: their games a minute in the placement windows against
the minutes without a newcomer, and the newcomer's share of the games in its window. At the end the live
season is stopped with SIGTERM and must exit 0.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import common  # noqa: E402
import live_ladder as ll  # noqa: E402

FORMATS = ("classic", "duel")


@dataclass
class Window:
    """An interval of the measurement: a newcomer placing (``newcomer`` its version id) or none."""

    start: float
    end: float
    bots: int  # active versions already ranked in this interval (the newcomer not counted)
    newcomer: int | None = None


def games_between(db: Path, start: float, end: float) -> list[tuple[str, list[int]]]:
    """The recorded games finished in [start, end): (format, seated version ids)."""
    rows = ll.query(db, "SELECT m.id, s.variant, m.finished_at, ms.version_id FROM match m "
                        "JOIN season s ON s.id = m.season_id JOIN matchseat ms ON ms.match_id = m.id "
                        "WHERE m.status = 'done' AND m.finished_at IS NOT NULL")
    games: dict[int, tuple[str, list[int]]] = {}
    for match, variant, finished, version in rows:
        if start <= ll.stamp(finished) < end:
            games.setdefault(match, (variant, []))[1].append(version)
    return list(games.values())


def rates(db: Path, windows: list[Window]) -> dict[str, float]:
    """Per minute over ``windows``: games of each format, an already-ranked bot's games of each format
    (``ranked classic``) and the newcomer's (``newcomer classic``)."""
    minutes = sum(w.end - w.start for w in windows) / 60
    out: dict[str, float] = {"minutes": minutes}
    for w in windows:
        for variant, seats in games_between(db, w.start, w.end):
            out[variant] = out.get(variant, 0.0) + 1
            out[f"ranked {variant}"] = out.get(f"ranked {variant}", 0.0) + sum(v != w.newcomer for v in seats) / w.bots
            if w.newcomer is not None and w.newcomer in seats:
                out[f"newcomer {variant}"] = out.get(f"newcomer {variant}", 0.0) + 1
    for key in [k for k in out if k != "minutes"]:
        out[key] /= max(minutes, 1e-9)
    return out


def spread(values: list[float]) -> str:
    return (f"median {statistics.median(values):.0f} s, range {min(values):.0f}-{max(values):.0f} s "
            f"({len(values)} newcomers)") if values else "none ranked"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--newcomers", type=int, default=5)
    parser.add_argument("--gap", type=float, default=60.0, help="seconds without a newcomer between two")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--search", action="store_true", help="one of the 12 bots is bots/search_bot.py")
    parser.add_argument("--warmup", type=float, default=1200.0, help="give up after this many seconds of warm-up")
    parser.add_argument("--rank-timeout", type=float, default=900.0, help="give up on a newcomer after this")
    parser.add_argument("--folder", default=None, help="keep the database here (default: a temporary folder)")
    opts = parser.parse_args()
    folder = Path(opts.folder or tempfile.mkdtemp(prefix="rank-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "ladder.sqlite"
    for old in folder.glob("ladder.sqlite*"):
        old.unlink()
    stems = ["random_bot", "greedy_bot", "trader_bot"] * 3
    if opts.search:
        stems[0] = "search_bot"
    print(common.machine(f"{opts.workers} workers, strong tier, default limits, 12 bots"
                         f"{' (one is search_bot.py)' if opts.search else ' (no search bot)'}, database {db}"),
          flush=True)
    names = iter(ll.NAMES)
    for stem in stems:
        ll.submit_copy(db, folder, stem, next(names))
    live = ll.start_live(db, opts.workers, folder / "live.log")
    started = time.time()
    print(f"live season started {ll.utc()}, load {ll.loadavg()}", flush=True)
    try:
        while ll.unranked(db):
            if time.time() - started > opts.warmup or live.poll() is not None:
                raise SystemExit(f"warm-up failed: still unranked {ll.unranked(db)}; live exit {live.poll()}")
            time.sleep(2)
        print(f"warm-up: every bot ranked in classic and duel after {time.time() - started:.0f} s", flush=True)
        windows: list[Window] = []
        bots = 12
        mark = time.time()
        ranks: dict[str, list[float]] = {f: [] for f in FORMATS}
        print(f"measuring from {ll.utc()}, load {ll.loadavg()}", flush=True)
        for k in range(opts.newcomers):
            time.sleep(max(0.0, mark + opts.gap - time.time()))
            name = next(names)
            before = time.time()
            submitted = ll.submit_copy(db, folder, ("greedy_bot", "trader_bot")[k % 2], name)
            windows.append(Window(mark, submitted, bots))
            version = ll.version_of(db, name)
            stored = ll.stamp(ll.query(db, "SELECT created_at FROM botversion WHERE id = ?", version)[0][0])
            done: dict[str, float] = {}
            while len(done) < len(FORMATS):
                if time.time() - submitted > opts.rank_timeout or live.poll() is not None:
                    raise SystemExit(f"{name} not ranked after {time.time() - submitted:.0f} s: {done}")
                time.sleep(1)
                for variant in FORMATS:
                    when = ll.ranked_at(db, version, variant)
                    if when is not None:
                        done[variant] = when
            mark = max(max(done.values()), time.time() - 0.5)
            windows.append(Window(submitted, max(done.values()), bots, version))
            for variant in FORMATS:
                ranks[variant].append(done[variant] - submitted)
            print(f"newcomer {k + 1} {name}: submit took {submitted - before:.1f} s (it returned "
                  f"{submitted - stored:.1f} s after the version was stored); time to rank "
                  + ", ".join(f"{variant} {done[variant] - submitted:.0f} s" for variant in FORMATS)
                  + f"; load {ll.loadavg()}", flush=True)
            bots += 1
        time.sleep(max(0.0, mark + opts.gap - time.time()))
        windows.append(Window(mark, time.time(), bots))
        print(f"measured until {ll.utc()}, load {ll.loadavg()}", flush=True)
    finally:
        code, seconds = ll.stop_live(live)
    print(f"SIGTERM: live season exit {code} after {seconds:.1f} s "
          f"({'ok' if code == 0 else 'NOT 0'}); last line: "
          f"{(folder / 'live.log').read_text().strip().splitlines()[-1]}")
    for variant in FORMATS:
        print(f"time to rank, {variant}: {spread(ranks[variant])}")
    placing = rates(db, [w for w in windows if w.newcomer is not None])
    quiet = rates(db, [w for w in windows if w.newcomer is None])
    for label, r in (("placement windows", placing), ("no newcomer", quiet)):
        print(f"{label}: {r['minutes']:.1f} min; games a minute: "
              + ", ".join(f"{v} {r.get(v, 0.0):.0f}" for v in ("classic", "duel", "solo"))
              + "; an already-ranked bot's games a minute: "
              + ", ".join(f"{v} {r.get('ranked ' + v, 0.0):.1f}" for v in ("classic", "duel", "solo")))
    for variant in FORMATS:
        share = placing.get(f"newcomer {variant}", 0.0) / max(placing.get(variant, 0.0), 1e-9)
        print(f"the newcomer's share of {variant} games in its placement window: {share:.0%}")
    for variant in ("classic", "duel", "solo"):
        kept = placing.get(f"ranked {variant}", 0.0) / max(quiet.get(f"ranked {variant}", 0.0), 1e-9)
        print(f"while a newcomer places, an already-ranked bot plays {kept:.0%} of its usual {variant} games "
              "a minute")
    if code != 0:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
