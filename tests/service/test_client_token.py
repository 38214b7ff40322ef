"""Where `arena submit --to URL` sends an author's token: https, or plain http to a loopback address only, and
never on to wherever a redirect points (urllib would carry the Authorization header there); a poll answered
429 waits its Retry-After."""
from __future__ import annotations

import http.server
import threading
from pathlib import Path
from typing import Iterator

import pytest
from service_helpers import client

BOTS = Path(__file__).resolve().parents[2] / "bots"
TOKEN = "tok-ann-0123456789"


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every request with a redirect to ``target`` (if set), else 200 ``{}``; keeps the headers seen."""

    target: str | None = None
    seen: list[tuple[str, str | None]] = []

    def _answer(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization")))
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if self.target is not None:
            self.send_response(307)
            self.send_header("Location", self.target + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(target: str | None) -> tuple[http.server.HTTPServer, type[_Recorder]]:
    handler = type("Handler", (_Recorder,), {"target": target, "seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, handler


@pytest.fixture()
def bot(tmp_path: Path) -> Path:
    path = tmp_path / "anns.py"
    path.write_text((BOTS / "random_bot.py").read_text())
    return path


@pytest.fixture()
def redirecting() -> Iterator[tuple[str, type[_Recorder], type[_Recorder]]]:
    """A service address that redirects every request to a second server; both record what they got."""
    elsewhere, second = _serve(None)
    front, first = _serve(f"http://127.0.0.1:{elsewhere.server_address[1]}")
    try:
        yield f"http://127.0.0.1:{front.server_address[1]}", first, second
    finally:
        for server in (front, elsewhere):
            server.shutdown()
            server.server_close()


def test_a_redirect_is_not_followed_and_the_token_goes_nowhere_else(
        redirecting: tuple[str, type[_Recorder], type[_Recorder]], bot: Path) -> None:
    url, first, second = redirecting
    done = client(url, TOKEN, str(bot))
    assert done.returncode == 2, done
    assert "answered with a redirect (HTTP 307)" in done.stderr and "the token is not sent there" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert [token for _, token in first.seen] == [f"Bearer {TOKEN}"]  # the service named was asked once
    assert second.seen == []  # and the address it pointed to never was


@pytest.mark.parametrize("url", ["http://ladder.example.org", "http://10.0.0.7:8000/", "HTTP://ladder.example.org"])
def test_plain_http_to_another_machine_is_refused_before_anything_is_sent(url: str, bot: Path) -> None:
    done = client(url, TOKEN, str(bot))
    assert done.returncode == 2 and "would send your token unencrypted: use https://" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert TOKEN not in done.stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]"])
def test_plain_http_to_a_loopback_address_is_allowed(host: str, bot: Path) -> None:
    server, seen = _serve(None)
    port = server.server_address[1]
    try:
        url = f"http://{host}:{port}"
        done = client(url, TOKEN, str(bot))
    finally:
        server.shutdown()
        server.server_close()
    assert "unencrypted" not in done.stderr, done.stderr
    if host == "[::1]":  # the server listens on IPv4: reaching it is not the point, not being refused is
        assert "cannot reach the submission service" in done.stderr, done.stderr
    else:
        assert seen.seen and seen.seen[0][1] == f"Bearer {TOKEN}", done.stderr


class _Busy(http.server.BaseHTTPRequestHandler):
    """A service that takes the upload, then answers its first verdict poll 429 (Retry-After: 1), then the verdict."""

    seen: list[str] = []

    def _json(self, code: int, body: bytes, retry_after: str | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        if retry_after is not None:
            self.send_header("Retry-After", retry_after)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.seen.append("POST")
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._json(202, b'{"id": "t1", "state": "queued"}')

    def do_GET(self) -> None:
        self.seen.append("GET")
        if self.seen.count("GET") == 1:
            self._json(429, b'{"error": "too many reads: 600 a 300 s for one author"}', "1")
        else:
            self._json(200, b'{"state": "accepted", "out": ["anns version 1 registered"], "err": [], "version": 1}')

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_poll_answered_429_waits_its_retry_after_and_asks_again(bot: Path) -> None:
    handler: type[_Busy] = type("Handler", (_Busy,), {"seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        done = client(f"http://127.0.0.1:{server.server_address[1]}", TOKEN, str(bot))
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr  # before: "the service refused: too many reads", exit 2
    assert "anns version 1 registered" in done.stdout and handler.seen == ["POST", "GET", "GET"]
