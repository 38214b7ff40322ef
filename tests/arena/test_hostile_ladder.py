"""Hostile bots that got onto the ladder and misbehave later, each through a real season (the
`arena` command, a pool of 2 workers, the strong sandbox). Whatever they do: the season finishes,
every game is rated (none void: no bot can turn its loss into a void), the misbehaving bot ranks
below every well-behaved seat in each game it spoiled, the database rerates to itself, and no bot
process is left running. The bots are in tests/sandbox/hostile/.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from pathlib import Path

import pytest
from arena_helpers import db_url, fix_seed_key, run_arena
from sqlmodel import Session

from arena.db import make_engine
from arena.submit import register
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


def hostile_season(tmp_path: Path, source: str, games: int = 6, bosses: str = "random,greedy,trader",
                   extra: tuple[str, ...] = (), partner: str | None = None) -> dict:
    """Enter ``source`` as bot 'hostile' (as if it had passed `arena submit`), run a season with the
    bosses, and check what every hostile season must show. Returns the seats of every game."""
    db = tmp_path / "ladder.sqlite"
    before = bot_processes()  # an earlier test's are not this one's
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        register(session, "hostile", source, "mallory", variants=("classic",))
        if partner is not None:  # a colluding bot, entered under another author's name
            register(session, "partner", partner, "trudy", variants=("classic",))
    engine.dispose()
    result = run_arena("season", "run", "--name", "hostile", "--games", str(games), "--workers", "2",
                       "--players", "4", "--bosses", bosses, *extra, db=db, timeout=900)  # 4 seats: every bot at every table
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    with sqlite3.connect(db) as con:
        statuses = [s for (s,) in con.execute("SELECT status FROM match")]
        rows = con.execute(
            "SELECT match.id, bot.name, matchseat.status, matchseat.rank, length(match.replay) FROM matchseat "
            "JOIN match ON matchseat.match_id = match.id JOIN botversion ON matchseat.version_id = botversion.id "
            "JOIN bot ON botversion.bot_id = bot.id").fetchall()
    assert len(statuses) == games and set(statuses) == {"done"}, statuses  # every game rated, none void
    games_seen: dict[int, dict[str, tuple[str, int]]] = {}
    for match_id, name, status, rank, _ in rows:
        games_seen.setdefault(match_id, {})[name] = (status, rank)
    for match_id, seats in games_seen.items():
        status, rank = seats["hostile"]
        if status != "ok":
            others = [r for n, (s, r) in seats.items() if n != "hostile" and s == "ok"]
            assert all(rank > r for r in others), (match_id, seats)  # it spoiled only its own game
        assert all(s == "ok" for n, (s, _) in seats.items() if n != "hostile"), (match_id, seats)
    rerate = run_arena("leaderboard", "--rerate", db=db)
    assert rerate.returncode == 0 and "rerated classic: 0 ratings differed" in rerate.stderr, rerate.stderr
    close_fork_servers()  # this test process's own (idle) fork servers, from earlier tests, are not the season's
    deadline = time.monotonic() + 30  # a sandbox's namespace is torn down by the kernel, not instantly (slower on a busy machine)
    while bot_processes() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bot_processes() - before == set()
    return {"seats": games_seen, "stdout": result.stdout, "replay_bytes": [r[4] for r in rows]}


def hostile_statuses(season: dict) -> list[str]:
    return [seats["hostile"][0] for seats in season["seats"].values()]


@pytest.mark.parametrize("target", ("hello",) + DECISION_KINDS)
def test_deep_json_at_every_message_kind_is_the_bots_fault(tmp_path: Path, target: str) -> None:
    season = hostile_season(tmp_path, hostile_source("deep_json", TARGET=target, SHAPE="deep"))
    statuses = hostile_statuses(season)
    assert set(statuses) <= {"ok", "protocol"}
    if target in ("hello", "plant_first"):  # asked in every game
        assert set(statuses) == {"protocol"}
    else:
        assert "protocol" in statuses, f"the hostile bot was never asked {target}"
    failures = statuses.count("protocol")
    line = next(line for line in season["stdout"].splitlines() if line.startswith("season hostile:"))
    assert line == f"season hostile: 6 games rated, 0 void; bot failures this run: hostile {failures} (protocol {failures})"


@pytest.mark.parametrize("shape, status", [
    ("deep-in-action", "protocol"), ("deep-object", "protocol"), ("wide", "illegal"), ("bignum", "illegal"),
    ("bad-utf8", "protocol"), ("nan", "protocol"), ("wrong-types", "protocol"),
])
def test_malformed_replies_of_every_shape_are_the_bots_fault(tmp_path: Path, shape: str, status: str) -> None:
    season = hostile_season(tmp_path, hostile_source("deep_json", TARGET="plant_first", SHAPE=shape))
    assert set(hostile_statuses(season)) == {status}


def test_a_bot_that_spoils_only_when_losing_ranks_last_in_those_games(tmp_path: Path) -> None:
    season = hostile_season(tmp_path, hostile_source("deep_json", TARGET="when-behind"), games=10)
    statuses = hostile_statuses(season)
    assert set(statuses) <= {"ok", "protocol"} and "protocol" in statuses


def test_a_flood_of_legal_offers_stays_small(tmp_path: Path) -> None:
    season = hostile_season(tmp_path, hostile_source("offer_flood", MODE="legal"))
    assert set(hostile_statuses(season)) == {"ok"}
    assert max(season["replay_bytes"]) < 1_000_000  # was 190 MB for one game before C-6.9


def test_an_offer_wanting_more_than_exists_is_illegal(tmp_path: Path) -> None:
    season = hostile_season(tmp_path, hostile_source("offer_flood", MODE="huge"))
    assert set(hostile_statuses(season)) == {"illegal"}


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


def test_a_seed_searcher_learns_nothing_from_a_small_season_seed(tmp_path: Path) -> None:
    # A fixed key: the searcher matches its hand and first turned-up cards against thousands of deals, and
    # on a fresh key now and then a wrong deal matches those seven cards by chance (CI saw it once)
    fix_seed_key(tmp_path / "ladder.sqlite")
    season = hostile_season(tmp_path, (HOSTILE / "seed_searcher.py").read_text(), extra=("--seed", "1"))
    assert set(hostile_statuses(season)) == {"ok"}  # "illegal" would mean it recovered a deal


@pytest.mark.parametrize("seed", ["0", "1", "7"])
def test_a_seed_searcher_learns_nothing_from_a_small_play_seed(tmp_path: Path, seed: str) -> None:
    db = tmp_path / "ladder.sqlite"
    args = ("play", str(HOSTILE / "seed_searcher.py"), "greedy", "random", "--seed", seed, "--json")
    first, again = run_arena(*args, db=db), run_arena(*args, db=db)
    assert first.returncode == 0, first.stderr
    seats = json.loads(first.stdout)["seats"]
    assert seats[0]["status"] == "ok", seats[0]
    # the chosen seed still reproduces the game on this database
    assert json.loads(again.stdout)["seats"] == [dict(s, time_ms=t["time_ms"]) for s, t in
                                                 zip(seats, json.loads(again.stdout)["seats"])]


def test_a_bot_that_computes_after_its_reply_forfeits_without_slowing_the_table(tmp_path: Path) -> None:
    """early_reply (ROLE "spin") writes its reply early and keeps computing: it is stopped before the next seat is
    asked, and its late second line answers the wrong request, so it forfeits (protocol) every game."""
    season = hostile_season(tmp_path, hostile_source("early_reply", SPIN_S=0.2))
    assert set(hostile_statuses(season)) == {"protocol"}


def test_a_futex_on_a_shared_file_carries_nothing_at_a_real_table(tmp_path: Path) -> None:
    """early_reply, ROLE "wait": the hostile bot waits on a futex of a shared file after writing its reply
    itself; its partner (another author) wakes that futex at each of its decisions and plays
    illegally if anyone was waiting. The waiter is stopped before any other seat is asked, so the
    partner never finds it: every partner game is ok (the waiter's late line costs it its games)."""
    source = hostile_source("early_reply", ROLE="wait", WAIT_S=0.05)
    season = hostile_season(tmp_path, source, games=4, bosses="random,greedy",
                            partner=hostile_source("early_reply", ROLE="wake"))
    assert [seats["partner"][0] for seats in season["seats"].values()] == ["ok"] * 4
    assert set(hostile_statuses(season)) == {"protocol"}


def test_no_process_of_its_sandbox_is_in_reach_at_a_real_table(tmp_path: Path) -> None:
    """proc_mem: at every decision the hostile bot opens the memory of any other process its /proc
    shows (code planted there would run without a seccomp filter) and plays illegally if it could.
    Every game is ok: it reaches nothing, with uid slots as in a user namespace."""
    season = hostile_season(tmp_path, (HOSTILE / "proc_mem.py").read_text(), games=4)
    assert hostile_statuses(season) == ["ok"] * 4


def test_a_bot_leaves_nothing_for_the_next_game_at_a_real_table(tmp_path: Path) -> None:
    """fork_server_tamper: at every decision the hostile bot tries to leave something in /dev, on the
    host's device nodes or in its fork server's limits, reads machine-wide counters and grows pipes,
    and plays illegally if anything worked or an earlier game left a trace. Every game is ok."""
    season = hostile_season(tmp_path, (HOSTILE / "fork_server_tamper.py").read_text(), games=6)
    assert hostile_statuses(season) == ["ok"] * 6


def test_a_memoriser_remembers_nothing_across_seat_rotations(tmp_path: Path) -> None:
    """4 seats, seat-rotated deals: every deal is played 4 times in a row by the same bots. The
    memoriser plays illegally in any game where it finds a memory of an earlier one."""
    season = hostile_season(tmp_path, (HOSTILE / "memoriser.py").read_text(), games=8)
    assert hostile_statuses(season) == ["ok"] * 8


def test_two_colluding_bots_find_no_channel_between_their_sandboxes(tmp_path: Path) -> None:
    """Sender and receiver at every table (with two bosses): locks and watches on the files every
    sandbox binds, IPC objects, files in /tmp and /dev/shm. The receiver must read nothing."""
    season = hostile_season(tmp_path, hostile_source("covert_channel", ROLE="receive"), bosses="random,greedy",
                            partner=hostile_source("covert_channel", ROLE="send"))
    assert set(hostile_statuses(season)) == {"ok"}
    assert all("partner" in seats for seats in season["seats"].values())
