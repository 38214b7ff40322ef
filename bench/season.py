"""Season throughput with fresh bot state every game: fork servers against a cold start per bot.

    python3 bench/season.py [--games N] [--workers N] [--breakdown-games N] [--plain]

In one run, on a fresh SQLite file with the example bots (plus renamed copies, so that 4-player
tables have 4 different bots): a season of 4-player, seat-rotated deals in the strong sandbox
with (a) fork servers (the default: every bot of every game is a fresh child of a warmed
template) and (b) a cold start of every bot for every game; prints games per minute of each,
then where one game's time goes (bot start-up, bot requests, the referee and engine), the
referee and engine against the bare engine playing the same actions (``referee and engine vs engine alone:
X.XXx``), the protocol round trip with real ``decide`` messages through a sandboxed bot against a raw echo
that uses the runner's JSON codec (both timed from the message to its parsed reply, bench/referee.py),
``fresh state vs cold spawn: X.XXx``, and last the sandbox's tax:
the fork-server season's very games (deals, seats, bot sources) played again in-process by as many
worker processes, each bot a fresh object of its file every game, called with the referee's message
objects (no sandbox, no JSON): ``sandboxed vs in-process: X.XX``, the ratio of games per minute.
With ``--plain`` (where the strong tier works), a third season plays in the plain tier (no bubblewrap, as on a
machine without it) with the default limits: ``strong vs plain tier: X.XXx``, the ratio of games per minute.
"""
from __future__ import annotations

import json
import multiprocessing
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.db import Match, MatchSeat, MatchStatus, Season, make_engine, stored_id  # noqa: E402
from arena.ladder.seasons import run_season  # noqa: E402
from arena.ladder.planning import SeasonSettings  # noqa: E402
from arena.play.players import SandboxPlayer  # noqa: E402
from arena.play.players import load_entry_point  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from arena.ladder.random_seeds import bot_seeds, database_key  # noqa: E402
from arena.db import BotVersion  # noqa: E402
from sqlmodel import Session  # noqa: E402

from arena.audit.store import run_audit  # noqa: E402
from arena.db.columns import stored_text  # noqa: E402
from engine import action_from_json, classic_rules, rules_for  # noqa: E402
from sandbox import Limits, Reply, Status, Tier, detect_tier  # noqa: E402
from sandbox.protocol import DecideMessage, Message, encode  # noqa: E402

import common  # noqa: E402
import referee as referee_bench  # noqa: E402 - bench/referee.py


def season_rate(engine: Any, name: str, games: int, workers: int, limits: Limits, tier: Tier) -> float:
    started = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    settings = SeasonSettings(name=name, games=games, min_players=4, max_players=4, seed=len(name), rotate=True)
    progress = run_season(engine, settings, workers, limits, tier)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    coordinator_ms = (after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime) * 1000 / max(1, progress.done)
    rate = progress.done / elapsed * 60
    audit_started = time.perf_counter()  # the season's own end-of-season audit, timed again: the same reads and tests
    with Session(engine) as session:
        run_audit(session, season=name)
    audit_ms = (time.perf_counter() - audit_started) * 1000 / max(1, progress.done)
    print(f"{name:<12} {progress.done} games in {elapsed:6.1f} s = {rate:6.1f} games/min "
          f"(failures {progress.failures}, void {progress.void}; coordinator CPU {coordinator_ms:.1f} ms a game; "
          f"the end-of-season audit in it, timed again: {audit_ms:.1f} ms a game)", flush=True)
    return rate


class Recorder(common.Relay):
    """A player that records the messages its bot is sent (to replay real ``decide`` sizes)."""

    def __init__(self, inner: SandboxPlayer, sink: list[Message]) -> None:
        super().__init__(inner)
        self.sink = sink

    def request(self, message: Message) -> Reply:
        self.sink.append(message)
        return self.inner.request(message)


