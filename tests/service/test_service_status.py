"""An author sees their own bots from their own machine (`arena status --to`, ``/api/me``) over real HTTP: where
each format stands (placing k/10, then a rank), a version the ladder paused and why, and the standard error
of their bot in an ordinary game that did not fail, which nobody else reads: not another author (404), not the
public site or the leaderboard's JSON, and not its owner either while the game's deals are secret."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
from service_helpers import Server, add_author, http, start_server
from sqlmodel import Session

from arena.submissions.accounts import Actor
from arena.db import make_engine
from arena.submissions.versions import register
from forked_arena import arena_run

ARENA = [sys.executable, "-m", "arena"]
ROOT = Path(__file__).resolve().parents[2]
CHATTY = (ROOT / "tests" / "arena" / "chatty_bot.py").read_text(encoding="utf-8")
MARKER = "CHATTY-MARK-7f3a"
PAUSED = "failed each of its latest 5 games (crash)"


def arena(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = arena_run(["--db", f"sqlite:///{db}", "-q", *args], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def status(server: Server, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`arena status --to URL ARGS` as the author of ``token``."""
    return arena_run(["status", "--to", server.url, *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "ARENA_TOKEN": token})


def rows(db: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql, args))


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    """ann's chatty bot (classic and solo) after 10 classic games and an open solo season, bob's bot entered
    after them and placed in a few games; a server on that database."""
    folder = tmp_path_factory.mktemp("status")
    db = folder / "ladder.sqlite"
    tokens = {name: add_author(db, name) for name in ("ann", "bob")}
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register(session, "chatty", CHATTY, Actor.author("ann"), variants=("classic", "solo"))
    arena(db, "season", "run", "--name", "first", "--games", "10", "--players", "3", "--bosses", "random,greedy")
    with Session(engine) as session:
        register(session, "bobs", (ROOT / "bots" / "random_bot.py").read_text(), Actor.author("bob"))
    engine.dispose()
    arena(db, "season", "run", "--name", "second", "--games", "3", "--players", "3")
    arena(db, "season", "run", "--name", "alone", "--variant", "solo", "--games", "2")  # left open: deals secret
    server = start_server(db, folder / "spool")
    try:
        yield server, tokens
    finally:
        server.stop()


def chatty_games(db: Path, secret: bool) -> list[int]:
    """The games chatty played, newest first: of the open solo season, or of the others."""
    return [m for m, in rows(db, "SELECT match.id FROM matchseat JOIN match ON match.id = matchseat.match_id "
                                 "JOIN season ON season.id = match.season_id JOIN botversion ON botversion.id = "
                                 "matchseat.version_id JOIN bot ON bot.id = botversion.bot_id WHERE bot.name = "
                                 "'chatty' AND (season.name = 'alone') = ? ORDER BY match.id DESC", secret)]


