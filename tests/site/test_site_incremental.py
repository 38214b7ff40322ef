"""The incremental site build (issue 28): a rebuild writes only what changed, real builds into real folders of
a copy of the test ladder (conftest.py)."""
from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sqlmodel import Session, col, select

from arena.db import Bot, make_engine
from arena.site import build_site
from arena.site.html import pages_of
from arena.site.folder import MARKER
from arena.site.manifest import NAME, builder_key

GAME_PAGE = re.compile(r"games/\d+\.html")


def copied(ladder: dict, tmp_path: Path) -> str:
    """A copy of the test ladder's database that a test may change."""
    db = tmp_path / "ladder.sqlite"
    with sqlite3.connect(ladder["db"]) as source, sqlite3.connect(db) as target:
        source.backup(target)
    return f"sqlite:///{db}"


def stamps(out: Path) -> dict[str, int]:
    """Every file of a site (but its manifest and marker) with its modification time in nanoseconds."""
    return {p.relative_to(out).as_posix(): p.stat().st_mtime_ns for p in out.rglob("*")
            if p.is_file() and p.name not in (NAME, MARKER)}


def changed(before: dict[str, int], after: dict[str, int]) -> set[str]:
    return {path for path, stamp in after.items() if before.get(path) != stamp}


def quoted(column: str) -> str:
    return f'"{column}"'  # "table" is a keyword


def one_more_game(url: str) -> tuple[int, list[int], int]:
    """A copy of the last classic game played, recorded as the ladder's newest game in its season; returns
    its id, its seats' bot ids and its season's id."""
    db = url.removeprefix("sqlite:///")
    with sqlite3.connect(db) as con:
        source, season = con.execute("SELECT m.id, m.season_id FROM match m JOIN season s ON s.id = m.season_id "
                                     "WHERE m.status = 'done' AND s.variant = 'classic' "
                                     "ORDER BY m.finished_at DESC LIMIT 1").fetchone()
        new = con.execute("SELECT max(id) + 1 FROM match").fetchone()[0]
        columns = [row[1] for row in con.execute("PRAGMA table_info(match)")]
        values = {c: quoted(c) for c in columns} | {
            "id": str(new), "number": "(SELECT max(number) + 1 FROM match)", "table": str(new),
            "rated_order": "(SELECT max(rated_order) + 1 FROM match)",
            "finished_at": "(SELECT datetime(max(finished_at), '+1 minute') FROM match)"}
        con.execute(f"INSERT INTO match ({', '.join(quoted(c) for c in columns)}) "
                    f"SELECT {', '.join(values[c] for c in columns)} FROM match WHERE id = ?", (source,))
        seats = [row[1] for row in con.execute("PRAGMA table_info(matchseat)") if row[1] != "id"]
        con.execute(f"INSERT INTO matchseat ({', '.join(seats)}) "
                    f"SELECT {', '.join(str(new) if c == 'match_id' else c for c in seats)} "
                    "FROM matchseat WHERE match_id = ?", (source,))
        bots = [row[0] for row in con.execute("SELECT v.bot_id FROM matchseat s JOIN botversion v "
                                              "ON v.id = s.version_id WHERE s.match_id = ?", (new,))]
    return new, bots, season


