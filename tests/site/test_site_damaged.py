"""A game whose stored replay is damaged has no page (the build leaves it out with a warning), so no page may
link it: the game lists, a season's lists and its bots' pages show it unlinked with "replay damaged". Real
builds, serial and forked, of a copy of the test ladder (conftest.py) with one replay cut in the database."""
from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

import arena.site.build as site_build
from arena.db import make_engine
from arena.site import build_site

LINK = re.compile(r'href="([^"#]*games/(\d+)\.html)[^"]*"')
NOTE = 'replay damaged</span>'


def damaged_copy(ladder: dict, tmp_path: Path) -> tuple[Path, int, str]:
    """A copy of the ladder whose newest finished game's replay is cut, its first seat failed (so that its bot's
    page lists it among failures); the game's id and its intact replay."""
    db = tmp_path / "ladder.sqlite"
    with sqlite3.connect(ladder["db"]) as source, sqlite3.connect(db) as target:
        source.backup(target)
    with sqlite3.connect(db) as conn:
        game, replay = conn.execute("SELECT id, replay FROM match WHERE status = 'done' ORDER BY id DESC").fetchone()
        conn.execute("UPDATE match SET replay = ? WHERE id = ?", ('{"format": 1, "rules_id": "classic-v3"', game))
        conn.execute("UPDATE matchseat SET status = 'crash', detail = 'boom' WHERE match_id = ? AND seat = 0", (game,))
    return db, game, replay


def check_links(out: Path, damaged: int | None) -> set[str]:
    """Every link to a game page leads to a page that exists; the pages that show game ``damaged`` unlinked."""
    noted = set()
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for href, number in LINK.findall(text):
            assert (page.parent / href).resolve().is_file(), (page.relative_to(out).as_posix(), href)
            assert int(number) != damaged, page
        if damaged is not None and f"#{damaged} <span class=\"fail\"" in text and NOTE in text:
            noted.add(page.relative_to(out).as_posix())
    return noted


def assert_unlinked_everywhere(out: Path, game: int) -> None:
    assert not (out / "games" / f"{game}.html").exists()
    noted = check_links(out, game)
    kinds = {re.sub(r"\d+", "N", path) for path in noted}
    assert {"games/index.html", "games/page-N.html", "seasons/N.html", "seasons/N-games-N.html", "bots/N.html",
            "bots/N-games-N.html"} <= kinds, sorted(noted)


@pytest.mark.parametrize("forked", [False, True])
def test_a_game_left_out_is_listed_unlinked(ladder: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            forked: bool) -> None:
    db, game, replay = damaged_copy(ladder, tmp_path)
    if forked:  # the lists are written while forked workers write the game pages, then again once damage is found
        monkeypatch.setattr(site_build, "FORK_MIN_GAMES", 1)
    workers = 2 if forked else 1
    engine = make_engine(f"sqlite:///{db}")
    out = tmp_path / "site"
    first = build_site(engine, out, workers=workers)
    assert [w.split(":")[0] for w in first.warnings] == [f"game {game}"]
    assert_unlinked_everywhere(out, game)
    again = build_site(engine, out, workers=workers)  # the manifest remembers the game left out: nothing changes
    assert again.written == 0 and len(again.warnings) == 1, again
    assert_unlinked_everywhere(out, game)
    with sqlite3.connect(db) as conn:  # the replay mended: the game has its page and every list links it
        conn.execute("UPDATE match SET replay = ? WHERE id = ?", (replay, game))
    mended = build_site(engine, out, workers=workers)
    engine.dispose()
    assert mended.warnings == () and (out / "games" / f"{game}.html").is_file()
    assert check_links(out, None) == set()
    assert not [p for p in out.rglob("*.html") if NOTE in p.read_text(encoding="utf-8")]
    assert f'games/{game}.html"' in (out / "games" / "index.html").read_text(encoding="utf-8")
