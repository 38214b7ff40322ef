"""The submission service over real HTTP on a loopback port (`arena serve`): two authors upload through the
client and a season rates both; every refusal is one JSON error, decided before the body is read where it
can be, and stores nothing."""
from __future__ import annotations

import re
import socket
import sqlite3
from pathlib import Path
from typing import Iterator

import pytest
from service_helpers import Server, client, http, start_server, three_authors, wait_verdict
from forked_arena import arena_run


BOTS = Path(__file__).resolve().parents[2] / "bots"


def stored(db: Path) -> list[tuple[object, ...]]:
    """Every bot and version row: what an upload could have stored."""
    with sqlite3.connect(db) as conn:
        return [*conn.execute("SELECT id, name, author FROM bot ORDER BY id"),
                *conn.execute("SELECT id, bot_id, number, sha256, active, by_operator FROM botversion ORDER BY id")]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    """A server with three authors: ann, who owns the bot "anns" (stored here directly), bob and cy."""
    folder = tmp_path_factory.mktemp("served")
    db, tokens = three_authors(folder)
    server = start_server(db, folder / "spool", "--rate", "3", "--upload-seconds", "2")
    try:
        yield server, tokens
    finally:
        server.stop()


def test_two_authors_upload_through_the_client_and_a_season_rates_both(served: tuple[Server, dict[str, str]],
                                                                         tmp_path: Path) -> None:
    server, tokens = served
    (tmp_path / "anns.py").write_text((BOTS / "greedy_bot.py").read_text() + "\n# ann's second version\n")
    (tmp_path / "bobs.py").write_text((BOTS / "random_bot.py").read_text())
    for author, file, version in (("ann", "anns.py", 2), ("bob", "bobs.py", 1)):  # ann's: her bot's next version
        done = client(server.url, tokens[author], str(tmp_path / file))
        assert done.returncode == 0, done.stderr
        assert f"{file[:-3]} version {version} registered for classic" in done.stdout, done.stdout
    with sqlite3.connect(server.db) as conn:
        assert sorted(conn.execute("SELECT name, author FROM bot")) == [("anns", "ann"), ("bobs", "bob")]
    # at the default log level the server says what it did, as a journal (systemd) would keep it
    said = server.log()
    for name, author in (("anns", "ann"), ("bobs", "bob")):
        assert re.search(rf"upload [0-9a-f-]+: {name} of {author} queued \(\d+ bytes\)", said), said
        assert re.search(rf"upload [0-9a-f-]+: {name} accepted", said), said
    season = arena_run(["--db", f"sqlite:///{server.db}", "-q", "season", "run",
                             "--games", "3", "--players", "3", "--bosses", "trader"],
                            capture_output=True, text=True, timeout=600)
    assert season.returncode == 0, season.stderr
    status, mine = http("GET", f"{server.url}/api/me", tokens["ann"])
    assert status == 200 and mine["author"] == "ann" and [b["name"] for b in mine["bots"]] == ["anns"]
    assert [v["number"] for v in mine["bots"][0]["versions"]] == [1, 2]
    assert mine["bots"][0]["standings"]["classic"]["games"] == 3
    with sqlite3.connect(server.db) as conn:
        rated = dict(conn.execute("SELECT bot.name, rating.games FROM rating JOIN botversion ON botversion.id = "
                                  "rating.version_id JOIN bot ON bot.id = botversion.bot_id "
                                  "WHERE rating.variant = 'classic' AND botversion.active"))
    assert rated["anns"] == rated["bobs"] == 3