def test_a_rebuild_with_no_change_writes_no_file(ladder: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first build forks its workers (as a large ladder's does): what they wrote is in the manifest too."""
    monkeypatch.setattr("arena.site.build.FORK_MIN_GAMES", 0)
    engine = make_engine(copied(ladder, tmp_path))
    out = tmp_path / "site"
    first = build_site(engine, out, workers=2)
    before = stamps(out)
    marker = (out / MARKER).stat().st_mtime_ns
    assert first.written == len(before) and first.games > 30
    again = build_site(engine, out, workers=1)
    assert (again.written, again.removed, again.pages, again.games) == (0, 0, first.pages, first.games)
    assert stamps(out) == before and (out / MARKER).stat().st_mtime_ns == marker


def test_one_more_game_rewrites_its_page_its_lists_and_the_boards_only(ladder: dict, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.site.games as games
    from arena.site.replays import spectator_json as real

    url = copied(ladder, tmp_path)
    engine = make_engine(url)
    out = tmp_path / "site"
    build_site(engine, out, workers=1)
    before = stamps(out)
    new, bots, season = one_more_game(url)
    made: list[str] = []

    def recording(replay: str, names: list[str] | None = None) -> str:
        made.append(replay)
        return real(replay, names)

    monkeypatch.setattr(games, "spectator_json", recording)
    summary = build_site(engine, out, workers=1)
    after = stamps(out)
    rewritten = changed(before, after)
    assert len(made) == 1  # the new game's steps, and no other game's
    assert {p for p in rewritten if GAME_PAGE.fullmatch(p)} == {f"games/{new}.html"}
    expected = {"index.html", "classic.html", "leaderboard.json", "leaderboard-classic.json", "games/index.html",
                "games/page-1.html", "seasons/index.html", f"seasons/{season}.html", f"seasons/{season}-games-1.html",
                *(f"bots/{b}.html" for b in bots), *(f"bots/{b}-games-1.html" for b in bots)}
    with Session(engine) as session:  # a game of the flagged pair is one more that counts in no rating
        names = {b.name for b in session.exec(select(Bot).where(col(Bot.id).in_(bots))).all()}
    if {"dice", "merchant"} <= names:
        expected.add("audit.html")
    assert expected <= rewritten
    assert rewritten <= expected | {f"games/{new}.html"}
    assert summary.written == len(rewritten) and summary.removed == 0
    assert f"games/{new}.html" in (out / "games" / "index.html").read_text()


def test_with_short_pages_a_new_game_changes_the_last_list_pages_and_the_site_is_a_full_builds(
        ladder: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lists of 4 games a page: the new game rewrites the last page of each list it is in (and the one before
    when it starts a page); the older list pages are not even rendered; the folder is then byte for byte what a
    full build into an empty folder makes."""
    import arena.site.render as render

    monkeypatch.setattr("arena.site.build.GAMES_PER_PAGE", 4)
    monkeypatch.setattr("arena.site.build.BOT_GAMES_PER_PAGE", 4)
    url = copied(ladder, tmp_path)
    engine = make_engine(url)
    out = tmp_path / "site"
    build_site(engine, out, workers=1)
    before = stamps(out)
    lists = sorted(p for p in before if re.fullmatch(r"games/page-\d+\.html", p))
    assert len(lists) > 5
    new, bots, season = one_more_game(url)
    rendered: list[str] = []
    real = render.Renderer.write_keyed

    def recording(self: render.Renderer, relative: str, key: str, template: str, root: str, **context: Any) -> None:
        rendered.append(relative)
        real(self, relative, key, template, root, **context)

    monkeypatch.setattr(render.Renderer, "write_keyed", recording)
    build_site(engine, out, workers=1)
    rewritten = changed(before, stamps(out))
    count = sum(1 for g in (out / "games").glob("*.html") if g.name[:-5].isdigit())
    last = f"games/page-{-(-count // 4)}.html"
    assert {p for p in rewritten if p.startswith("games/page-")} <= {last, f"games/page-{-(-count // 4) - 1}.html"}
    assert last in rewritten and f"games/{new}.html" in (out / last).read_text()
    assert "games/page-1.html" not in rendered and len(rendered) < len(lists)
    full = tmp_path / "full"
    build_site(engine, full, workers=1)
    assert {p: (full / p).read_bytes() for p in stamps(full)} == {p: (out / p).read_bytes() for p in stamps(out)}


def test_a_new_builder_or_template_rebuilds_every_page(ladder: dict, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    engine = make_engine(copied(ladder, tmp_path))
    out = tmp_path / "site"
    build_site(engine, out, workers=1)
    before = stamps(out)
    monkeypatch.setattr("arena.site.manifest.BUILDER_VERSION", 10**6)
    summary = build_site(engine, out, workers=1)
    assert changed(before, stamps(out)) == set(before) and summary.written == len(before)
    monkeypatch.undo()
    site = tmp_path / "assets"  # the templates and static files, one template changed by a byte
    shutil.copytree(Path(__file__).resolve().parents[2] / "site", site)
    key = builder_key("steps")
    monkeypatch.setattr("arena.site.manifest.data_dir", lambda name: site)
    assert builder_key("steps") == key
    page = site / "templates" / "game.html"
    page.write_text(page.read_text() + " ")
    assert builder_key("steps") != key


def test_a_deleted_or_changed_file_is_written_again(ladder: dict, tmp_path: Path) -> None:
    engine = make_engine(copied(ladder, tmp_path))
    out = tmp_path / "site"
    build_site(engine, out, workers=1)
    game = next(p for p in sorted((out / "games").glob("*.html")) if GAME_PAGE.fullmatch(f"games/{p.name}"))
    texts = {p: p.read_bytes() for p in (game, out / "index.html", out / "static" / "style.css", out / "audit.html")}
    game.unlink()
    (out / "index.html").unlink()
    (out / "static" / "style.css").write_bytes(b"x" * len(texts[out / "static" / "style.css"]))  # same size
    (out / "audit.html").write_bytes(texts[out / "audit.html"][:100])  # as a killed writer might leave it
    summary = build_site(engine, out, workers=1)
    assert summary.written == 4
    assert {p: p.read_bytes() for p in texts} == texts


def test_a_damaged_manifest_means_a_full_build(ladder: dict, tmp_path: Path) -> None:
    engine = make_engine(copied(ladder, tmp_path))
    out = tmp_path / "site"
    first = build_site(engine, out, workers=1)
    texts = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name not in (NAME, MARKER)}
    (out / NAME).write_text('{"builder": "x", "files": {"index.html": [1')
    summary = build_site(engine, out, workers=1)
    assert summary.written == first.written == len(texts)
    assert {p: p.read_bytes() for p in texts} == texts
    assert set(json.loads((out / NAME).read_text())["files"]) == {p.relative_to(out).as_posix() for p in texts}


def test_stale_files_are_removed(ladder: dict, tmp_path: Path) -> None:
    url = copied(ladder, tmp_path)
    engine = make_engine(url)
    out = tmp_path / "site"
    build_site(engine, out, workers=1)
    (out / "bots" / "999999.html").write_text("stale")
    (out / ".index.html.tmp-123").write_text("left by a killed build")
    with sqlite3.connect(url.removeprefix("sqlite:///")) as con:  # a game gone: its page goes too
        gone = con.execute("SELECT max(id) FROM match WHERE status = 'done' AND season_id = "
                           "(SELECT id FROM season WHERE name = 'spring')").fetchone()[0]
        con.execute("DELETE FROM matchseat WHERE match_id = ?", (gone,))
        con.execute("DELETE FROM ratingsnapshot WHERE match_id = ?", (gone,))
        con.execute("DELETE FROM match WHERE id = ?", (gone,))
    assert (out / "games" / f"{gone}.html").is_file()
    summary = build_site(engine, out, workers=1)
    assert summary.removed == 3
    assert not any((out / p).exists() for p in ("bots/999999.html", ".index.html.tmp-123", f"games/{gone}.html"))
    assert f"games/{gone}.html" not in json.loads((out / NAME).read_text())["files"]


def test_list_pages_count_from_the_oldest_game() -> None:
    """A new game (lists are newest first) changes the last page only, or starts a new one."""
    games = list(range(250, 0, -1))  # newest first
    pages = pages_of(games, 100)
    assert [list(p) for p in pages] == [list(range(100, 0, -1)), list(range(200, 100, -1)), list(range(250, 200, -1))]
    more = pages_of([251, *games], 100)
    assert more[:2] == pages[:2] and list(more[2]) == [251, *pages[2]]
    assert [list(p) for p in pages_of(list(range(300, 0, -1)), 100)][2] == list(range(300, 200, -1))
    assert [list(p) for p in pages_of([], 100)] == [[]]