def breakdown(games: int, limits: Limits, tier: Tier) -> list[dict]:
    """One worker, games one after another: where a game's time goes, and the referee and engine against the
    bare engine playing the same actions (bench/referee.py). Returns the decide messages seen."""
    rules = classic_rules()
    sources = [(common.BOTS / f"{stem}.py").read_text()
               for stem in ("random_bot", "greedy_bot", "random_bot", "greedy_bot")]
    messages: list[Message] = []
    rows = []
    for seed in range(games):
        started = time.perf_counter()
        players = [SandboxPlayer(f"b{i}", source, limits, tier) for i, source in enumerate(sources)]
        spawned = time.perf_counter()
        record = play_game(rules, seed, [Recorder(p, messages) if seed == 0 else p for p in players], limits)
        played = time.perf_counter()
        for p in players:
            p.close()
        closed = time.perf_counter()
        bots_ms = sum(s.time_ms for s in record.seats)
        actions = [action_from_json(a) for _, a in json.loads(record.replay_text)["actions"]]
        alone = min(referee_bench.engine_alone_ms(rules, seed, len(players), actions) for _ in range(3))
        rows.append({"spawn": (spawned - started) * 1000, "game": (played - spawned) * 1000, "bots": bots_ms,
                     "close": (closed - played) * 1000, "decisions": sum(s.decisions for s in record.seats),
                     "alone": alone})
    mean = {k: statistics.fmean(r[k] for r in rows) for k in rows[0]}
    total = mean["spawn"] + mean["game"] + mean["close"]
    referee = mean["game"] - mean["bots"]
    print(f"  one game ({games} games, 4 seats, {mean['decisions']:.0f} decisions): {total:.1f} ms = "
          f"start 4 bots {mean['spawn']:.1f} + bot requests {mean['bots']:.1f} (round trips and thinking) "
          f"+ referee and engine {referee:.1f} + close 4 bots {mean['close']:.1f}")
    print(f"  the same games' actions on the bare engine: {mean['alone']:.1f} ms; "
          f"referee and engine vs engine alone: {referee / mean['alone']:.2f}x")
    return [json.loads(encode(m)) for m in messages if isinstance(m, DecideMessage)]


class DirectPlayer:
    """A trusted bot called with the referee's messages' JSON objects (``to_json``: the parts the referee wrote as
    text read back, no sandbox, no line), a fresh bot object every game (as the sandbox gives every game a fresh
    process)."""

    stderr_tail = ""

    def __init__(self, name: str, new_act: Any) -> None:
        self.name, self._act = name, new_act()

    def request(self, message: Message) -> Reply:
        started = time.perf_counter()
        reply = self._act(message.to_json())
        return Reply(Status.OK, reply, (time.perf_counter() - started) * 1000)

    def notify(self, message: Message) -> None:
        self._act(message.to_json())

    def time_left_ms(self) -> float:
        return Limits().decision_ms + Limits().bank_ms  # what the referee tells a bot it has, unenforced here

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        pass


#: A played game to play again in-process: rules id, deal seed, and per seat (bot name, its file, bot seed)
Table = tuple[str, int, tuple[tuple[str, str, int], ...]]
_ENTRY_POINTS: dict[str, Any] = {}  # per worker process: a bot file's entry point, loaded once


def season_tables(engine: Any, season_name: str, folder: Path) -> list[Table]:
    """The done games of a season as tables to play again, with the bot seeds the season gave them; each
    bot version's source written once into ``folder``."""
    from sqlmodel import col, select

    tables: list[Table] = []
    with Session(engine) as session:
        key = database_key(session)
        season = session.exec(select(Season).where(Season.name == season_name)).one()
        matches = session.exec(select(Match).where(Match.season_id == stored_id(season),
                                                   Match.status == MatchStatus.DONE).order_by(col(Match.id))).all()
        for match in matches:
            seats = session.exec(select(MatchSeat, BotVersion).where(MatchSeat.match_id == stored_id(match),
                                                                     MatchSeat.version_id == BotVersion.id)
                                 .order_by(col(MatchSeat.seat))).all()
            files = []
            for _, version in seats:
                path = folder / f"v{version.id}.py"
                if not path.exists():
                    path.write_text(version.source, encoding="utf-8")
                files.append((path.stem, str(path)))
            seeds = bot_seeds(key, match.seed, len(seats))
            tables.append((match.rules_id, match.seed,
                           tuple((name, path, seed) for (name, path), seed in zip(files, seeds))))
    return tables


