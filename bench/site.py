"""Site build speed on a large synthetic ladder.

    python3 bench/site.py [--bots 200] [--games 20000] [--db PATH] [--out DIR] [--workers N]

Creates (or reuses, with --db) a SQLite ladder of synthetic but well-formed rows: bots with one to
three versions, seasons, matches whose replays are real games of random play (a few dozen distinct
games, reused across matches with the seat names rewritten), seats with coins and ranks from those
replays, some failures, rating snapshots and ratings. Then builds the site and prints the time.
"""
from __future__ import annotations

import json
import os
import platform
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import func, insert  # noqa: E402
from sqlalchemy import inspect as sa_inspect  # noqa: E402
from sqlmodel import Session, select  # noqa: E402

from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, RatingSnapshot, Season, VersionFormat, make_engine  # noqa: E402
from arena.site import build_site  # noqa: E402
from engine import classic_rules, new_game, rank_by_coins  # noqa: E402
from strategy.policies import random_action  # noqa: E402
from engine.replay import Replay  # noqa: E402

import common  # noqa: E402

STATUSES = ("timeout", "crash", "illegal", "protocol")
Rows = list[dict[str, Any]]  # rows to insert, each by column name


def real_replays(per_size: int) -> dict[int, list[Replay]]:
    """A few real games of random play for each table size."""
    rules = classic_rules()
    games: dict[int, list[Replay]] = {}
    for players in (3, 4, 5):
        for k in range(per_size):
            game = new_game(rules, players, 7919 * players + k)
            rng = random.Random(k)
            while not game.over:
                game.apply(random_action(game, rng))
            games.setdefault(players, []).append(Replay.of(game, [f"seat{i}" for i in range(players)]))
    return games


