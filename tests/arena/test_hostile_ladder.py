"""Hostile bots that got onto the ladder and misbehave later, all in one real season (the `arena`
command, a pool of 2 workers, the strong sandbox) whose tables the test chose: each hostile bot sits
with bosses, and some with a second hostile bot or a partner, at every game of its table. Whatever they
do: the season finishes, every game is rated (none void: no bot can turn its loss into a void), each
misbehaving bot ranks below every well-behaved seat in each game it spoiled, the database rerates to
itself, and no bot process is left running. The bots are in tests/sandbox/hostile/.
"""
from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Sequence

import pytest
from arena.submissions.accounts import ensure_author
from arena_helpers import db_url, fix_seed_key, run_arena
from sqlmodel import Session

from arena.db.columns import stored_text
from arena.db import make_engine, stored_id
from arena.ladder.matchmaking import Candidate, Matchmaker
from arena.ladder.planning import Planner, SeasonSettings, get_or_create_season
from arena.ladder.rankings import load_book
from arena.submissions.versions import register, register_bosses
from engine import ClassicGame, classic_rules
from sandbox import Tier, close_fork_servers, detect_tier
from sandbox.isolation import SLOT_UIDS
from sandbox.procscan import live_descendants

HOSTILE = Path(__file__).resolve().parents[1] / "sandbox" / "hostile"
STRONG = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG:
    raise RuntimeError("CI without the strong sandbox tier: the hostile ladder must run there, never be skipped")
pytestmark = pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")

DECISION_KINDS = ("plant_first", "plant_second", "trade_offer", "trade_respond", "trade_confirm", "plant_traded")


def hostile_source(name: str, **constants: object) -> str:
    """A hostile bot's source with its module constants (``TARGET = "hello"``) rewritten."""
    source = (HOSTILE / f"{name}.py").read_text(encoding="utf-8")
    for key, value in constants.items():
        source, count = re.subn(rf"^{key} = .*$", f"{key} = {value!r}", source, count=1, flags=re.M)
        assert count == 1, f"{name}.py has no constant {key}"
    return source


def bot_processes() -> set[tuple[int, int]]:
    """This test process's live bot processes, as (pid, start time): its descendants (tests/conftest.py
    makes it their subreaper, so an orphan stays one) that run as a sandbox slot uid or are a runner
    bootstrap. Other arenas on the machine, another clone's tests or an operator's season, are not in it."""
    found = set()
    for pid, start in live_descendants(os.getpid()).items():
        try:
            if os.stat(f"/proc/{pid}").st_uid in SLOT_UIDS:
                found.add((pid, start))
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"__bohnanza_runner__" in f.read():
                    found.add((pid, start))
        except OSError:
            continue  # ended meanwhile
    return found


@dataclass(frozen=True)
class Ladder:
    """What the shared season left: each game's seats (bot name -> (status, rank)), the length of each
    game's replay, the season's summary line, and the bot processes that ran before it."""

    seats: dict[int, dict[str, tuple[str, int]]]
    replay_bytes: dict[int, int]
    line: str
    before: set[tuple[int, int]]

    def games_of(self, name: str) -> dict[int, dict[str, tuple[str, int]]]:
        return {match: seats for match, seats in self.seats.items() if name in seats}

    def statuses(self, name: str) -> list[str]:
        return [seats[name][0] for seats in self.games_of(name).values()]

    def failures_reported(self) -> list[str]:
        """The items of 'bot failures this run: ...', one per bot: ``name N (status N, ...)``."""
        return re.findall(r"[\w.-]+ \d+ \([^)]*\)", self.line.partition("bot failures this run: ")[2])


SEASON = "hostile"
BOSSES = ("random", "greedy", "trader")
SHAPES = {"deep-in-action": "protocol", "deep-object": "protocol", "wide": "illegal", "bignum": "illegal",
          "bad-utf8": "protocol", "nan": "protocol", "wrong-types": "protocol"}


