"""Site build speed on a large synthetic ladder: a full build, then an incremental one after one more season.

    python3 bench/site.py [--bots 200] [--games 20000] [--season 100] [--db PATH] [--out DIR] [--workers N]

Creates (or reuses, with --db) a SQLite ladder of synthetic but well-formed rows: bots with one to
three versions, seasons, matches whose replays are real games of random play (a few dozen distinct
games, reused across matches with the seat names rewritten; stored through the ORM's column type,
compressed as the arena stores them), seats with coins and ranks from those replays, some failures,
rating snapshots and ratings. Then, on a copy of that database (the ladder in --db stays as it is):
builds the site into an empty folder, adds one season of --season games (the same generator) and
rebuilds over the first build's output; prints both times and their ratio.
"""
from __future__ import annotations

import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import delete, func, insert  # noqa: E402
from sqlalchemy.engine import Connection  # noqa: E402
from sqlmodel import Session, col, select  # noqa: E402

from arena.db import (Bot, BotVersion, Match, MatchSeat, Rating, RatingSnapshot, Season, VersionFormat,  # noqa: E402
                      make_engine)
from arena.site import BuildSummary, build_site  # noqa: E402
from engine import classic_rules, new_game, rank_by_coins  # noqa: E402
from strategy.policies import random_action  # noqa: E402
from engine.replay import Replay  # noqa: E402

import common  # noqa: E402

STATUSES = ("timeout", "crash", "illegal", "protocol")
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
SEASONS = 4  # of the first ladder
BATCH = 2000  # matches a bulk insert
Rows = list[dict[str, Any]]  # rows to insert, each by column name


def real_replays(per_size: int) -> dict[int, list[tuple[Replay, str]]]:
    """A few real games of random play for each table size, each with its JSON text."""
    rules = classic_rules()
    games: dict[int, list[tuple[Replay, str]]] = {}
    for players in (3, 4, 5):
        for k in range(per_size):
            game = new_game(rules, players, 7919 * players + k)
            rng = random.Random(k)
            while not game.over:
                game.apply(random_action(game, rng))
            replay = Replay.of(game, [f"seat{i}" for i in range(players)])
            games.setdefault(players, []).append((replay, replay.dumps()))
    return games


@dataclass
class Generator:
    """Makes matches, their seats and rating snapshots, and inserts them in bulk."""

    rng: random.Random
    by_bot: dict[int, list[int]]  # a bot's versions, oldest first
    replays: dict[int, list[tuple[Replay, str]]] = field(default_factory=lambda: real_replays(8))
    skills: dict[int, tuple[float, float, int]] = field(default_factory=dict)  # version: mu, sigma, games

    def games(self, conn: Connection, season: int, first: int, count: int, stage_of: Any) -> None:
        """Matches ``first..first+count-1`` of ``season``; ``stage_of(m)``: which version of a bot plays."""
        matches: Rows = []
        seats: Rows = []
        snapshots: Rows = []
        bots = sorted(self.by_bot)
        for m in range(first, first + count):
            rng = self.rng
            stage = stage_of(m)
            players = rng.choice((3, 4, 4, 5))
            replay, text = rng.choice(self.replays[players])
            table = rng.sample(bots, players)
            versions = [self.by_bot[b][min(stage, len(self.by_bot[b]) - 1)] for b in table]
            names = [f"bot-{b:03d}" for b in table]
            text = text.replace(json.dumps(list(replay.seats), separators=(",", ":")),
                                json.dumps(names, separators=(",", ":")), 1)
            failed = [i for i in range(players) if rng.random() < 0.02]
            assert replay.result is not None
            coins = replay.result.coins
            ranks = rank_by_coins(coins, failed)
            void = m % 997 == 0
            finished = START + timedelta(seconds=40 * m)
            matches.append({"id": m, "season_id": season, "number": m - first + 1, "seed": m, "table": m,
                            "rules_id": "classic-v1", "status": "void" if void else "done",
                            "rated_order": None if void else m, "planned_at": finished, "finished_at": finished,
                            "seconds": 1.5, "void_reason": "RuntimeError: synthetic referee fault" if void else None,
                            "replay": text})
            for seat, v in enumerate(versions):
                status = rng.choice(STATUSES) if seat in failed else "ok"
                seats.append({"match_id": m, "seat": seat, "version_id": v, "coins": coins[seat], "rank": ranks[seat],
                              "status": status, "detail": f"synthetic {status} <b>at</b> decision {rng.randint(1, 300)}"
                              if status != "ok" else "", "decisions": 100, "time_ms": 50.0})
                if not void:
                    mu, sigma, played = self.skills.get(v, (25.0, 25 / 3, 0))
                    mu += (players + 1 - 2 * ranks[seat]) * sigma * 0.08
                    sigma = max(0.9, sigma * 0.985)
                    self.skills[v] = (mu, sigma, played + 1)
                    snapshots.append({"match_id": m, "version_id": v, "variant": "classic", "mu": mu, "sigma": sigma,
                                      "games": played + 1})
            if len(matches) >= BATCH or m == first + count - 1:
                conn.execute(insert(Match), matches)  # the ORM's column type compresses each replay
                conn.execute(insert(MatchSeat), seats)
                conn.execute(insert(RatingSnapshot), snapshots)
                matches, seats, snapshots = [], [], []

    def ratings(self, conn: Connection) -> None:
        conn.execute(delete(Rating))
        conn.execute(insert(Rating), [{"version_id": v, "variant": "classic", "mu": mu, "sigma": sigma, "games": n}
                                      for v, (mu, sigma, n) in self.skills.items()])


