"""The service's bounds on what is not an upload, and on names, over real HTTP on a loopback port: an author's
reads (/api/me, an upload's verdict) are counted per author; requests without a valid token are counted per
client address, and past the bound the address waits even with a valid token; a bot name that reads as another
author's bot is refused (409) before its body is read, storing nothing, and so is one another author's waiting
upload claims."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator

import pytest
from service_helpers import Server, client, start_server, three_authors


BOTS = Path(__file__).resolve().parents[2] / "bots"


def stored(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return [*conn.execute("SELECT id, name, author FROM bot ORDER BY id"),
                *conn.execute("SELECT id, bot_id, number, sha256, active, by_operator FROM botversion ORDER BY id")]


def answer(method: str, url: str, token: str | None = None, body: bytes | None = None) -> tuple[int, dict[str, str],
                                                                                                 dict[str, object]]:
    """(status, headers with lower-case names, JSON body) of one request."""
    import json
    import urllib.error
    import urllib.request

    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, json.loads(exc.read())


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("limits")
    db, tokens = three_authors(folder)
    server = start_server(db, folder / "spool", "--read-rate", "8", "--rate", "2")
    try:
        yield server, tokens
    finally:
        server.stop()


def test_an_authors_reads_are_bounded_per_author(served: tuple[Server, dict[str, str]]) -> None:
    server, tokens = served
    codes = [answer("GET", f"{server.url}/api/me", tokens["ann"])[0] for _ in range(6)]
    codes += [answer("GET", f"{server.url}/api/uploads/nope", tokens["ann"])[0] for _ in range(2)]
    assert codes == [200] * 6 + [404, 404]  # --read-rate 8: one budget for both reads
    for path in ("/api/me", "/api/uploads/nope"):
        status, headers, body = answer("GET", f"{server.url}{path}", tokens["ann"])
        assert status == 429 and "too many reads: 8 a 300 s for one author" in str(body["error"]), body
        assert 1 <= int(headers["retry-after"]) <= 301 and set(body) == {"error"}
    assert answer("GET", f"{server.url}/api/me", tokens["cy"])[0] == 200  # another author's budget is their own


def test_upload_requests_refused_before_their_check_are_bounded(served: tuple[Server, dict[str, str]]) -> None:
    """Six upload requests for each upload --rate allows (2 here: 12 in 10 minutes), refused ones included: else an
    author could send them as fast as the server answers. Reads keep their own budget."""
    server, tokens = served
    refused = [answer("POST", f"{server.url}/api/bots/cys?filename=no/such", tokens["cy"], b"#")[0] for _ in range(12)]
    assert refused == [400] * 12
    status, headers, body = answer("POST", f"{server.url}/api/bots/cys?filename=cys.py", tokens["cy"], b"#")
    assert status == 429 and "too many upload requests: 12 a 600 s for one author, refused ones included" in \
        str(body["error"]) and 1 <= int(headers["retry-after"]) <= 601, body
    assert answer("GET", f"{server.url}/api/me", tokens["cy"])[0] == 200


def test_a_name_that_reads_as_another_authors_bot_is_refused(served: tuple[Server, dict[str, str]],
                                                              tmp_path: Path) -> None:
    server, tokens = served
    before = stored(server.db)
    source = (BOTS / "random_bot.py").read_bytes()
    cases = {"ANNS": 409, "Anns": 409, "4nns": 409, "a-n_n.s": 409, "%EF%BC%A1nns": 400, "%D0%B0nns": 400}
    for name, code in cases.items():  # the last two: a fullwidth A, a Cyrillic a
        status, _, body = answer("POST", f"{server.url}/api/bots/{name}?filename=x.py", tokens["bob"], source)
        words = "reads as the bot 'anns' of author 'ann'" if code == 409 else "must be 1-40 letters"
        assert status == code and words in str(body["error"]) and "\n" not in str(body["error"]), (name, body)
    (tmp_path / "Anns.py").write_bytes(source)
    done = client(server.url, tokens["bob"], str(tmp_path / "Anns.py"))
    assert done.returncode == 2 and "reads as the bot 'anns' of author 'ann'" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert stored(server.db) == before
    assert not list((server.spool / "queue").iterdir()) and not list((server.spool / "tmp").iterdir())


def test_requests_without_a_valid_token_are_bounded_per_address(tmp_path: Path) -> None:
    db, tokens = three_authors(tmp_path)
    server = start_server(db, tmp_path / "spool", "--token-failures", "3")
    before = stored(db)
    try:
        assert answer("GET", f"{server.url}/api/me", tokens["ann"])[0] == 200
        codes = [answer("GET", f"{server.url}/api/me", token)[0] for token in (None, "guess-1", "guess-2")]
        assert codes == [401, 401, 401]
        for token, method, path in ((None, "GET", "/api/me"), ("guess-3", "GET", "/api/me"),
                                    ("guess-4", "POST", "/api/bots/x")):
            status, headers, body = answer(method, f"{server.url}{path}", token, b"#" if method == "POST" else None)
            assert status == 429, (token, path, status, body)
            assert "too many requests without a valid token from 127.0.0.1: 3 a 600 s" in str(body["error"]), body
            assert 1 <= int(headers["retry-after"]) <= 601
        # an author who shares the address (a campus NAT, a proxy) is not locked out by another's failures
        assert answer("GET", f"{server.url}/api/me", tokens["bob"])[0] == 200
        assert stored(db) == before and not list((tmp_path / "spool" / "queue").iterdir())
    finally:
        server.stop()


def test_a_new_name_another_authors_waiting_upload_claims_is_refused_at_once(tmp_path: Path) -> None:
    """Bob's upload of the new bot "racer" waits for its smoke games (a slow bot: over a minute); meanwhile cy's
    uploads of a name that reads as it are refused at once (409), before their body is read, rather than after
    their own smoke games, without naming bob or his spelling; bob may send his own again."""
    db, tokens = three_authors(tmp_path)
    server = start_server(db, tmp_path / "spool")
    before = stored(db)
    slow = (Path(__file__).with_name("slow_bot.py")).read_bytes()
    source = (BOTS / "random_bot.py").read_bytes()
    try:
        status, _, body = answer("POST", f"{server.url}/api/bots/racer?filename=racer.py", tokens["bob"], slow)
        assert status == 202, body
        for name in ("racer", "Racer", "r4cer", "ra-cer"):
            status, _, body = answer("POST", f"{server.url}/api/bots/{name}?filename=x.py", tokens["cy"], source)
            assert status == 409, (name, body)
            words = str(body["error"])  # an upload under check is nobody's business: neither its author nor spelling
            assert f"bot name {name!r} reads as the name of another author's upload that is being checked" in words
            assert "bob" not in words and words.count("racer") == (1 if name == "racer" else 0), words
        assert answer("POST", f"{server.url}/api/bots/racer?filename=racer.py", tokens["bob"], source)[0] == 202
        assert stored(db) == before  # nothing checked yet: bob's slow upload holds the check
    finally:
        server.stop()
