"""One ticket per author through the submission service (issue 41, items 4 and 5), over real HTTP on a loopback
port: a second bot name of an author is refused (409) before its body is read, a copy of another author's active
bot is refused by the worker before any smoke game, and a removed author's bots are read by nobody's /api/me
until the operator hands them over. Each has its harmless twin."""
from __future__ import annotations

import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest
from service_helpers import BOTS, add_author, client, http, start_server
from forked_arena import arena_run


def stored(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return [*conn.execute("SELECT id, name, author FROM bot ORDER BY id"),
                *conn.execute("SELECT id, bot_id, number, sha256, active FROM botversion ORDER BY id")]


def arena(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return arena_run(["--db", f"sqlite:///{db}", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A database where ann owns "anns" (greedy_bot.py, by `arena submit`: every format), bob and cy have accounts;
    the three tokens. Built once: each test changes a copy (``ladder``)."""
    db = tmp_path_factory.mktemp("tickets") / "ladder.sqlite"
    tokens = {name: add_author(db, name) for name in ("ann", "bob", "cy")}
    done = arena(db, "submit", str(BOTS / "greedy_bot.py"), "--name", "anns", "--author", "ann")
    assert done.returncode == 0 and "registered for classic, duel, solo" in done.stdout, done.stderr
    return db, tokens


@pytest.fixture
def ladder(built: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the built ladder in this test's folder, and the three tokens."""
    db = tmp_path / "ladder.sqlite"
    with closing(sqlite3.connect(built[0])) as source, closing(sqlite3.connect(db)) as copy:
        source.backup(copy)
    return db, dict(built[1])


def bots_of(url: str, token: str) -> list[str]:
    status, body = http("GET", f"{url}/api/me", token)
    assert status == 200, body
    return [bot["name"] for bot in body["bots"]]


def test_an_author_gets_one_ticket_and_a_copy_none_through_the_service(ladder: tuple[Path, dict[str, str]],
                                                                        tmp_path: Path) -> None:
    db, tokens = ladder
    server = start_server(db, tmp_path / "spool")
    try:
        before = stored(db)
        status, body = http("POST", f"{server.url}/api/bots/ann2?filename=ann2.py", tokens["ann"],
                            (BOTS / "random_bot.py").read_bytes())
        line = "author 'ann' has 1 active bot in every format already: 'anns' (classic, duel, solo)"
        assert status == 409 and line in str(body["error"]) and "\n" not in str(body["error"]), body
        assert "'arena bots retire anns --author ann'" in str(body["error"]), body
        (tmp_path / "ann2.py").write_bytes((BOTS / "random_bot.py").read_bytes())
        done = client(server.url, tokens["ann"], str(tmp_path / "ann2.py"))
        assert done.returncode == 2 and line in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert not list((server.spool / "queue").iterdir())
        (tmp_path / "bobs.py").write_bytes((BOTS / "greedy_bot.py").read_bytes())  # anns's program, byte for byte
        copied = client(server.url, tokens["bob"], str(tmp_path / "bobs.py"))
        assert copied.returncode == 2, copied.stdout + copied.stderr
        assert "is the same program as an active bot of another author ('anns')" in copied.stderr, copied.stderr
        assert "rank" not in copied.stdout + copied.stderr  # the worker played no smoke game
        assert stored(db) == before
        (tmp_path / "cys.py").write_bytes((BOTS / "random_bot.py").read_bytes())  # the twin: a program of cy's own
        mine = client(server.url, tokens["cy"], str(tmp_path / "cys.py"))
        assert mine.returncode == 0 and "cys version 1 registered for classic, duel, solo" in mine.stdout, mine.stderr
    finally:
        server.stop()


def test_a_removed_authors_bots_are_nobodys_until_handed_over(ladder: tuple[Path, dict[str, str]],
                                                              tmp_path: Path) -> None:
    """The finding: a new "ann" read the old ann's bots and logs through /api/me. The name is reserved now; the
    bots appear on the /api/me of the account the operator transfers them to, and of nobody before."""
    db, tokens = ladder
    server = start_server(db, tmp_path / "spool")
    try:
        assert bots_of(server.url, tokens["ann"]) == ["anns"]
        assert arena(db, "authors", "remove", "ann").returncode == 0
        again = arena(db, "authors", "add", "ann")
        assert again.returncode == 2 and "belonged to an account removed" in again.stderr, again.stderr
        assert http("GET", f"{server.url}/api/me", tokens["ann"])[0] == 401
        assert all(bots_of(server.url, tokens[name]) == [] for name in ("bob", "cy"))
        status, body = http("POST", f"{server.url}/api/bots/anns?filename=anns.py", tokens["bob"],
                            (BOTS / "random_bot.py").read_bytes())
        assert status == 403 and "belongs to another author ('ann')" in str(body["error"]), body
        moved = arena(db, "authors", "transfer", "anns", "--to", "bob")
        assert moved.returncode == 0, moved.stderr
        assert bots_of(server.url, tokens["bob"]) == ["anns"] and bots_of(server.url, tokens["cy"]) == []
    finally:
        server.stop()
