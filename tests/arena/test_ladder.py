"""The ladder for real: a SQLite file, sandboxed seasons in a process pool, kills and resumes."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from arena.submissions.accounts import ensure_author
from arena.db import (
    Bot, BotVersion, Match, MatchSeat, Rating, RatingSnapshot, make_engine, prior_means, stored_id,
)
from arena.ladder.seasons import leaderboard, rerate
from arena.ladder.planning import Planner, SeasonSettings, get_or_create_season
from arena.ladder.rankings import RatedStanding, WinRateStanding
from arena.ladder.ratings import RatingBook, Skill
from arena.submissions.versions import register, register_bosses
from arena_helpers import ARENA, add_authors, fix_seed_key, kill_mid_season, present, run_arena

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def registered_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder with random, greedy and a renamed copy of greedy, entered through `arena submit`."""
    folder = tmp_path_factory.mktemp("registered")
    db = folder / "ladder.sqlite"
    copy = folder / "copycat.py"
    copy.write_text((PROJECT / "bots" / "greedy_bot.py").read_text().replace("class GreedyBot", "class CopycatBot"))
    for path, name in ((PROJECT / "bots" / "random_bot.py", "dice"), (PROJECT / "bots" / "greedy_bot.py", "glutton"),
                       (copy, "copycat")):  # built-in names are reserved for the bosses
        add_authors(db, f"tests {path.stem}")
        result = run_arena("submit", str(path), "--name", name, "--author", f"tests {path.stem}", db=db)
        assert result.returncode == 0, result.stderr
    fix_seed_key(db)  # the tests' seasons play the same deals every run (dice ranks last on them)
    return db


def copy_ladder(db: Path, folder: Path) -> Path:
    """A private copy of the ladder ``db`` in ``folder`` (a copy of the file: the fixtures are shared)."""
    copy = folder / "ladder.sqlite"
    with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    (folder / "copycat.py").write_text((db.parent / "copycat.py").read_text())
    return copy


@pytest.fixture
def ladder(registered_db: Path, tmp_path: Path) -> Path:
    """A private copy of the registered ladder."""
    return copy_ladder(registered_db, tmp_path)


