"""Secrets stay secret everywhere: no command, page or JSON shows a deck seed of a season still open, nor a
game of a solo season before `arena season close` (every bot of the season plays the same deals: a bot
entered later that knew them would know its supply); once closed, each game shows its own seed and
nothing else does. A real season in the strong sandbox, the real `arena` command."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import sqlite3
from pathlib import Path

import pytest
from arena.submissions.accounts import ensure_author
from arena_helpers import db_url, run_arena
from sqlmodel import Session

from arena.db import Meta, make_engine
from arena.ladder.random_seeds import KEY_NAME, database_key, keyed
from arena.submissions.versions import register
from engine import new_game, rules_for
from engine.replay import Replay
from sandbox import Tier, detect_tier

READER = Path(__file__).resolve().parents[1] / "sandbox" / "hostile" / "deal_reader.py"
STRONG = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG:
    raise RuntimeError("CI without the strong sandbox tier: the hostile ladder must run there, never be skipped")
pytestmark = pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")


def fixed_key(db: Path) -> None:
    """A fixed database secret, so that the deals (and every figure of the test) are the same each run."""
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        session.add(Meta(key=KEY_NAME, value="5e" * 32))
        session.commit()
    engine.dispose()


def season_games(db: Path) -> dict[int, int]:
    """Match id -> deck seed of every played game of season 's', read from the database."""
    with sqlite3.connect(db) as con:
        return dict(con.execute("SELECT match.id, match.seed FROM match JOIN season ON match.season_id = season.id "
                                "WHERE season.name = 's' AND match.status != 'planned'").fetchall())


def everything_shown(db: Path, out: Path, games: dict[int, int]) -> tuple[dict[str, str], dict[str, int]]:
    """What the arena shows of the ladder (each command's output, every file of a fresh site build), and
    each command's exit status."""
    runs = {"season show": run_arena("season", "show", "s", db=db),
            "leaderboard --json": run_arena("leaderboard", "--variant", "solo", "--json", db=db),
            "bots": run_arena("bots", db=db),
            "site build": run_arena("site", "build", "--out", str(out), "--variant", "solo", db=db)}
    for match_id in games:
        runs[f"game show {match_id} --turns"] = run_arena("game", "show", str(match_id), "--turns", db=db)
        runs[f"game show {match_id} --step 1"] = run_arena("game", "show", str(match_id), "--step", "1", db=db)
    texts = {what: result.stdout + result.stderr for what, result in runs.items()}
    assert "Traceback" not in "".join(texts.values())
    assert runs["site build"].returncode == 0, texts["site build"]
    texts |= {f"site {path.relative_to(out)}": path.read_text(encoding="utf-8", errors="replace")
              for path in out.rglob("*") if path.is_file()}
    return texts, {what: result.returncode for what, result in runs.items()}


def leaks(texts: dict[str, str], seeds: set[int]) -> list[tuple[str, int]]:
    return [(what, seed) for what, text in texts.items() for seed in seeds if str(seed) in text]


def test_an_open_solo_seasons_deals_are_shown_nowhere_and_a_late_bot_cannot_read_them(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    fixed_key(db)
    played = run_arena("season", "run", "--name", "s", "--variant", "solo", "--games", "3", "--seed", "8",
                       "--bosses", "random,greedy", "--workers", "2", db=db, timeout=900)
    assert played.returncode == 0, played.stderr[-3000:]
    games = season_games(db)
    seeds = set(games.values())
    assert len(games) == 6 and len(seeds) == 3  # two bots, the same three deals
    assert not leaks({"season run": played.stdout + played.stderr}, seeds)

    shown, exits = everything_shown(db, tmp_path / "site-open", games)
    assert leaks(shown, seeds) == []
    assert "secret until 'arena season close s'" in shown["season show"]
    for match_id in games:  # refused in one line, the game not shown
        for what in (f"game show {match_id} --turns", f"game show {match_id} --step 1"):
            assert exits[what] == 2 and len(shown[what].splitlines()) == 1, shown[what]
            assert "secret until 'arena season close s'" in shown[what]
        assert not (tmp_path / "site-open" / "games" / f"{match_id}.html").exists()
    assert "Turn 1: " not in "".join(shown.values())

    # the attack: every number the arena printed becomes a candidate seed of a bot entered late
    candidates = sorted({int(n) for text in shown.values() for n in re.findall(r"\d{6,}", text)})
    source = READER.read_text(encoding="utf-8").replace("SEEDS: list[int] = []", f"SEEDS = {candidates!r}", 1)
    spec = importlib.util.spec_from_file_location("deal_reader", READER)
    assert spec is not None and spec.loader is not None
    reader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reader)
    solo = rules_for("solo")
    for seed in seeds:  # the bot would know a deal if it had its seed
        view = json.loads(json.dumps(new_game(solo, 1, seed).view_json(0)))  # as the bot reads it
        assert reader.dealt_by(solo, 1, 0, view, sorted(seeds)) == seed
        assert reader.dealt_by(solo, 1, 0, {**view, "vine": view["vine"][::-1]}, sorted(seeds)) is None
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        register(session, "reader", source, ensure_author(session, "mallory"), variants=("solo",))
    engine.dispose()
    resumed = run_arena("season", "run", "--name", "s", "--workers", "2", db=db, timeout=900)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    with sqlite3.connect(db) as con:
        statuses = [s for (s,) in con.execute(
            "SELECT matchseat.status FROM matchseat JOIN botversion ON matchseat.version_id = botversion.id "
            "JOIN bot ON botversion.bot_id = bot.id WHERE bot.name = 'reader'")]
    assert statuses == ["ok"] * 3  # "illegal": it knew a deal's supply

    # closed: the games are published (by match id and deal id), each with its deck seed beside it (the
    # season deals no more games), and no seed anywhere else
    closed = run_arena("season", "close", "s", db=db)
    assert closed.returncode == 0, closed.stderr
    games = season_games(db)
    assert len(games) == 9
    out = tmp_path / "site-closed"
    shown, exits = everything_shown(db, out, games)
    for what, seed in leaks(shown, seeds):
        own = re.fullmatch(r"game show (\d+) --(?:turns|step 1)|site games/(\d+)\.(?:html|replay\.json)", what)
        assert own is not None and games[int(own.group(1) or own.group(2))] == seed, (what, seed)
    for match_id, seed in games.items():
        assert f" deck seed {seed} " in shown[f"game show {match_id} --turns"].splitlines()[0]
        assert f"Deck seed <code>{seed}</code>" in shown[f"site games/{match_id}.html"]
        assert f'<a href="{match_id}.replay.json" download>' in shown[f"site games/{match_id}.html"]
        assert Replay.loads(shown[f"site games/{match_id}.replay.json"]).seed == seed
    # the published file plays again (`arena replay`), and its seed deals the same cards to any bot (the
    # bots' own seeds are fresh: greedy's guesses of hidden cards differ, so its play may)
    with sqlite3.connect(db) as con:
        greedy = [m for (m,) in con.execute(
            "SELECT matchseat.match_id FROM matchseat JOIN botversion ON matchseat.version_id = botversion.id "
            "JOIN bot ON botversion.bot_id = bot.id WHERE bot.name = 'greedy' ORDER BY matchseat.match_id")]
    assert len(greedy) == 3
    stored = Replay.loads((out / "games" / f"{greedy[0]}.replay.json").read_text(encoding="utf-8"))
    replayed = run_arena("replay", str(out / "games" / f"{greedy[0]}.replay.json"), "--turns", db=db)
    assert replayed.returncode == 0 and "Turn 1: " in replayed.stdout, replayed.stderr
    again = run_arena("play", "--variant", "solo", "greedy", "--deck-seed", str(stored.seed), "--in-process",
                      "--replay", str(tmp_path / "again.json"), db=db)
    assert again.returncode == 0, again.stderr
    dealt = json.loads((tmp_path / "again.json").read_text())
    events = json.loads((out / "games" / f"{greedy[0]}.replay.json").read_text(encoding="utf-8"))["events"]
    opening = next(i for i, event in enumerate(events) if event["type"] == "turn_started")
    assert dealt["seed"] == stored.seed and dealt["events"][:opening + 1] == events[:opening + 1]
    assert [event["type"] for event in events[:opening]] == ["vine_revealed"] * 4  # the deal: the vine's tasks
    both = run_arena("play", "--variant", "solo", "greedy", "--deck-seed", "1", "--seed", "1", db=db)
    assert both.returncode == 2 and both.stderr.strip().endswith(
        "--seed and --deck-seed both choose the deal: give one")
    # a new season with the same chosen seed is dealt other deals: this one's are public now
    reused = run_arena("season", "run", "--name", "t", "--variant", "solo", "--games", "3", "--seed", "8",
                       "--bosses", "greedy", db=db, timeout=900)
    assert reused.returncode == 0, reused.stderr[-3000:]
    with sqlite3.connect(db) as con:
        dealt = {seed for (seed,) in con.execute("SELECT match.seed FROM match "
                                                 "JOIN season ON match.season_id = season.id WHERE season.name = 't'")}
    assert len(dealt) == 3 and not dealt & seeds
    listed = shown["season show"].splitlines()
    for match_id in games:
        assert exits[f"game show {match_id} --turns"] == exits[f"game show {match_id} --step 1"] == 0
        assert "Turn 1: " in shown[f"game show {match_id} --turns"]
        assert (tmp_path / "site-closed" / "games" / f"{match_id}.html").is_file()
        assert any(line.split()[:1] == [str(match_id)] for line in listed), listed
    deal_of = {match_id: re.search(r"deal ([0-9a-f]{12})", shown[f"game show {match_id} --turns"])
               for match_id in games}
    deals = {match_id: m.group(1) for match_id, m in deal_of.items() if m}
    assert len(deals) == 9 and len(set(deals.values())) == 3  # one deal id per deal, shared by its games
    assert all((deals[a] == deals[b]) == (games[a] == games[b]) for a in games for b in games)


def test_the_seed_play_prints_plays_the_same_game_again(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    fixed_key(db)
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        register(session, "mine", (Path(__file__).resolve().parents[2] / "bots" / "greedy_bot.py").read_text(),
                 ensure_author(session, "ann"), variants=("solo",))
        deck = keyed(database_key(session), "play", 42)
    engine.dispose()
    first = run_arena("play", "--variant", "solo", "mine", "--seed", "42", "--json", "--replay",
                      str(tmp_path / "a.json"), db=db)
    assert first.returncode == 0, first.stderr
    printed = json.loads(first.stdout)["seed"]
    assert printed == 42
    again = run_arena("play", "--variant", "solo", "mine", "--seed", str(printed), "--replay",
                      str(tmp_path / "b.json"), db=db)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0].split()[:3] == ["solo-v1", "seed", "42"]
    a, b = (Replay.loads((tmp_path / name).read_text()) for name in ("a.json", "b.json"))
    assert a.actions == b.actions and a.events == b.events and a.seed == b.seed == deck
    assert str(deck) not in first.stdout + first.stderr + again.stdout + again.stderr
    unseeded = run_arena("play", "--variant", "solo", "mine", "--json", db=db)
    assert unseeded.returncode == 0, unseeded.stderr
    assert json.loads(unseeded.stdout)["seed"] is None  # nothing printed that would not replay it
    text = run_arena("play", "--variant", "solo", "mine", db=db)
    assert text.returncode == 0 and " seed " not in text.stdout.splitlines()[0], text.stdout
