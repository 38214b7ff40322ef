"""A version is ranked on a TrueSkill board only after ``RANKED_AFTER`` rated games; before that it is listed,
"new", below the ranked ones.

The lever (an attacker review): an author enters the same code under several names; copies never share a
table, so each is a lottery ticket, and one that wins its first four five-player games gets a higher score
(mu - 3 sigma) than bots proven over many games, and would top the board. The first test plays that out with
the real TrueSkill on a real SQLite ladder; the second runs real seasons with sandboxed bots and reads the board
from the command line and the built site."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from arena_helpers import run_arena
from sqlmodel import Session, select

from arena.submissions.accounts import ensure_author
from arena.db import BotVersion, Rating, make_engine, stored_id
from arena.ladder.rankings import RANKED_AFTER, RatedStanding, TrueSkill, starting_skills
from arena.ladder.ratings import RatingBook
from arena.submissions.versions import register, register_bosses
from sandbox import Tier, detect_tier

PROJECT = Path(__file__).resolve().parents[2]
STRONG = detect_tier() is Tier.STRONG
PROVEN = ("ash", "birch", "cedar", "elm", "fir")  # five authors' bots with many games each
LUCKY = "lucky"


def _store(session: Session, book: RatingBook) -> None:
    for version_id, skill in book.skills.items():
        rating = session.get(Rating, (version_id, "classic")) or Rating(version_id=version_id, variant="classic",
                                                                        mu=0, sigma=0)
        rating.mu, rating.sigma, rating.games = skill.mu, skill.sigma, skill.games
        session.add(rating)
    session.commit()


def _board(session: Session) -> list[RatedStanding]:
    return TrueSkill().standings(session, "classic")


def test_four_lucky_first_games_top_no_board(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    source = (PROJECT / "bots" / "greedy_bot.py").read_text(encoding="utf-8")
    with Session(engine) as session:
        for name in (*PROVEN, LUCKY):
            register(session, name, source, ensure_author(session, f"author-{name}"))
        version = {v.bot_id: stored_id(v) for v in session.exec(select(BotVersion)).all()}
        ids = {name: version[i + 1] for i, name in enumerate((*PROVEN, LUCKY))}
        book = RatingBook(starting_skills(session, "classic"))
        rng = random.Random(7)
        proven = [ids[name] for name in PROVEN]
        for _ in range(60):  # the proven bots: even, so their scores settle near one another
            book.record(proven, rng.sample(range(1, 6), 5))
        for _ in range(4):  # a copy's four lucky first games: first at five-player tables of proven bots
            table = [ids[LUCKY], *rng.sample(proven, 4)]
            book.record(table, [1, *rng.sample(range(2, 6), 4)])
        _store(session, book)
        board = _board(session)
        lucky = next(r for r in board if r.name == LUCKY)
        assert lucky.games == 4 and all(lucky.score > r.score for r in board if r.name != LUCKY)  # the lever
        assert lucky.provisional and lucky.rank is None and board[-1] is lucky  # listed last, not ranked
        assert [r.rank for r in board[:-1]] == [1, 2, 3, 4, 5] and not any(r.provisional for r in board[:-1])
    engine.dispose()

    shown = run_arena("leaderboard", db=db)
    assert shown.returncode == 0, shown.stderr
    rows = shown.stdout.splitlines()
    assert re.match(rf"new\s+{LUCKY}\s", rows[-2]), shown.stdout  # its row last, then the note
    assert rows[-1].startswith(f"new: fewer than {RANKED_AFTER} rated games"), shown.stdout
    listed = json.loads(run_arena("leaderboard", "--json", db=db).stdout)
    assert [(r["name"], r["rank"], r["provisional"]) for r in listed][-1] == (LUCKY, None, True)
    assert all(r["rank"] is not None and not r["provisional"] for r in listed[:-1])

    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:  # its next games are ordinary: once it has RANKED_AFTER, it is ranked
        for _ in range(RANKED_AFTER - 5):
            book.record([ids[LUCKY], *rng.sample(proven, 4)], rng.sample(range(1, 6), 5))
        _store(session, book)
        assert next(r for r in _board(session) if r.name == LUCKY).provisional  # 9 games
        book.record([ids[LUCKY], *rng.sample(proven, 4)], rng.sample(range(1, 6), 5))
        _store(session, book)
        board = _board(session)
        assert sorted(r.rank or 0 for r in board) == [1, 2, 3, 4, 5, 6] and not any(r.provisional for r in board)
    engine.dispose()


@pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")
def test_a_short_season_lists_every_bot_new_and_a_longer_one_ranks_them(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register_bosses(session, ["random", "greedy", "trader"])
    engine.dispose()
    site = tmp_path / "site"
    played = run_arena("season", "run", "--name", "s", "--games", "4", "--players", "3", "--seed", "1", db=db,
                       timeout=600)
    assert played.returncode == 0, played.stderr[-2000:]
    listed = json.loads(run_arena("leaderboard", "--json", db=db).stdout)
    assert all(0 < r["games"] < RANKED_AFTER and r["provisional"] and r["rank"] is None for r in listed), listed
    assert run_arena("site", "build", "--out", str(site), db=db).returncode == 0
    page = (site / "index.html").read_text(encoding="utf-8")
    assert page.count('class="muted provisional"') == 3 and f"fewer than {RANKED_AFTER} rated games" in page
    board = json.loads((site / "leaderboard.json").read_text(encoding="utf-8"))["rows"]
    assert [r["provisional"] for r in board] == [True, True, True]

    played = run_arena("season", "run", "--name", "s", "--games", str(RANKED_AFTER + 2), "--players", "3", db=db,
                       timeout=600)  # the same season, longer: every bot is at every table of three
    assert played.returncode == 0, played.stderr[-2000:]
    listed = json.loads(run_arena("leaderboard", "--json", db=db).stdout)
    assert sorted(r["rank"] for r in listed) == [1, 2, 3] and not any(r["provisional"] for r in listed), listed
    assert run_arena("site", "build", "--out", str(site), db=db).returncode == 0
    assert 'class="muted provisional"' not in (site / "index.html").read_text(encoding="utf-8")