def ladder_bots() -> dict[str, tuple[str, str]]:
    """name -> (source, author) of every submitted bot of the shared season; each has an author of its own,
    as if it had passed `arena submit` (a partner is another author's bot, as colluders would enter it)."""
    sources = {f"deep-{target}": hostile_source("deep_json", TARGET=target, SHAPE="deep")
               for target in ("hello",) + DECISION_KINDS}
    sources |= {f"shape-{shape}": hostile_source("deep_json", TARGET="plant_first", SHAPE=shape) for shape in SHAPES}
    sources |= {
        "when-behind": hostile_source("deep_json", TARGET="when-behind"),
        "flood-legal": hostile_source("offer_flood", MODE="legal"),
        "flood-huge": hostile_source("offer_flood", MODE="huge"),
        "seed-searcher": (HOSTILE / "seed_searcher.py").read_text(),
        "early-spin": hostile_source("early_reply", SPIN_S=0.2),
        "futex-wait": hostile_source("early_reply", ROLE="wait", WAIT_S=0.05),
        "futex-wake": hostile_source("early_reply", ROLE="wake"),
        "proc-mem": (HOSTILE / "proc_mem.py").read_text(),
        "tamper": (HOSTILE / "fork_server_tamper.py").read_text(),
        "memoriser": (HOSTILE / "memoriser.py").read_text(),
        "covert-receive": hostile_source("covert_channel", ROLE="receive"),
        "covert-send": hostile_source("covert_channel", ROLE="send"),
    }
    return {name: (source, f"mallory-{name}") for name, source in sources.items()}


#: The shared season's tables, each played once per seat rotation (a table of n seats: n games, every bot
#: in every seat). Two hostile bots share a table where neither's fault can hide the other's: a seat that
#: forfeits is played by the default policy, and the bosses stay at every table.
TABLES: tuple[tuple[str, ...], ...] = (
    ("deep-hello", "deep-plant_first", *BOSSES),
    ("deep-plant_second", "deep-trade_offer", *BOSSES),
    ("deep-trade_respond", "deep-trade_confirm", *BOSSES),
    ("deep-plant_traded", "when-behind", *BOSSES),
    ("shape-deep-in-action", "shape-deep-object", "shape-wide", "greedy", "trader"),
    ("shape-bignum", "shape-bad-utf8", "shape-nan", "random", "trader"),
    ("shape-wrong-types", "flood-huge", "early-spin", "random", "greedy"),
    ("memoriser", "proc-mem", *BOSSES),
    ("memoriser", "tamper", *BOSSES),
    ("flood-legal", "seed-searcher", *BOSSES),
    ("futex-wait", "futex-wake", "random", "greedy"),
    ("covert-receive", "covert-send", "random", "greedy"),
)


def planned_games(name: str) -> int:
    return sum(len(table) for table in TABLES if name in table)