def test_the_owner_reads_the_stderr_of_an_ordinary_game_and_nobody_else_does(
        ladder: tuple[Server, dict[str, str]], tmp_path: Path) -> None:
    server, tokens = ladder
    played, secret = chatty_games(server.db, False), chatty_games(server.db, True)
    assert len(played) >= 10 and len(secret) == 2
    status_code, mine = http("GET", f"{server.url}/api/me", tokens["ann"])
    assert status_code == 200 and mine["bots"][0]["logs"] == played  # every game it wrote in, never a secret one
    newest = played[0]
    status_code, game = http("GET", f"{server.url}/api/me/games/{newest}", tokens["ann"])
    assert status_code == 200 and game["game"] == newest and game["format"] == "classic" and game["players"] == 3
    [seat] = game["seats"]
    assert seat["bot"] == "chatty" and seat["status"] == "ok" and seat["failure"] is None and seat["detail"] == ""
    assert seat["stderr"].count(MARKER) == seat["decisions"] > 0  # its output of the whole game, last decision too

    shown = status(server, tokens["ann"], "--game", str(newest))
    assert shown.returncode == 0, shown.stderr
    assert f"game {newest}  classic" in shown.stdout and "seat " in shown.stdout and ": chatty version 1, ok" in \
        shown.stdout
    assert shown.stdout.count(MARKER) == seat["decisions"]
    as_json = status(server, tokens["ann"], "--game", str(newest), "--json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == game

    status_code, refused = http("GET", f"{server.url}/api/me/games/{secret[0]}", tokens["ann"])  # deals secret
    assert status_code == 403 and "secret" in refused["error"] and MARKER not in str(refused)
    first = played[-1]  # of the first season, before bob had a bot
    for token, number in ((tokens["bob"], first), (tokens["ann"], 999_999), (tokens["ann"], 10**30)):
        status_code, refused = http("GET", f"{server.url}/api/me/games/{number}", token)
        assert status_code == 404 and refused == {"error": f"no game of yours has the number {number}"}
    status_code, bobs = http("GET", f"{server.url}/api/me", tokens["bob"])
    assert MARKER not in json.dumps(bobs) and set(bobs["bots"][0]["logs"]).isdisjoint(played)
    theirs = status(server, tokens["bob"], "--game", str(first))
    assert theirs.returncode == 2 and theirs.stdout == "" and MARKER not in theirs.stderr
    assert theirs.stderr.strip().splitlines() == [
        f"Error: the service refused: no game of yours has the number {first}"]

    for flags in ((), ("--private-logs",)):  # the site shows no game's log, even for a site only authors read
        site = tmp_path / f"site{len(flags)}"
        arena(server.db, "site", "build", "--out", str(site), *flags)
        pages = [p for p in site.rglob("*") if p.is_file()]
        assert len(pages) > 10 and not [p for p in pages if MARKER.encode() in p.read_bytes()]
    operator = arena(server.db, "game", "show", str(newest), "--stderr").stdout  # the operator reads everything
    assert operator.count(MARKER) == seat["decisions"] and f"seat {seat['seat']} (chatty) stderr:" in operator
    assert MARKER not in arena(server.db, "game", "show", str(newest)).stdout
    for variant in ("classic", "solo"):
        board = arena(server.db, "leaderboard", "--variant", variant, "--json").stdout
        assert "chatty" in board and MARKER not in board
    kept = rows(server.db, "SELECT count(*) FROM seatlog WHERE match_id IN (%s)" % ",".join(map(str, secret)))
    assert kept == [(2,)]  # kept, and shown once the season is closed


def test_status_shows_placing_then_a_rank_and_a_paused_version_with_its_reason(
        ladder: tuple[Server, dict[str, str]]) -> None:
    server, tokens = ladder
    [(bobs_games,)] = rows(server.db, "SELECT rating.games FROM rating JOIN botversion ON botversion.id = "
                                      "rating.version_id JOIN bot ON bot.id = botversion.bot_id WHERE bot.name = "
                                      "'bobs' AND rating.variant = 'classic'") or [(0,)]
    assert bobs_games < 10
    status_code, bobs = http("GET", f"{server.url}/api/me", tokens["bob"])
    assert status_code == 200 and bobs["bots"][0]["active"] == {
        "version": 1, "paused": None, "competitions": [], "formats": [
        {"format": "classic", "games": bobs_games, "ranked_after": 10, "placing": True, "provisional": True,
         "rank": None}]}
    table = status(server, tokens["bob"])
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0].split() == ["bot", "version", "format", "games", "standing", "state"]
    assert table.stdout.splitlines()[1].split() == ["bobs", "1", "classic", str(bobs_games), "placing",
                                                    f"{bobs_games}/10", "plays"]
    assert json.loads(status(server, tokens["bob"], "--json").stdout) == bobs

    status_code, mine = http("GET", f"{server.url}/api/me", tokens["ann"])
    classic, solo = mine["bots"][0]["active"]["formats"]
    assert classic["format"] == "classic" and classic["games"] >= 10 and not classic["placing"]
    assert not classic["provisional"] and classic["rank"] in (1, 2, 3)
    assert solo["format"] == "solo" and solo["ranked_after"] == 0 and not solo["placing"] and solo["rank"] in (1, 2, 3)
    lines = status(server, tokens["ann"]).stdout.splitlines()
    assert lines[1].split() == ["chatty", "1", "classic", str(classic["games"]), "rank", str(classic["rank"]), "plays"]
    assert lines[2].split() == ["chatty", "1", "solo", str(solo["games"]), "rank", str(solo["rank"]), "plays"]
    assert f"games with your bots' logs: {', '.join(map(str, mine['bots'][0]['logs'][:20]))}" in lines

    with sqlite3.connect(server.db) as conn:  # what the live season does to a version that keeps failing
        conn.execute("UPDATE botversion SET paused = ?, paused_at = '2026-12-04 10:00:00.000000' WHERE bot_id = "
                     "(SELECT id FROM bot WHERE name = 'chatty')", (PAUSED,))
    try:
        status_code, mine = http("GET", f"{server.url}/api/me", tokens["ann"])
        assert mine["bots"][0]["active"]["paused"] == {"reason": PAUSED, "at": "2026-12-04T10:00:00+00:00"}
        lines = status(server, tokens["ann"]).stdout.splitlines()
        assert [line.split("  ")[-1].strip() for line in lines[1:3]] == [f"paused: {PAUSED}"] * 2
        assert json.loads(status(server, tokens["ann"], "--json").stdout) == mine
    finally:
        with sqlite3.connect(server.db) as conn:
            conn.execute("UPDATE botversion SET paused = NULL, paused_at = NULL")


def test_status_mistakes_are_one_line(ladder: tuple[Server, dict[str, str]], tmp_path: Path) -> None:
    server, _ = ladder
    wrong = status(server, "not-a-token")
    assert wrong.returncode == 2 and wrong.stderr.strip().splitlines() == [
        "Error: the service refused: this token belongs to no author (a wrong, rotated or removed token)"]
    plain = arena_run(["status", "--to", "http://example.com"], capture_output=True, text=True,
                           timeout=60, env={**os.environ, "ARENA_TOKEN": "x"})
    assert plain.returncode == 2 and len(plain.stderr.strip().splitlines()) == 1 and "https://" in plain.stderr
    empty = tmp_path / "token"
    empty.write_text("")
    no_token = arena_run(["status", "--to", server.url, "--token-file", str(empty)], capture_output=True,
                              text=True, timeout=60)
    assert no_token.returncode == 2 and no_token.stderr.strip() == f"Error: the token file {str(empty)!r} is empty"