def create_ladder(url: str, bots: int, games: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    engine = make_engine(url)
    replays = real_replays(8)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with Session(engine) as session:
        conn = session.connection()
        bot_rows: Rows = []
        version_rows: Rows = []
        format_rows: Rows = []
        version_id = 0
        version_bot: dict[int, int] = {}
        for b in range(1, bots + 1):
            bot_rows.append({"id": b, "name": f"bot-{b:03d}", "author": f"author {b % 37}", "builtin": b <= 4,
                             "created_at": start})
            for number in range(1, 1 + (1 if b % 3 else rng.randint(2, 3))):
                version_id += 1
                version_bot[version_id] = b
                version_rows.append({"id": version_id, "bot_id": b, "number": number, "source": "# synthetic\n",
                                     "sha256": f"{version_id:064x}", "active": False,
                                     "created_at": start + timedelta(days=number * 10),
                                     "prior_sigma": 25 / 3})
                format_rows.append({"version_id": version_id, "variant": "classic", "plays": True, "prior_mu": 25.0})
            version_rows[-1]["active"] = True
        by_bot: dict[int, list[int]] = {}
        for row in version_rows:
            by_bot.setdefault(row["bot_id"], []).append(row["id"])
        conn.execute(insert(Bot), bot_rows)
        conn.execute(insert(BotVersion), version_rows)
        conn.execute(insert(VersionFormat), format_rows)
        seasons = 4
        conn.execute(insert(Season), [{"id": s, "name": f"season-{s}", "variant": "classic", "games": games // seasons,
                                       "min_players": 3, "max_players": 5, "rotate": False, "seed": s,
                                       "created_at": start + timedelta(days=10 * (s - 1)),
                                       "finished_at": start + timedelta(days=10 * s)} for s in range(1, seasons + 1)])
        skills: dict[int, tuple[float, float, int]] = {}
        match_rows: Rows = []
        seat_rows: Rows = []
        snapshot_rows: Rows = []
        for m in range(1, games + 1):
            season = 1 + (m - 1) * seasons // games
            stage = min(2, (m - 1) * 3 // games)  # which version of a multi-version bot plays
            players = rng.choice((3, 4, 4, 5))
            replay = rng.choice(replays[players])
            table = rng.sample(range(1, bots + 1), players)
            versions = [by_bot[b][min(stage, len(by_bot[b]) - 1)] for b in table]
            names = [f"bot-{b:03d}" for b in table]
            text = replay.dumps().replace(json.dumps(list(replay.seats), separators=(",", ":")),
                                          json.dumps(names, separators=(",", ":")), 1)
            failed = [i for i in range(players) if rng.random() < 0.02]
            assert replay.result is not None
            coins = replay.result.coins
            ranks = rank_by_coins(coins, failed)
            void = m % 997 == 0
            finished = start + timedelta(seconds=40 * m)
            match_rows.append({"id": m, "season_id": season, "number": m, "seed": m, "rules_id": "classic-v1",
                               "status": "void" if void else "done", "rated_order": None if void else m,
                               "planned_at": finished, "finished_at": finished, "seconds": 1.5,
                               "void_reason": "RuntimeError: synthetic referee fault" if void else None,
                               "replay": text} | ({"table": m} if "table" in sa_inspect(Match).columns else {}))
            for seat, v in enumerate(versions):
                status = rng.choice(STATUSES) if seat in failed else "ok"
                seat_rows.append({"match_id": m, "seat": seat, "version_id": v, "coins": coins[seat],
                                  "rank": ranks[seat], "status": status,
                                  "detail": f"synthetic {status} <b>at</b> decision {rng.randint(1, 300)}"
                                            if status != "ok" else "",
                                  "decisions": 100, "time_ms": 50.0})
                if not void:
                    mu, sigma, played = skills.get(v, (25.0, 25 / 3, 0))
                    mu += (players + 1 - 2 * ranks[seat]) * sigma * 0.08
                    sigma = max(0.9, sigma * 0.985)
                    skills[v] = (mu, sigma, played + 1)
                    snapshot_rows.append({"match_id": m, "version_id": v, "variant": "classic", "mu": mu,
                                          "sigma": sigma, "games": played + 1})
            if len(match_rows) >= 1000:
                conn.execute(insert(Match), match_rows)
                match_rows.clear()
        if match_rows:
            conn.execute(insert(Match), match_rows)
        conn.execute(insert(MatchSeat), seat_rows)
        conn.execute(insert(RatingSnapshot), snapshot_rows)
        conn.execute(insert(Rating), [{"version_id": v, "variant": "classic", "mu": mu, "sigma": sigma, "games": n}
                                      for v, (mu, sigma, n) in skills.items()])
        session.commit()
    engine.dispose()


def main() -> None:
    parser = common.parser(__doc__, 20_000)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--db", help="SQLite file to create, or to reuse when it already holds the ladder")
    parser.add_argument("--out", help="Site folder (default: a temporary folder)")
    parser.add_argument("--workers", type=int, default=None, help="Processes for game pages (default: cores, max 4)")
    args = parser.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="arena-bench-site-")
    db = Path(args.db) if args.db else Path(tmp.name) / "ladder.sqlite"
    url = f"sqlite:///{db}"
    existing = 0
    if db.exists():
        with Session(make_engine(url)) as session:
            existing = session.exec(select(func.count()).select_from(Match)).one()
    if existing != args.games:
        if db.exists():
            sys.exit(f"{str(db)!r} holds {existing} games, not {args.games}; remove it or choose another --db")
        started = time.perf_counter()
        create_ladder(url, args.bots, args.games)
        print(f"created {args.bots} bots, {args.games} games in {time.perf_counter() - started:.1f} s "
              f"({db.stat().st_size / 2**20:.0f} MiB)")
    out = Path(args.out) if args.out else Path(tmp.name) / "site"
    summary = build_site(make_engine(url), out, workers=args.workers)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    game_pages = sorted((out / "games").glob("[0-9]*.html"))
    average = sum(p.stat().st_size for p in game_pages) / max(1, len(game_pages))
    print(f"site build: {summary.pages} pages ({summary.games} game pages) in {summary.seconds:.1f} s; "
          f"{size / 2**20:.0f} MiB, game pages {average / 1024:.0f} KiB on average, "
          f"index {(out / 'index.html').stat().st_size / 1024:.0f} KiB "
          f"[{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores]")


if __name__ == "__main__":
    main()