class ChosenTables(Matchmaker):
    """Stands in for the matchmaker while the test plans the season: the next of the chosen tables
    (version ids in seat order). Which bots meet is not what these tests check; that every hostile bot
    meets the bosses at a known number of games is what they need."""

    def __init__(self, tables: list[list[int]]) -> None:
        super().__init__(random.Random(0))  # which it never draws from
        self.tables = tables

    def size(self, min_players: int, max_players: int, available: int) -> int:
        return len(self.tables[0])

    def table(self, candidates: Sequence[Candidate], size: int,
              apart_pairs: Collection[frozenset[int]] = frozenset(), receivers: Collection[int] = frozenset(),
              min_size: int | None = None) -> list[int]:
        return self.tables.pop(0)


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Ladder:
    """Every hostile bot of ``ladder_bots`` entered on one ladder, its tables planned (``TABLES``, a fixed
    seed key and season seed 1: the same deals every run), then played by a real `arena season run` (it
    resumes the planned season). Checks what every hostile season must show: it finishes, every game is
    rated (none void: no bot can turn its loss into a void), every boss's seat is ok and every seat that
    failed ranks below every seat that did not, the run's summary line counts each bot's failures, the
    database rerates to itself, and no bot process is left running."""
    db = tmp_path_factory.mktemp("hostile-ladder") / "ladder.sqlite"
    # A fixed key: the seed searcher matches its hand and first turned-up cards against thousands of deals, and
    # on a fresh key now and then a wrong deal matches those seven cards by chance (CI saw it once)
    fix_seed_key(db)
    before = bot_processes()  # an earlier test's are not this season's
    games = sum(len(table) for table in TABLES)
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        ids = {entered.bot.name: stored_id(entered.version) for entered in register_bosses(session, BOSSES)}
        for name, (source, author) in ladder_bots().items():
            actor = ensure_author(session, author)
            ids[name] = stored_id(register(session, name, source, actor, variants=("classic",)).version)
        season = get_or_create_season(session, SeasonSettings(SEASON, games=games, min_players=4, max_players=5,
                                                              seed=1))
        planner = Planner(session, season, load_book(session, "classic"))
        planner.matchmaker = ChosenTables([[ids[name] for name in table] for table in TABLES])
        while planner.remaining():
            planner.plan()
    engine.dispose()
    result = run_arena("season", "run", "--name", SEASON, "--workers", "2", db=db, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    with sqlite3.connect(db) as con:
        statuses = [s for (s,) in con.execute("SELECT status FROM match")]
        rows = con.execute(
            "SELECT match.id, bot.name, matchseat.status, matchseat.rank, match.replay FROM matchseat "
            "JOIN match ON matchseat.match_id = match.id JOIN botversion ON matchseat.version_id = botversion.id "
            "JOIN bot ON botversion.bot_id = bot.id").fetchall()
    assert len(statuses) == games and set(statuses) == {"done"}, statuses  # every game rated, none void
    seats: dict[int, dict[str, tuple[str, int]]] = {}
    replay_bytes: dict[int, int] = {}
    for match_id, name, status, rank, stored in rows:
        seats.setdefault(match_id, {})[name] = (status, rank)
        replay_bytes[match_id] = len(stored_text(stored).encode())  # the replay's own size, not its compressed one
    failures: dict[str, Counter[str]] = {}
    for match_id, game in seats.items():
        assert all(game[boss][0] == "ok" for boss in BOSSES if boss in game), (match_id, game)
        ok_ranks = [rank for status, rank in game.values() if status == "ok"]
        for name, (status, rank) in game.items():
            if status != "ok":
                assert all(rank > r for r in ok_ranks), (match_id, name, game)  # it spoiled only its own game
                failures.setdefault(name, Counter())[status] += 1
    line = next(line for line in result.stdout.splitlines() if line.startswith(f"season {SEASON}:"))
    summary = ", ".join(f"{name} {sum(c.values())} ({', '.join(f'{k} {v}' for k, v in c.most_common())})"
                        for name, c in sorted(failures.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])))
    assert line == f"season {SEASON}: {games} games rated, 0 void; bot failures this run: {summary}"
    rerate = run_arena("leaderboard", "--rerate", db=db)
    assert rerate.returncode == 0 and "rerated classic: 0 ratings differed" in rerate.stderr, rerate.stderr
    close_fork_servers()  # this test process's own (idle) fork servers, from earlier tests, are not the season's
    # a sandbox's namespace is torn down by the kernel, not instantly (slower on a busy machine)
    deadline = time.monotonic() + 30
    while bot_processes() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bot_processes() - before == set()
    return Ladder(seats, replay_bytes, line, before)


def hostile_statuses(ladder: Ladder, name: str) -> list[str]:
    """``name``'s status in each of its games, after checking what each hostile bot must show: it played
    every game planned for it, it ranks below every well-behaved seat in each game it spoiled, every boss
    at its tables was ok, and none of the season's bot processes runs."""
    games = ladder.games_of(name)
    assert len(games) == planned_games(name), (name, games)
    for match_id, seats in games.items():
        status, rank = seats[name]
        if status != "ok":
            assert all(rank > r for n, (s, r) in seats.items() if n != name and s == "ok"), (match_id, seats)
        assert all(s == "ok" for n, (s, _) in seats.items() if n in BOSSES), (match_id, seats)
    assert bot_processes() - ladder.before == set()
    return ladder.statuses(name)