@pytest.fixture(scope="module")
def rated(registered_db: Path,
          tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The registered ladder after one real season of 12 games (seed 5), and that run: shared by the
    tests that read it or build on a copy."""
    db = copy_ladder(registered_db, tmp_path_factory.mktemp("rated"))
    return db, run_arena("season", "run", "--name", "s1", "--games", "12", "--players", "3", "--seed", "5", db=db)


def table_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("bot", "botversion", "match", "matchseat", "ratingsnapshot")}


def test_season_rates_every_game_and_rerate_agrees(rated: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    db, result = rated
    assert result.returncode == 0, result.stderr
    assert "12/12 games" in result.stderr
    board = json.loads(run_arena("leaderboard", "--json", db=db).stdout)
    assert {row["name"] for row in board} == {"dice", "glutton", "copycat"}
    for row in board:
        assert set(row) >= {"name", "version", "score", "mu", "sigma", "games"}
        assert row["games"] == 12  # three bots, three seats: everybody plays every game
        assert row["score"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=1e-3)
    assert board[-1]["name"] == "dice"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        assert rerate(session, "classic", write=False) == []
        done = session.exec(select(Match).where(Match.status == "done")).all()
        assert len(done) == 12
        assert sorted(present(m.rated_order) for m in done) == list(range(1, 13))
        for match in done:
            seats = session.exec(select(MatchSeat).where(MatchSeat.match_id == match.id)).all()
            assert sorted(present(s.rank) for s in seats)[0] == 1 and all(s.status == "ok" for s in seats)
            snaps = session.exec(select(RatingSnapshot).where(RatingSnapshot.match_id == match.id)).all()
            assert len(snaps) == len(seats) == 3


def test_standing_json_has_the_keys_of_the_printed_and_published_boards(tmp_path: Path) -> None:
    """``to_json()`` of each kind of row (TrueSkill and win rate) gives the keys, in order, that
    `arena leaderboard --json` prints and the site's leaderboard JSON publishes (before the site's own)."""
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register(session, "mine", (PROJECT / "bots" / "greedy_bot.py").read_text(), ensure_author(session, "tests"),
                 variants=("classic", "duel", "solo"))
        register_bosses(session, ["random"])
        boards = {variant: leaderboard(session, variant) for variant in ("classic", "duel", "solo")}
    engine.dispose()
    rated = ["name", "author", "builtin", "version", "version_id", "score", "mu", "sigma", "games", "rank",
             "provisional", "not_counted"]
    counted = ["name", "author", "builtin", "version", "version_id", "season", "games", "wins", "win_rate",
               "ci_low", "ci_high", "avg_gold", "gold_low", "gold_high", "rank", "half"]
    figures = ["win_rate", "avg_coins", "failure_rate", "played", "bot_id", "page"]  # the site's own, after the row's
    kinds = {"classic": (RatedStanding, rated, figures), "duel": (RatedStanding, rated, figures),
             "solo": (WinRateStanding, counted, ["bot_id", "page"])}
    site = tmp_path / "site"
    result = run_arena("site", "build", "--out", str(site), db=db)
    assert result.returncode == 0, result.stderr
    for variant, (kind, keys, extra) in kinds.items():
        rows = boards[variant]
        assert [type(r) for r in rows] == [kind, kind] and [r.rank for r in rows] == [None, None]  # no games yet
        assert [list(r.to_json()) for r in rows] == [keys, keys]
        printed = json.loads(run_arena("leaderboard", "--variant", variant, "--json", db=db).stdout)
        assert [list(r) for r in printed] == [keys, keys] and printed == [r.to_json() for r in rows]
        published = json.loads((site / f"leaderboard-{variant}.json").read_text())["rows"]
        assert [list(r) for r in published] == [keys + extra] * 2
        assert [{k: r[k] for k in keys} for r in published] == [r.to_json() for r in rows]
    index = json.loads((site / "leaderboard.json").read_text())["rows"]  # the classic board, in the site's key order
    assert [set(r) for r in index] == [set(rated + figures) - {"played"}] * 2
    assert [{k: r[k] for k in rated} for r in index] == [r.to_json() for r in boards["classic"]]


def test_killed_season_loses_nothing_and_resumes(ladder: Path) -> None:
    db = ladder
    games = 40  # enough that the season is still running when it is killed, even on a loaded machine (at a load
    # of 13 on 2 cores the second writer took as long as 12 games: 18 were done of 30)
    _, second = kill_mid_season(db, ["--name", "crash", "--games", str(games), "--players", "3", "--seed", "9"],
                                ["season", "run", "--name", "crash", "--games", str(games)])
    assert second.returncode == 1
    assert "refused" in second.stderr and "in use" in second.stderr and "Traceback" not in second.stderr

    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        done_before = session.exec(select(Match).where(Match.status == "done")).all()
        assert len(done_before) >= 4
        assert rerate(session, "classic", write=False) == []  # ratings match a recomputation after the kill
    resumed = run_arena("season", "run", "--name", "crash", db=db)
    assert resumed.returncode == 0, resumed.stderr
    with Session(engine) as session:
        matches = session.exec(select(Match).where(Match.season_id == done_before[0].season_id)).all()
        assert len(matches) == games
        assert all(m.status == "done" for m in matches)
        assert sorted(m.number for m in matches) == list(range(games))
        orders = [present(m.rated_order) for m in matches]
        assert sorted(orders) == list(range(1, games + 1))  # every game recorded exactly once
        snapshots = session.exec(select(RatingSnapshot)).all()
        assert len(snapshots) == 3 * games
        assert rerate(session, "classic", write=False) == []
        for m in done_before:  # what was recorded before the kill is untouched
            again = present(session.get(Match, m.id))
            assert again.replay == m.replay and again.rated_order == m.rated_order


def test_new_version_keeps_mean_and_resets_uncertainty(rated: tuple[Path, subprocess.CompletedProcess[str]],
                                                      tmp_path: Path) -> None:
    db = copy_ladder(rated[0], tmp_path)  # after a season: copycat has a rating of its own
    assert rated[1].returncode == 0
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        bot = session.exec(select(Bot).where(Bot.name == "copycat")).one()
        old = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)).one()
        old_rating = present(session.get(Rating, (old.id, "classic")))
        assert old_rating.sigma < 8.0
    changed = tmp_path / "copycat.py"
    changed.write_text(changed.read_text() + "\n# version two\n")
    result = run_arena("submit", str(changed), "--author", "tests copycat", db=db)  # its owner's account
    assert result.returncode == 0, result.stderr
    assert "copycat version 2 registered" in result.stdout
    with Session(engine) as session:
        versions = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)
                                .order_by(col(BotVersion.number))).all()
        assert [v.active for v in versions] == [False, True]
        assert prior_means(session, "classic")[stored_id(versions[1])] == old_rating.mu
        assert versions[1].prior_sigma == pytest.approx(25 / 3)
    board = json.loads(run_arena("leaderboard", "--json", db=db).stdout)
    row = next(r for r in board if r["name"] == "copycat")
    assert row["version"] == 2 and row["games"] == 0 and row["mu"] == pytest.approx(old_rating.mu, abs=1e-3)


@pytest.mark.parametrize("content, reason", [
    (b"def act(message:\n", "syntax error at line 1"),
    (b"x = 1\n", "has no entry point"),
    (b"# " + b"x" * (300 * 1024) + b"\ndef act(m):\n    pass\n", "the limit is 262144"),
    (b"# caf\xe9\ndef act(m):\n    pass\n", "is not UTF-8 text"),
    (b"from sandbox.sdk import Bot\nclass Boom(Bot):\n"
     b"    def plant_first(self, request):\n        raise ValueError('no')\n",
     "failed its smoke game with status 'crash'"),
    (b"import os\nos._exit(3)\ndef act(m):\n    pass\n", "failed its smoke game with status 'crash'"),
], ids=["syntax", "no-entry-point", "oversize", "not-utf8", "crash-in-game", "exit-at-import"])
def test_bad_submissions_are_refused_and_store_nothing(ladder: Path, tmp_path: Path, content: bytes,
                                                       reason: str) -> None:
    db = ladder
    before = table_counts(db)
    bad = tmp_path / "bad_bot.py"
    bad.write_bytes(content)
    result = run_arena("submit", str(bad), db=db)
    assert result.returncode == 2
    *evidence, last = result.stderr.strip().splitlines()
    assert last.startswith("Error: ") and reason in last, result.stderr  # one line says why it was refused
    if "smoke game" in reason:  # before it, each format's failed seat's evidence: its own output, every line marked
        heads = [line for line in evidence if not line.startswith("  ")]
        assert [h.split(": seat ")[0] for h in heads] == ["in classic", "in duel", "in solo"], evidence
        assert evidence[0] == heads[0]
    else:
        assert evidence == []
    assert "Traceback" not in "\n".join(line for line in result.stderr.splitlines() if not line.startswith("  | "))
    assert table_counts(db) == before


def test_bosses_join_a_season_marked_and_keep_their_names(db: Path, tmp_path: Path) -> None:
    refused = run_arena("season", "run", "--name", "bosses", "--bosses", "random,nope", db=db)
    assert refused.returncode == 2 and "no built-in bot 'nope'" in refused.stderr, refused.stderr
    assert set(table_counts(db).values()) == {0}  # checked before anything is entered
    result = run_arena("season", "run", "--name", "bosses", "--games", "3", "--players", "3",
                       "--bosses", "random,greedy,trader", db=db)
    assert result.returncode == 0, result.stderr
    assert all(f"{name} (boss)" in result.stdout for name in ("random", "greedy", "trader")), result.stdout
    board = json.loads(run_arena("leaderboard", "--json", db=db).stdout)
    assert sorted((r["name"], r["builtin"], r["games"]) for r in board) == [
        ("greedy", True, 3), ("random", True, 3), ("trader", True, 3)]
    before = table_counts(db)
    mine = tmp_path / "greedy.py"
    mine.write_text((PROJECT / "bots" / "greedy_bot.py").read_text() + "\n# my own greedy\n")
    refused = run_arena("submit", str(mine), db=db)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "'greedy' is reserved" in refused.stderr
    assert table_counts(db) == before
    # a boss's name is reserved before the boss is entered (a squatter stored by an older arena:
    # test_hostile_text.py)
    other = tmp_path / "search.py"
    other.write_text((PROJECT / "bots" / "greedy_bot.py").read_text() + "\n# not the search bot\n")
    squat = run_arena("submit", str(other), db=db)
    assert squat.returncode == 2 and "'search' is reserved" in squat.stderr, squat.stderr
    assert table_counts(db) == before


def test_corrupt_arguments_get_one_clear_line(db: Path) -> None:
    for args, text in ((["season", "run", "--players", "five"], "--players wants N or N-M"),
                       (["season", "run", "--workers", "0"], "0 is not in the range"),
                       (["season", "show", "nope"], "no season named 'nope'"),
                       (["submit", "/no/such/file.py"], "no such file")):
        result = run_arena(*args, db=db)
        assert result.returncode == 2, (args, result.stderr)
        assert text in result.stderr and "Traceback" not in result.stderr


def test_bad_database_url_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run([*ARENA, "--db", "nosuchdb://x", "bots"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "nosuchdb://x" in result.stderr and "Traceback" not in result.stderr


def test_a_newcomer_on_an_old_ladder_does_not_take_every_table(db: Path) -> None:
    """Fairness counts this season's seats: veterans with 1,000 lifetime games and a settled newcomer
    share a new season's tables instead of the newcomer anchoring each one until it catches up."""
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        ids = [stored_id(register(session, f"bot{i}", f"# bot {i}\n").version) for i in range(8)]
        season = get_or_create_season(session, SeasonSettings(name="new", games=40, rotate=False, seed=3))
        skills = {v: Skill(20.0 + 2 * i, 1.0, 1000) for i, v in enumerate(ids[:-1])}
        skills[ids[-1]] = Skill(50.0, 1.0, 0)  # the newcomer: far above everyone already, no games yet
        book = RatingBook({})
        book.skills.update(skills)
        planner = Planner(session, season, book)
        tables = [planner.plan()[0] for _ in range(40)]
        seated = [set(session.exec(select(MatchSeat.version_id).where(MatchSeat.match_id == m.id)).all())
                  for m in tables]
    newcomer_tables = sum(ids[-1] in s for s in seated)
    assert newcomer_tables <= 20, newcomer_tables  # lifetime counts made it 40 of 40


def test_a_bot_file_in_the_working_folder_cannot_shadow_the_standard_library(tmp_path: Path) -> None:
    """`python -m arena` run where the user keeps bot files such as random.py still works."""
    startup = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"],
                             capture_output=True, text=True, cwd=tmp_path, timeout=60).stdout.split()
    candidates = ("secrets", "random", "tempfile", "json", "logging")  # imported by `arena` itself
    shadowed = next(name for name in candidates if name not in startup)
    (tmp_path / f"{shadowed}.py").write_text("raise SystemExit('shadowed the standard library')\n")
    result = subprocess.run([sys.executable, "-m", "arena", "--help"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=60)
    assert result.returncode == 0 and "Commands:" in result.stdout, (shadowed, result.stderr)