def raw_request(url: str, head: str, body: bytes = b"") -> bytes:
    """Send ``head`` (request line and headers) and ``body`` over a plain socket; what the server answered."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n")
        try:
            sock.sendall(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server gave up on the body: its answer is what matters
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


def test_refusals_are_one_json_error_and_store_nothing(served: tuple[Server, dict[str, str]],
                                                        tmp_path: Path) -> None:
    server, tokens = served
    before = stored(server.db)
    source = (BOTS / "random_bot.py").read_bytes()
    cases: list[tuple[str | None, str, str, bytes, dict[str, str], int, str]] = [  # status and words expected
        (None, "x", "x.py", source, {}, 401, "no token"),
        ("not-a-token", "x", "x.py", source, {}, 401, "belongs to no author"),
        (tokens["bob"], "anns", "anns.py", source, {}, 403, "belongs to another author ('ann')"),
        (tokens["bob"], "greedy", "greedy.py", source, {}, 400, "reserved"),
        (tokens["bob"], "x", "../../etc/x.py", source, {}, 400, "not a bot file name"),
        (tokens["bob"], "x", ".hidden.py", source, {}, 400, "not a bot file name"),
        (tokens["bob"], "x", "x.exe", source, {}, 400, "not a bot file name"),
        (tokens["bob"], "../x", "x.py", source, {}, 404, "no such API: POST /api/bots/../x"),
        (tokens["bob"], "x%2F..%2Fy", "x.py", source, {}, 404, "no such API"),
        (tokens["bob"], "-x", "x.py", source, {}, 400, "bot name '-x' must be"),
        (tokens["bob"], "x", "x.py", b"a" * 300_000, {}, 413, "the limit is 262144"),
    ]
    for token, name, filename, body, headers, code, words in cases:
        status, answer = http("POST", f"{server.url}/api/bots/{name}?filename={filename}", token, body, headers)
        assert status == code and words in answer["error"], (name, filename, status, answer)
        assert "\n" not in answer["error"] and set(answer) == {"error"}
    # too big, said by Content-Length: refused before a byte of the body is read (none is sent)
    raw = raw_request(server.url, f"POST /api/bots/x?filename=x.py HTTP/1.1\nHost: t\nAuthorization: Bearer "
                                  f"{tokens['bob']}\nContent-Length: 999999999\n")
    assert raw.startswith(b"HTTP/1.1 413") and b"the limit is 262144" in raw, raw[:300]
    # a chunked body that grows past the limit while it is read (as a version of bob's own bot: his one ticket is
    # the first test's bot "bobs", and a new name of his is refused before the body)
    chunk = b"a" * 100_000
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(3)) + b"0\r\n\r\n"
    raw = raw_request(server.url, f"POST /api/bots/bobs?filename=bobs.py HTTP/1.1\nHost: t\nAuthorization: Bearer "
                                  f"{tokens['bob']}\nTransfer-Encoding: chunked\n", chunks)
    assert raw.startswith(b"HTTP/1.1 413") and b"more than 262144" in raw, raw[:300]
    # a slow upload is cut off at the bound (--upload-seconds 2), and nothing is stored: 20 bytes of 200 are sent,
    # then none (a client still sending when the server closes would get a reset that can swallow the answer)
    raw = raw_request(server.url, f"POST /api/bots/bobs?filename=bobs.py HTTP/1.1\nHost: t\nAuthorization: "
                                  f"Bearer {tokens['bob']}\nContent-Length: 200\n", b"#" * 20)
    assert raw.startswith(b"HTTP/1.1 408") and b"longer than 2 s" in raw, raw[:300]
    assert stored(server.db) == before
    assert not list((server.spool / "queue").iterdir()) and not list((server.spool / "tmp").iterdir())


def test_an_author_is_rate_limited_and_sees_only_their_own(served: tuple[Server, dict[str, str]]) -> None:
    server, tokens = served
    broken = b"def act(message:\n"  # refused by the worker in a moment: a syntax error, no smoke game
    tickets = []
    statuses = []
    for i in range(4):  # --rate 3; cy uploads nothing else, and waits for each verdict (2 may wait at once)
        status, answer = http("POST", f"{server.url}/api/bots/cytry{i}?filename=t.py", tokens["cy"], broken)
        statuses.append(status)
        if status == 202:
            tickets.append(answer["id"])
            wait_verdict(server, tokens["cy"], answer["id"])
        else:
            assert status == 429 and "too many uploads: 3 a 600 s" in answer["error"], answer
    assert statuses == [202, 202, 202, 429]
    verdict = wait_verdict(server, tokens["cy"], tickets[0])
    assert verdict["state"] == "refused" and "syntax error at line 1" in verdict["refusal"], verdict
    status, answer = http("GET", f"{server.url}/api/uploads/{tickets[0]}", tokens["ann"])  # not ann's
    assert status == 404 and "no upload of yours" in answer["error"]
    status, mine = http("GET", f"{server.url}/api/me", tokens["cy"])
    assert status == 200 and mine == {"author": "cy", "bots": []}  # refused uploads store no bot


def test_the_client_says_each_failure_in_one_line(served: tuple[Server, dict[str, str]], tmp_path: Path) -> None:
    server, tokens = served
    bot = tmp_path / "anns.py"
    bot.write_text((BOTS / "random_bot.py").read_text())
    big = tmp_path / "big.py"
    big.write_text("#" * 300_000)
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    down = f"http://127.0.0.1:{free.getsockname()[1]}"
    free.close()  # nothing listens there now
    cases = [
        ((server.url, "wrong-token", str(bot)), "belongs to no author"),
        ((server.url, tokens["bob"], str(bot)), "belongs to another author ('ann')"),
        ((server.url, tokens["bob"], str(big)), "the limit is 262144"),
        ((down, tokens["bob"], str(bot)), "cannot reach the submission service"),
        # the client checks a name's spelling itself, before any request (the service is down here) ...
        ((down, tokens["bob"], str(bot), "--name", "bad name"), "must be 1-40 letters"),
        # ... and leaves reserved names to the service, which refuses one in the same words as a local submit
        ((server.url, tokens["bob"], str(bot), "--name", "Trader-2"), "bot name 'Trader-2' is reserved"),
    ]
    for (url, token, path, *rest), words in cases:
        done = client(url, token, path, *rest)
        assert done.returncode == 2 and words in done.stderr, (url, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