@pytest.mark.parametrize("target", ("hello",) + DECISION_KINDS)
def test_deep_json_at_every_message_kind_is_the_bots_fault(ladder: Ladder, target: str) -> None:
    name = f"deep-{target}"
    statuses = hostile_statuses(ladder, name)
    assert set(statuses) <= {"ok", "protocol"}
    if target in ("hello", "plant_first"):  # asked in every game
        assert set(statuses) == {"protocol"}
    else:
        assert "protocol" in statuses, f"the hostile bot was never asked {target}"
    failures = statuses.count("protocol")
    assert f"{name} {failures} (protocol {failures})" in ladder.failures_reported(), ladder.line


@pytest.mark.parametrize("shape, status", SHAPES.items())
def test_malformed_replies_of_every_shape_are_the_bots_fault(ladder: Ladder, shape: str, status: str) -> None:
    assert set(hostile_statuses(ladder, f"shape-{shape}")) == {status}


def test_a_bot_that_spoils_only_when_losing_ranks_last_in_those_games(ladder: Ladder) -> None:
    statuses = hostile_statuses(ladder, "when-behind")
    assert set(statuses) <= {"ok", "protocol"} and "protocol" in statuses


def test_a_flood_of_legal_offers_stays_small(ladder: Ladder) -> None:
    assert set(hostile_statuses(ladder, "flood-legal")) == {"ok"}
    sizes = [ladder.replay_bytes[match] for match in ladder.games_of("flood-legal")]
    assert max(sizes) < 1_000_000  # was 190 MB for one game before C-6.9


def test_an_offer_wanting_more_than_exists_is_illegal(ladder: Ladder) -> None:
    assert set(hostile_statuses(ladder, "flood-huge")) == {"illegal"}


def test_a_seed_searcher_learns_nothing_from_a_small_season_seed(ladder: Ladder) -> None:
    assert set(hostile_statuses(ladder, "seed-searcher")) == {"ok"}  # "illegal" would mean it recovered a deal


def test_a_bot_that_computes_after_its_reply_forfeits_without_slowing_the_table(ladder: Ladder) -> None:
    """early_reply (ROLE "spin") writes its reply early and keeps computing: it is stopped before the next seat is
    asked, and its late second line answers the wrong request, so it forfeits (protocol) every game."""
    assert set(hostile_statuses(ladder, "early-spin")) == {"protocol"}


def test_a_futex_on_a_shared_file_carries_nothing_at_a_real_table(ladder: Ladder) -> None:
    """early_reply, ROLE "wait": the hostile bot waits on a futex of a shared file after writing its reply
    itself; its partner (another author) wakes that futex at each of its decisions and plays
    illegally if anyone was waiting. The waiter is stopped before any other seat is asked, so the
    partner never finds it: every partner game is ok (the waiter's late line costs it its games)."""
    statuses = hostile_statuses(ladder, "futex-wait")
    assert all("futex-wake" in seats for seats in ladder.games_of("futex-wait").values())
    assert hostile_statuses(ladder, "futex-wake") == ["ok"] * 4
    assert set(statuses) == {"protocol"}


def test_no_process_of_its_sandbox_is_in_reach_at_a_real_table(ladder: Ladder) -> None:
    """proc_mem: at every decision the hostile bot opens the memory of any other process its /proc
    shows (code planted there would run without a seccomp filter) and plays illegally if it could.
    Every game is ok: it reaches nothing, with uid slots as in a user namespace."""
    assert hostile_statuses(ladder, "proc-mem") == ["ok"] * 5


def test_a_bot_leaves_nothing_for_the_next_game_at_a_real_table(ladder: Ladder) -> None:
    """fork_server_tamper: at every decision the hostile bot tries to leave something in /dev, on the
    host's device nodes or in its fork server's limits, reads machine-wide counters and grows pipes,
    and plays illegally if anything worked or an earlier game left a trace. Every game is ok."""
    assert hostile_statuses(ladder, "tamper") == ["ok"] * 5


