"""A real `arena serve` on a loopback port, and plain HTTP calls to it."""
from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from forked_arena import arena_popen, arena_run

ARENA = [sys.executable, "-m", "arena"]
BOTS = Path(__file__).resolve().parents[2] / "bots"


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    db: Path
    spool: Path
    said: bytearray = field(default_factory=bytearray)  # its standard error so far (what a journal would keep)

    def log(self) -> str:
        return self.said.decode(errors="replace")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def start_server(db: Path, spool: Path, *options: str) -> Server:
    """`arena --db DB serve --bind 127.0.0.1:0 --spool SPOOL OPTIONS`, once it says where it listens."""
    process = arena_popen(["--db", f"sqlite:///{db}", "serve", "--bind", "127.0.0.1:0",
                                "--spool", str(spool), *options],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    stream = process.stderr.fileno()  # read unbuffered: a line left in a buffer would not wake select
    deadline = time.monotonic() + 60
    seen = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 1.0)
        if ready:
            seen += os.read(stream, 4096)
            found = re.search(rb"serving on (http://127\.0\.0\.1:\d+)", seen)
            if found:  # from now on its standard error is read by a thread, so that it never fills the pipe
                server = Server(process, found.group(1).decode(), db, spool, bytearray(seen))
                threading.Thread(target=_drain, args=(stream, server.said), daemon=True).start()
                return server
        if process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"the server did not start: {seen.decode(errors='replace')}")


def _drain(stream: int, said: bytearray) -> None:
    try:
        while chunk := os.read(stream, 65536):
            said += chunk
    except OSError:
        pass


def http(method: str, url: str, token: str | None = None, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """(status, JSON body) of one request."""
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def add_author(db: Path, name: str) -> str:
    """The token of a new account ``name``, made as `arena authors add` makes it, in this process (a second
    or two less each than the command, which tests/arena/test_accounts.py runs)."""
    from sqlmodel import Session

    from arena.db import make_engine
    from arena.submissions.accounts import add_author as add_account

    engine = make_engine(f"sqlite:///{db}")
    try:
        with Session(engine) as session:
            return add_account(session, name)[1]
    finally:
        engine.dispose()


def client(url: str, token: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`arena submit ARGS --to URL` as the author of ``token`` (in $ARENA_TOKEN)."""
    return arena_run(["submit", *args, "--to", url], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "ARENA_TOKEN": token}, cwd=cwd)


def wait_verdict(server: Server, token: str, ticket: str, seconds: float = 240) -> dict[str, Any]:
    """An upload's status once it is no longer queued."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, body = http("GET", f"{server.url}/api/uploads/{ticket}", token)
        assert status == 200, body
        if body["state"] != "queued":
            return body
        time.sleep(0.5)
    raise AssertionError(f"upload {ticket} still queued after {seconds} s")


def three_authors(folder: Path) -> tuple[Path, dict[str, str]]:
    """A database in ``folder`` where ann owns the bot "anns" (stored directly), and bob and cy have accounts;
    the three tokens."""
    from sqlmodel import Session

    from arena.submissions.accounts import Actor
    from arena.db import make_engine
    from arena.submissions.versions import register

    db = folder / "ladder.sqlite"
    tokens = {name: add_author(db, name) for name in ("ann", "bob", "cy")}
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register(session, "anns", (BOTS / "greedy_bot.py").read_text(), Actor.author("ann"))
    engine.dispose()
    return db, tokens
