"""`arena submit FILE --to URL --wait` over real HTTP: after the verdict it waits until the new version's placement
is over in every format it plays, printing its progress, then its ranks; a wait that runs out, or a version
the ladder pauses meanwhile, is one line and a non-zero exit."""
from __future__ import annotations

import os
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
from service_helpers import Server, add_author, start_server
from forked_arena import arena_popen, arena_run

ARENA = [sys.executable, "-m", "arena"]
BOTS = Path(__file__).resolve().parents[2] / "bots"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    """A server on a fresh database with one author, ann; her token."""
    db = tmp_path / "ladder.sqlite"
    token = add_author(db, "ann")
    server = start_server(db, tmp_path / "spool")
    try:
        yield server, token
    finally:
        server.stop()


def waiting_client(server: Server, token: str, folder: Path, name: str, *options: str) -> subprocess.Popen[str]:
    """`arena submit NAME.py --to URL --wait OPTIONS` (a copy of the greedy bot), started."""
    path = folder / f"{name}.py"
    path.write_text((BOTS / "greedy_bot.py").read_text() + f"\n# {name}\n")
    return arena_popen(["submit", str(path), "--to", server.url, "--wait", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "ARENA_TOKEN": token}, preexec_fn=as_from_a_shell)


def as_from_a_shell() -> None:
    """SIGINT as a shell hands it to a command it starts: handled by default, not blocked. A test worker's own may
    differ after the tests it ran (the client then ignored the test's Ctrl-C until killed at 60 s, twice in the
    suite, never alone), and Python keeps an ignored SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def read_until(process: subprocess.Popen[str], text: str, seconds: float = 300) -> str:
    """The client's standard error up to the first line holding ``text`` (its smoke games come first)."""
    assert process.stderr is not None
    stream = process.stderr.fileno()  # read unbuffered: a line left in a buffer would not wake select
    seen = b""
    deadline = time.monotonic() + seconds
    while text.encode() not in seen:
        assert time.monotonic() < deadline, f"no {text!r} on the client's stderr: {seen!r}"
        ready, _, _ = select.select([stream], [], [], 1.0)
        if ready:
            chunk = os.read(stream, 65536)
            assert chunk, f"the client ended before {text!r}: {seen!r}"
            seen += chunk
    return seen.decode()


def season(server: Server, *args: str) -> None:
    done = arena_run(["--db", f"sqlite:///{server.db}", "-q", "season", "run", *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def test_the_client_waits_for_the_placement_in_every_format_then_prints_the_ranks(served: tuple[Server, str],
                                                                                    tmp_path: Path) -> None:
    server, token = served
    client = waiting_client(server, token, tmp_path, "placer", "--wait-minutes", "10")
    try:
        before = read_until(client, "placing 0/10 classic, 0/10 duel")  # no game yet: its first poll
        # every classic table seats all three bots; at duel tables of two, a bot with fewer than half the
        # season's mean seats takes the next table's first seat, so 40 games give it at least 13
        season(server, "--name", "c", "--games", "12", "--players", "3", "--bosses", "random,greedy")
        season(server, "--name", "d", "--variant", "duel", "--games", "40")
        out, err = client.communicate(timeout=120)
    finally:
        client.kill()
        client.wait()
    assert client.returncode == 0, before + err
    with sqlite3.connect(server.db) as conn:
        games = dict(conn.execute("SELECT rating.variant, rating.games FROM rating JOIN botversion ON botversion.id = "
                                  "rating.version_id JOIN bot ON bot.id = botversion.bot_id WHERE bot.name = 'placer'"))
    assert games["classic"] == 12 and games["duel"] >= 10
    verdict, *lines = out.splitlines()
    assert verdict.startswith("placer version 1 registered for classic, duel, solo")
    assert [line.split(":")[0] for line in lines] == ["placer version 1"] * 3
    assert lines[0].startswith("placer version 1: rank ") and lines[0].endswith(" in classic after 12 games")
    assert lines[1].startswith("placer version 1: rank ") and " in duel after " in lines[1]
    assert 10 <= int(lines[1].split(" after ")[1].split()[0]) <= games["duel"]  # it may end while the season plays
    assert " in solo after " in lines[2]
    assert "placer version 1: placing 0/10 classic, 0/10 duel" in before and "Traceback" not in before + err


def test_a_wait_that_runs_out_is_one_line_and_a_non_zero_exit(served: tuple[Server, str], tmp_path: Path) -> None:
    server, token = served
    client = waiting_client(server, token, tmp_path, "waiter", "--wait-minutes", "0.02")  # no season runs
    out, err = client.communicate(timeout=300)
    assert client.returncode == 2 and "registered for classic" in out
    assert err.splitlines()[-2:] == ["waiter version 1: placing 0/10 classic, 0/10 duel",
                                     "Error: waiter version 1 is still placing 0/10 classic, 0/10 duel after 0.02 "
                                     "minutes; its games go on: 'arena status --to URL' shows where it stands"]
    assert "Traceback" not in err


def test_a_version_paused_while_its_author_waits_says_why(served: tuple[Server, str], tmp_path: Path) -> None:
    server, token = served
    client = waiting_client(server, token, tmp_path, "sicky", "--wait-minutes", "10")
    try:
        read_until(client, "placing 0/10")
        with sqlite3.connect(server.db) as conn:  # what the live season does to a version that keeps failing
            conn.execute("UPDATE botversion SET paused = 'failed each of its latest 5 games (crash)', "
                         "paused_at = '2026-12-04 10:00:00.000000'")
        out, err = client.communicate(timeout=60)
    finally:
        client.kill()
        client.wait()
    assert client.returncode == 2 and err.splitlines() == [
        "Error: sicky version 1 was paused by the ladder: failed each of its latest 5 games (crash)"]


def test_ctrl_c_while_waiting_is_one_line(served: tuple[Server, str], tmp_path: Path) -> None:
    server, token = served
    client = waiting_client(server, token, tmp_path, "patient", "--wait-minutes", "10")
    try:
        read_until(client, "placing 0/10")
        with open(f"/proc/{client.pid}/status") as status:  # shown if the client does not stop: how it took SIGINT
            masks = [line.strip() for line in status if line.startswith(("SigBlk", "SigIgn", "SigCgt"))]
        client.send_signal(signal.SIGINT)
        try:
            out, err = client.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the client went on waiting after SIGINT: {masks}") from None
    finally:
        client.kill()
        client.wait()
    assert client.returncode == 2 and err.splitlines() == [
        "Error: stopped waiting for patient version 1; its placement goes on: 'arena status --to URL' shows where "
        "it stands"]


def test_wait_needs_a_service(tmp_path: Path) -> None:
    done = arena_run(["--db", f"sqlite:///{tmp_path / 'x.sqlite'}", "submit", str(BOTS / "greedy_bot.py"),
                           "--wait"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "Error: --wait waits for a placement on a submission service: it needs --to URL"]