def test_a_memoriser_remembers_nothing_across_seat_rotations(ladder: Ladder) -> None:
    """Two tables of 5 seats, seat-rotated deals: every deal is played 5 times in a row by the same bots,
    then a second table deals again. The memoriser plays illegally in any game where it finds a memory of
    an earlier one."""
    assert hostile_statuses(ladder, "memoriser") == ["ok"] * 10


def test_two_colluding_bots_find_no_channel_between_their_sandboxes(ladder: Ladder) -> None:
    """Sender and receiver at every table (with two bosses): locks and watches on the files every
    sandbox binds, IPC objects, files in /tmp and /dev/shm. The receiver must read nothing."""
    assert set(hostile_statuses(ladder, "covert-receive")) == {"ok"}
    assert all("covert-send" in seats for seats in ladder.games_of("covert-receive").values())
    assert set(hostile_statuses(ladder, "covert-send")) == {"ok"}


def test_a_bot_that_behaves_only_in_smoke_games_is_refused(tmp_path: Path) -> None:
    old_smoke_hand = tuple(b.value for b in ClassicGame(classic_rules(), 3, 20240601).seats[0].hand)
    bot = tmp_path / "detector.py"
    bot.write_text(hostile_source("smoke_detector", FINGERPRINT="").replace(
        "FINGERPRINT = ''", f"FINGERPRINT = {old_smoke_hand!r}"))
    db = tmp_path / "ladder.sqlite"
    result = run_arena("submit", str(bot), db=db, timeout=600)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "rejected" in result.stderr and "crash" in result.stderr
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM bot").fetchone() == (0,)


def bots_stored(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        return con.execute("SELECT count(*) FROM bot").fetchone()[0]


@pytest.mark.parametrize("author, words", [
    ("x" * 120_000, "at most 64 are allowed"),
    ("\x1b[31mAnn", "control character"),
    ("Ann\r\nEve", "control character"),
], ids=["120KB", "escape", "CRLF"])
def test_author_text_is_bounded_and_printable(tmp_path: Path, author: str, words: str) -> None:
    bot = tmp_path / "fine.py"
    bot.write_text("def act(message):\n    return {'type': 'ready'}\n")
    db = tmp_path / "ladder.sqlite"
    result = run_arena("submit", str(bot), "--author", author, db=db)
    assert result.returncode == 2 and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and len(result.stderr) < 300
    assert "\x1b" not in result.stderr
    assert bots_stored(db) == 0


def test_season_names_are_bounded_and_printable(tmp_path: Path) -> None:
    result = run_arena("season", "run", "--name", "spring\x1b]0;owned\x07", db=tmp_path / "ladder.sqlite")
    assert result.returncode == 2 and "control character" in result.stderr


@pytest.mark.parametrize("seed", ["0", "1", "7"])
def test_a_seed_searcher_learns_nothing_from_a_small_play_seed(tmp_path: Path, seed: str) -> None:
    db = tmp_path / "ladder.sqlite"
    # the deal is keyed with the database's secret: with a fresh key each run, one of the searcher's 4,400
    # candidate seeds dealt the same hand and first turn-up by chance in about one game of 200 (measured over
    # 20,000 random 3-player deals: 0.49 %), a false "recovery" that failed this test once in CI; with a fixed
    # key the deal, and so the verdict, is the same every run
    fix_seed_key(db)
    args = ("play", str(HOSTILE / "seed_searcher.py"), "greedy", "random", "--seed", seed, "--json")
    first, again = run_arena(*args, db=db), run_arena(*args, db=db)
    assert first.returncode == 0, first.stderr
    seats = json.loads(first.stdout)["seats"]
    assert seats[0]["status"] == "ok", seats[0]
    # the chosen seed still reproduces the game on this database
    assert json.loads(again.stdout)["seats"] == [dict(s, time_ms=t["time_ms"]) for s, t in
                                                 zip(seats, json.loads(again.stdout)["seats"])]