def play_in_process(table: Table) -> int:
    """Play one table with its bots in this process; the number of seats that ended ok."""
    rules_id, seed, seats = table
    players = []
    for name, path, _ in seats:
        if path not in _ENTRY_POINTS:
            _ENTRY_POINTS[path] = load_entry_point(Path(path))
        players.append(DirectPlayer(name, _ENTRY_POINTS[path]))
    record = play_game(rules_for(rules_id), seed, players, bot_seeds=[s for _, _, s in seats])
    return 0 if record.void else sum(1 for seat in record.seats if seat.status is Status.OK)


def in_process_rate(tables: list[Table], workers: int) -> float:
    """Games per minute of ``tables`` played in-process by ``workers`` processes."""
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        pool.map(play_in_process, tables[:workers])  # warm: each worker imports the engine and loads bots
        started = time.perf_counter()
        ok = pool.map(play_in_process, tables, chunksize=4)
        elapsed = time.perf_counter() - started
    rate = len(tables) / elapsed * 60
    failed = sum(len(t[2]) for t in tables) - sum(ok)
    print(f"{'in-process':<12} {len(tables)} games in {elapsed:6.1f} s = {rate:6.1f} games/min "
          f"(the fork-server season's games again; seats not ok {failed})", flush=True)
    return rate


def stored_size(engine: Any, path: Path) -> None:
    """What the games take in the database: a stored replay's bytes (median), and the file per game."""
    from sqlalchemy import text

    with engine.begin() as conn:
        conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
        rows = conn.execute(text('SELECT replay FROM "match" WHERE replay IS NOT NULL')).all()
        sizes = sorted(len(bytes(replay)) for (replay,) in rows)
        texts = sorted(len(stored_text(bytes(replay)).encode()) for (replay,) in rows)
        games = len(sizes)
    print(f"storage: a game's replay as stored {sizes[games // 2]} B, as JSON {texts[games // 2]} B "
          f"(medians of {games}), "
          f"the database file {path.stat().st_size / games / 1024:.1f} KiB a game", flush=True)


def main() -> None:
    parser = common.parser(__doc__, 240, games_help="games per season (4-player rotated deals)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--breakdown-games", type=int, default=20, help="games of each breakdown (0: none)")
    parser.add_argument("--plain", action="store_true", help="a season in the plain tier too (issue 46 item 4)")
    args = parser.parse_args()
    tier = detect_tier()
    print(common.machine(f"tier {tier.value}", f"{args.workers} workers", "4-player seat-rotated deals"), flush=True)
    forked, cold = Limits(), Limits(fork_server=False)
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{folder}/bench.sqlite")
        common.register_example_bots(engine)
        fresh = season_rate(engine, "fork-server", args.games, args.workers, forked, tier)
        spawn = season_rate(engine, "cold-spawn", args.games, args.workers, cold, tier)
        plain = season_rate(engine, "plain-tier", args.games, args.workers, forked, Tier.PLAIN) if args.plain else 0.0
        direct = in_process_rate(season_tables(engine, "fork-server", Path(folder)), args.workers)
        stored_size(engine, Path(folder) / "bench.sqlite")
    for label, limits in (("fork server", forked), ("cold spawn", cold)):
        if args.breakdown_games < 1:  # --breakdown-games 0: the seasons' figures only
            break
        print(f"breakdown, {label}:")
        decides = breakdown(args.breakdown_games, limits, tier)
    else:
        sizes = sorted(len(json.dumps(m, separators=(",", ":"))) for m in decides)
        sandboxed, raw = referee_bench.round_trips(decides, tier)
        print(f"round trip with {len(decides)} real decide messages (median {sizes[len(sizes) // 2]} B, "
              f"max {sizes[-1]} B): sandboxed bot {sandboxed:.0f} µs, raw echo with the runner's codec {raw:.0f} µs "
              f"({sandboxed / raw:.2f}x)")
    print(f"fresh state vs cold spawn: {fresh / spawn:.2f}x")
    if plain:
        print(f"strong vs plain tier: {fresh / plain:.2f}x (tier {tier.value} against plain, the same limits)")
    print(f"sandboxed vs in-process: {fresh / direct:.2f}")


if __name__ == "__main__":
    main()
