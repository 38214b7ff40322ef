"""A bot that makes its failure read like an official note (tests/sandbox/hostile/forged_note.py): its forged
text, written as an action's type, a bean, a field's name, a reply id or its answer to hello, reaches the
seat's failure detail only as a short quote after the referee's own words: in the database, in `arena game
show` and on the site's game and bot pages. A real sandboxed season on SQLite, the real commands."""
from __future__ import annotations

import html
import os
import sqlite3
from pathlib import Path

import pytest
from arena_helpers import fix_seed_key, run_arena
from sqlmodel import Session

from arena.submissions.accounts import ensure_author
from arena.db import make_engine
from arena.submissions.versions import register
from engine.quoting import QUOTE
from sandbox import Tier, detect_tier

HOSTILE = Path(__file__).resolve().parents[1] / "sandbox" / "hostile"
STRONG = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG:
    raise RuntimeError("CI without the strong sandbox tier: the forged notes must be played there")
pytestmark = pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")

SOURCE = (HOSTILE / "forged_note.py").read_text(encoding="utf-8")
NOTE = "Referee note: seat1 was disqualified"
#: each mode's bot, and the referee's words its detail must start with (naming the rule or field broken)
MODES = {"type": "its action could not be read: unknown action type ",
         "bean": "its action could not be read: action ",
         "field": "its action could not be read: action ",
         "id": "its reply is malformed: action reply field 'id' must be an integer, got ",
         "hello": "expected a ready reply to hello, got "}
NAMES = {mode: f"forger_{mode}" for mode in MODES}


def source(mode: str) -> str:
    text = SOURCE.replace('\nMODE = "type"\n', f"\nMODE = {mode!r}\n", 1)
    assert f"\nMODE = {mode!r}\n" in text
    return text


def full_note() -> str:
    namespace: dict[str, object] = {}
    exec(compile(SOURCE, "forged_note.py", "exec"), namespace)
    note = namespace["NOTE"]
    assert isinstance(note, str) and len(note) > 300
    return note


def assert_quoted_briefly(detail: str, referee_words: str, where: str) -> None:
    """The referee's words first; the forged note only inside quotes, clipped, never more than QUOTE characters."""
    assert detail.startswith(referee_words), (where, detail)
    at = detail.index("Referee note")
    assert at >= len(referee_words) and detail[at - 1] in "'\"", (where, detail)
    note = full_note()
    longest = max(n for n in range(len(note) + 1) if any(note[k:k + n] in detail for k in range(len(note) - n + 1)))
    assert 12 <= longest <= QUOTE, (where, longest, detail)
    assert "\N{HORIZONTAL ELLIPSIS}" in detail[at:], (where, detail)  # the clip shows


def assert_every_note_quoted(text: str, where: str) -> None:
    """Wherever the forged note shows in ``text``, it opens a quote, and no more than QUOTE characters of it follow."""
    found = 0
    at = text.find("Referee note")
    while at >= 0:
        found += 1
        assert text[at - 1] in "'\"", (where, text[max(0, at - 200):at + 100])
        at = text.find("Referee note", at + 1)
    assert found >= 1, where
    assert full_note()[:QUOTE + 1] not in text, where


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str], int, dict[str, int]]:
    """One game of the five forgers (their own sandboxes, the strong tier), the site built after it:
    (database, site, each mode's stored detail, the game's id, each forger's bot id)."""
    folder = tmp_path_factory.mktemp("forged")
    db = folder / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        for mode, name in NAMES.items():
            register(session, name, source(mode), ensure_author(session, f"author_{mode}"))
    engine.dispose()
    fix_seed_key(db)
    result = run_arena("season", "run", "--name", "forged", "--games", "1", "--players", "5", "--no-rotate",
                       "--seed", "3", "--workers", "1", db=db, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT bot.name, bot.id, matchseat.match_id, matchseat.status, matchseat.detail "
                           "FROM matchseat JOIN botversion ON matchseat.version_id = botversion.id "
                           "JOIN bot ON botversion.bot_id = bot.id").fetchall()
    by_name = {name: (bot_id, match_id, status, detail) for name, bot_id, match_id, status, detail in rows}
    assert set(by_name) == set(NAMES.values()), by_name
    assert {match_id for _, match_id, _, _ in by_name.values()} == {rows[0][2]}  # one game, every bot in it
    assert all(by_name[name][2] == "protocol" for name in NAMES.values()), by_name
    site = folder / "site"
    built = run_arena("site", "build", "--out", str(site), db=db)
    assert built.returncode == 0, built.stderr
    return (db, site, {mode: by_name[name][3] for mode, name in NAMES.items()}, rows[0][2],
            {mode: by_name[name][0] for mode, name in NAMES.items()})


@pytest.mark.parametrize("mode", list(MODES))
def test_the_stored_detail_quotes_the_forged_note_briefly_after_the_referees_words(played, mode: str) -> None:
    assert_quoted_briefly(played[2][mode], MODES[mode], f"stored detail of {mode}")


def test_the_field_and_bean_details_name_what_was_wrong(played) -> None:
    details = played[2]
    assert details["bean"].startswith("its action could not be read: action 'offer': field 'want': unknown bean ")
    assert details["field"].startswith("its action could not be read: action 'pass' has unknown fields ")
    assert "(known: plant," in details["type"]  # the referee's list of action types follows the quote


def test_game_show_prints_each_detail_as_stored(played) -> None:
    db, _, details, game, _ = played
    shown = run_arena("game", "show", str(game), db=db)
    assert shown.returncode == 0, shown.stderr
    for mode, detail in details.items():
        assert detail in shown.stdout, (mode, shown.stdout[-3000:])
    lines = [line for line in shown.stdout.splitlines() if "Referee note" in line]
    assert len(lines) == 2 * len(MODES), shown.stdout  # each seat's row, and its failure
    for line in lines:
        first = line.index("Referee note")
        assert any(0 <= line.find(words) < first for words in MODES.values()), line  # the referee's words first
    assert_every_note_quoted(shown.stdout, "game show")


def test_the_game_and_bot_pages_show_the_detail_clipped_and_quoted(played) -> None:
    _, site, details, game, bot_ids = played
    game_page = html.unescape((site / "games" / f"{game}.html").read_text(encoding="utf-8"))
    for mode, detail in details.items():
        assert detail in game_page, mode
        bot_page = html.unescape((site / "bots" / f"{bot_ids[mode]}.html").read_text(encoding="utf-8"))
        assert f"<code>{detail}</code>" in bot_page, (mode, bot_page[-2000:])
        assert_every_note_quoted(game_page, "game page")
        assert_every_note_quoted(bot_page, f"{mode}'s page")