def season_row(s: int, games: int) -> dict[str, Any]:
    return {"id": s, "name": f"season-{s}", "variant": "classic", "games": games, "min_players": 3, "max_players": 5,
            "rotate": False, "seed": s, "created_at": START + timedelta(days=10 * (s - 1)),
            "finished_at": START + timedelta(days=10 * s)}


def create_ladder(url: str, bots: int, games: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    engine = make_engine(url)
    with Session(engine) as session:
        conn = session.connection()
        bot_rows: Rows = []
        version_rows: Rows = []
        format_rows: Rows = []
        version_id = 0
        for b in range(1, bots + 1):
            bot_rows.append({"id": b, "name": f"bot-{b:03d}", "author": f"author {b % 37}", "builtin": b <= 4,
                             "created_at": START})
            for number in range(1, 1 + (1 if b % 3 else rng.randint(2, 3))):
                version_id += 1
                version_rows.append({"id": version_id, "bot_id": b, "number": number, "source": "# synthetic\n",
                                     "sha256": f"{version_id:064x}", "active": False,
                                     "created_at": START + timedelta(days=number * 10), "prior_sigma": 25 / 3})
                format_rows.append({"version_id": version_id, "variant": "classic", "plays": True, "prior_mu": 25.0})
            version_rows[-1]["active"] = True
        by_bot: dict[int, list[int]] = {}
        for row in version_rows:
            by_bot.setdefault(row["bot_id"], []).append(row["id"])
        conn.execute(insert(Bot), bot_rows)
        conn.execute(insert(BotVersion), version_rows)
        conn.execute(insert(VersionFormat), format_rows)
        conn.execute(insert(Season), [season_row(s, games // SEASONS) for s in range(1, SEASONS + 1)])
        generator = Generator(rng, by_bot)
        for s in range(SEASONS):  # season s+1 plays matches first..last
            first, last = 1 + s * games // SEASONS, (s + 1) * games // SEASONS
            generator.games(conn, s + 1, first, last - first + 1, lambda m: min(2, (m - 1) * 3 // games))
        generator.ratings(conn)
        session.commit()
    engine.dispose()


def add_season(url: str, games: int, seed: int = 2) -> None:
    """One more season of ``games`` games at the end of the ladder, every bot's newest version playing."""
    engine = make_engine(url)
    with Session(engine) as session:
        conn = session.connection()
        by_bot: dict[int, list[int]] = {}
        for vid, bot_id in session.exec(select(BotVersion.id, BotVersion.bot_id).order_by(col(BotVersion.number))):
            by_bot.setdefault(bot_id, []).append(vid or 0)
        generator = Generator(random.Random(seed), by_bot)
        generator.skills = {r.version_id: (r.mu, r.sigma, r.games) for r in session.exec(select(Rating))}
        last = session.exec(select(func.max(Match.id))).one() or 0
        season = (session.exec(select(func.max(Season.id))).one() or 0) + 1
        conn.execute(insert(Season), [season_row(season, games)])
        generator.games(conn, season, last + 1, games, lambda m: 2)
        generator.ratings(conn)
        session.commit()
    engine.dispose()


def match_count(url: str) -> int:
    with Session(make_engine(url)) as session:
        return session.exec(select(func.count()).select_from(Match)).one()


def built(label: str, summary: BuildSummary) -> None:
    print(f"{label}: {summary.pages} pages ({summary.games} game pages) rendered, {summary.written} files written, "
          f"{summary.removed} removed, in {summary.seconds:.1f} s", flush=True)


def main() -> None:
    parser = common.parser(__doc__, 20_000)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--season", type=int, default=100, help="Games of the season added before the rebuild")
    parser.add_argument("--db", help="SQLite file to create, or to reuse when it already holds the ladder")
    parser.add_argument("--out", help="Site folder (default: a temporary folder); emptied first")
    parser.add_argument("--workers", type=int, default=None, help="Processes for game pages (default: cores, max 4)")
    args = parser.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="arena-bench-site-")
    db = Path(args.db) if args.db else Path(tmp.name) / "ladder.sqlite"
    url = f"sqlite:///{db}"
    existing = match_count(url) if db.exists() else 0
    if existing != args.games:
        if db.exists():
            sys.exit(f"{str(db)!r} holds {existing} games, not {args.games}; remove it or choose another --db")
        started = time.perf_counter()
        create_ladder(url, args.bots, args.games)
        print(f"created {args.bots} bots, {args.games} games in {time.perf_counter() - started:.1f} s "
              f"({db.stat().st_size / 2**20:.0f} MiB)", flush=True)
    work = db.with_name(db.name + ".run")  # the season is added to a copy: --db stays reusable
    shutil.copyfile(db, work)
    work_url = f"sqlite:///{work}"
    try:
        out = Path(args.out) if args.out else Path(tmp.name) / "site"
        shutil.rmtree(out, ignore_errors=True)
        full = build_site(make_engine(work_url), out, workers=args.workers)
        built("full build into an empty folder", full)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        game_pages = sorted((out / "games").glob("[0-9]*.html"))
        average = sum(p.stat().st_size for p in game_pages) / max(1, len(game_pages))
        print(f"site: {size / 2**20:.0f} MiB, game pages {average / 1024:.0f} KiB on average, "
              f"index {(out / 'index.html').stat().st_size / 1024:.0f} KiB", flush=True)
        started = time.perf_counter()
        add_season(work_url, args.season)
        print(f"added a season of {args.season} games in {time.perf_counter() - started:.1f} s", flush=True)
        again = build_site(make_engine(work_url), out, workers=args.workers)
        built("incremental rebuild", again)
        print(f"ratio incremental / full: {again.seconds / full.seconds:.3f} (target <= 0.10) "
              f"[{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores]")
    finally:
        work.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            Path(f"{work}{suffix}").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
