"""The submission service's ASGI application (Starlette): authenticated uploads into the spool, an upload's
verdict and an author's own bots for their owner, and the static site, read-only.

Every request is bounded: an upload's size is refused from its Content-Length before a byte of the body is
read (and counted while it is read, for a chunked one), the whole body must arrive within
``upload_seconds``, each author may upload ``rate`` files a ``rate_window`` and read (``/api/me``, an
upload's verdict, one of their games) ``reads`` times a ``read_window`` and send ``ATTEMPTS`` times ``rate``
upload requests a ``rate_window``, refused ones included, one client address may send
``failures`` requests without a valid token a ``failure_window`` (then every request of it that needs a token
waits), and the queue holds at most ``max_queued`` uploads. Errors are one JSON object, ``{"error": "..."}``, with
a status that says whose fault it is (4xx the request's, 503 the service's)."""
from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.db.queries import author_key, bot_key
from arena.submissions.accounts import Actor, author_for_token
from arena.service.connections import address_key
from arena.service.owner import NotShown, owner_game, owner_report
from arena.service.spool import Spool
from arena.submissions.bot_file import MAX_BOT_BYTES
from arena.submissions.errors import NameTaken, SubmissionError
from arena.submissions.names import check_may_change, check_name
from arena.submissions.versions import check_tickets
from arena.submissions.tickets import TicketError
from arena.text import shown
from sandbox.languages import language_of_file

log = logging.getLogger(__name__)

#: upload requests an author may send for each upload the rate allows: the refused ones count too
ATTEMPTS = 6
#: a file name as the service takes it: one path component, no dot first, an extension a language knows
FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class ServiceSettings:
    spool: Path
    site: Path | None = None
    max_bytes: int = MAX_BOT_BYTES
    upload_seconds: float = 10.0
    rate: int = 10  # uploads an author may make a window
    rate_window: float = 600.0
    max_queued: int = 200
    per_author: int = 2  # uploads one author may have waiting (one author cannot fill the queue for all)
    reads: int = 600  # reads (/api/me, /api/me/games/N, /api/uploads/ID) an author may make a window: the client polls
    read_window: float = 300.0
    failures: int = 20  # requests without a valid token one client address may send a window
    failure_window: float = 600.0


class Refused(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def error(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


class RateLimit:
    """At most ``count`` events a ``window`` seconds for each key (held in memory: a restart forgets it).
    Requests run in a thread pool, so each check and count holds a lock; keys whose events have all expired
    are forgotten, so that many keys (client addresses) cannot grow it without bound."""

    SWEEP = 4096  # keys held before the expired ones are swept

    def __init__(self, count: int, window: float) -> None:
        self.count, self.window = count, window
        self.events: dict[str, deque[float]] = {}
        self.sweep_at = self.SWEEP  # twice the keys left by the last sweep: many live keys are not swept each time
        self.lock = threading.Lock()

    def wait(self, key: str, now: float, count: bool = True) -> float:
        """0 when an event for ``key`` may happen now (and, with ``count``, count it), else the seconds until it may."""
        with self.lock:
            events = self.events.setdefault(key, deque())
            while events and events[0] <= now - self.window:
                events.popleft()
            if len(events) >= self.count:
                return events[0] + self.window - now
            if count:
                events.append(now)
            if not events:
                del self.events[key]
            elif len(self.events) > self.sweep_at:
                self.sweep(now)
            return 0.0

    def sweep(self, now: float) -> None:
        """Forget the keys whose events have all expired (under ``lock``)."""
        self.events = {k: e for k, e in self.events.items() if e and e[-1] > now - self.window}
        self.sweep_at = max(self.SWEEP, 2 * len(self.events))


def too_many(wait: float, what: str) -> Refused:
    """A 429 for ``what`` (how many a window), with the seconds to wait in words and in Retry-After."""
    return Refused(429, f"too many {what}; send it again in {wait:.0f} s", {"Retry-After": str(int(wait) + 1)})


class Service:
    """The routes, with the database, the spool and the limits they share."""

    def __init__(self, engine: Engine, settings: ServiceSettings) -> None:
        self.engine, self.settings = engine, settings
        self.spool = Spool(settings.spool)
        self.rate = RateLimit(settings.rate, settings.rate_window)
        self.reads = RateLimit(settings.reads, settings.read_window)
        self.attempts = RateLimit(ATTEMPTS * settings.rate, settings.rate_window)
        self.failures = RateLimit(settings.failures, settings.failure_window)
        # the uploads waiting for their check: (author, bot name) by id; this server is the spool's only one
        self.waiting = {t.id: (t.author, t.name) for t in self.spool.pending()}
        self.waiting_lock = threading.Lock()

    def queued(self) -> list[tuple[str, str]]:
        """(author, bot name) of each upload still waiting for its check."""
        with self.waiting_lock:  # checks run in a thread pool, while an accepted upload is added to it
            self.waiting = {i: w for i, w in self.waiting.items() if self.spool.is_queued(i)}
            return list(self.waiting.values())

    def queued_by(self, author: str) -> int:
        return sum(1 for a, _ in self.queued() if a == author)

    def check_name_not_queued(self, name: str, author: str) -> None:
        """A new bot name that reads as one another author's waiting upload claims is refused now (409), not after
        this upload's smoke games: the first upload takes it. The answer names neither that author nor the name's
        spelling: an upload still being checked is nobody's business yet."""
        key, mine = bot_key(name), author_key(author)
        if any(author_key(other) != mine and bot_key(claimed) == key for other, claimed in self.queued()):
            raise Refused(409, f"bot name {name!r} reads as the name of another author's upload that is being "
                               "checked; choose another name")

    def author_of(self, request: Request) -> str:
        """The author whose token the request carries. A client address that sent ``failures`` requests without a
        valid token in a ``failure_window`` has every further one answered 429, but never a valid token: a
        token (256 random bits) is not guessed, and an attacker's failures must not lock out the authors who
        share its address (a campus NAT, a proxy)."""
        address = address_key(request.client.host) if request.client else "unknown"
        settings = self.settings
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        author = None
        if scheme.lower() == "bearer" and token.strip():
            with Session(self.engine) as session:
                author = author_for_token(session, token.strip())
        if author is not None:
            return author.name
        wait = self.failures.wait(address, time.monotonic())
        if wait:
            raise too_many(wait, f"requests without a valid token from {address[:64]}: {settings.failures} "
                                 f"a {settings.failure_window:.0f} s")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(401, "no token: send 'Authorization: Bearer TOKEN' (the operator gives each author one)",
                          {"WWW-Authenticate": "Bearer"})
        raise Refused(401, "this token belongs to no author (a wrong, rotated or removed token)",
                      {"WWW-Authenticate": "Bearer"})

    def reader(self, request: Request) -> str:
        """The author of a read (``author_of``), within their ``reads`` a ``read_window``."""
        author = self.author_of(request)
        wait = self.reads.wait(author, time.monotonic())
        if wait:
            raise too_many(wait, f"reads: {self.settings.reads} a {self.settings.read_window:.0f} s for one author")
        return author

    def sender(self, request: Request) -> str:
        """The author of an upload request (``author_of``), within ``ATTEMPTS`` times their ``rate`` uploads a
        ``rate_window``, refused ones included: else an author could send uploads refused before their check (a
        bad name, a full queue) as fast as the server answers, each a token lookup and a few statements."""
        author = self.author_of(request)
        limit = ATTEMPTS * self.settings.rate
        wait = self.attempts.wait(author, time.monotonic())
        if wait:
            raise too_many(wait, f"upload requests: {limit} a {self.settings.rate_window:.0f} s for one author, "
                                 "refused ones included")
        return author

    def check_upload(self, author: str, name: str, filename: str, length: str | None) -> None:
        """Everything about an upload that can be refused before its body is read."""
        if not FILENAME.fullmatch(filename) or language_of_file(filename) is None:
            raise Refused(400, f"file name {filename[:80]!r} is not a bot file name: one name such as mybot.py, "
                               "mybot.js or mybot.c, no folders")
        if length is not None:
            if not length.isdigit():
                raise Refused(400, f"Content-Length {length[:20]!r} is not a number")
            if int(length) > self.settings.max_bytes:
                raise Refused(413, f"the file is {int(length)} bytes; the limit is {self.settings.max_bytes}",
                              {"Connection": "close"})
        try:
            check_name(name)
            with Session(self.engine) as session:
                check_may_change(session, name, Actor.author(author), "make a new version of")
                check_tickets(session, name, Actor.author(author))  # one bot per author and format
        except (NameTaken, TicketError) as exc:
            raise Refused(409, str(exc)) from None
        except SubmissionError as exc:
            raise Refused(403 if "belongs to" in str(exc) or "no owner" in str(exc) else 400, str(exc)) from None
        if self.queued_by(author) >= self.settings.per_author:
            raise Refused(429, f"{self.settings.per_author} uploads of yours are waiting for their smoke games "
                               "already; send this one when they are done", {"Retry-After": "60"})
        if self.spool.queued() >= self.settings.max_queued:
            raise Refused(503, "the queue of uploads is full; send it again in a few minutes", {"Retry-After": "60"})
        wait = self.rate.wait(author, time.monotonic())
        if wait:
            raise too_many(wait, f"uploads: {self.settings.rate} a {self.settings.rate_window:.0f} s")
        self.check_name_not_queued(name, author)  # after the rate: probing names costs uploads

    async def read_body(self, request: Request) -> bytes:
        limit = self.settings.max_bytes
        chunks: list[bytes] = []
        size = 0

        async def collect() -> None:
            nonlocal size
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:  # the rest of the body is not read: the connection ends with the answer
                    raise Refused(413, f"the file is more than {limit} bytes; the limit is {limit}",
                                  {"Connection": "close"})
                chunks.append(chunk)

        try:
            await asyncio.wait_for(collect(), timeout=self.settings.upload_seconds)
        except TimeoutError:
            raise Refused(408, f"the upload took longer than {self.settings.upload_seconds:.0f} s; "
                               "nothing was stored", {"Connection": "close"}) from None
        return b"".join(chunks)

    async def upload(self, request: Request) -> Response:
        name = request.path_params["name"]
        filename = request.query_params.get("filename", f"{name}.py")
        author = await run_in_threadpool(self.sender, request)
        await run_in_threadpool(self.check_upload, author, name, filename, request.headers.get("content-length"))
        data = await self.read_body(request)
        ticket = await run_in_threadpool(self.spool.accept, author, name, filename, data)
        with self.waiting_lock:
            self.waiting[ticket.id] = (author, name)
        log.info("upload %s: %s of %s queued (%d bytes)", ticket.id, shown(name), shown(author), len(data))
        return JSONResponse({"id": ticket.id, "bot": name, "state": "queued", "status": f"/api/uploads/{ticket.id}"},
                            status_code=202)

    async def status(self, request: Request) -> Response:
        author = await run_in_threadpool(self.reader, request)
        found = await run_in_threadpool(self.spool.lookup, request.path_params["ticket"])
        if found is None or found[0] != author:  # another author's upload is as absent as no upload
            raise Refused(404, "no upload of yours has this id")
        return JSONResponse(found[1])

    async def my_bots(self, request: Request) -> Response:
        author = await run_in_threadpool(self.reader, request)
        return JSONResponse(await run_in_threadpool(self.report, author))

    def report(self, author: str) -> dict[str, Any]:
        with Session(self.engine) as session:
            return owner_report(session, author)

    async def my_game(self, request: Request) -> Response:
        author = await run_in_threadpool(self.reader, request)
        return JSONResponse(await run_in_threadpool(self.game, author, request.path_params["game"]))

    def game(self, author: str, number: int) -> dict[str, Any]:
        try:
            with Session(self.engine) as session:
                return owner_game(session, author, number)
        except NotShown as exc:
            raise Refused(exc.status, exc.message) from None


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return error(exc.status, exc.message, exc.headers)


async def not_served(request: Request, exc: Exception) -> Response:
    """An unknown API route or method is a JSON error too; the site's own pages keep plain answers."""
    assert isinstance(exc, HTTPException)
    if not request.url.path.startswith("/api/"):
        return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)
    words = "no such API" if exc.status_code == 404 else exc.detail
    return error(exc.status_code, f"{words}: {request.method} {request.url.path[:100]}", exc.headers)


def make_app(engine: Engine, settings: ServiceSettings) -> Starlette:
    service = Service(engine, settings)
    routes: list[Route | Mount] = [
        Route("/api/bots/{name}", service.upload, methods=["POST", "PUT"]),
        Route("/api/uploads/{ticket}", service.status, methods=["GET"]),
        Route("/api/me", service.my_bots, methods=["GET"]),
        Route("/api/me/games/{game:int}", service.my_game, methods=["GET"]),
    ]
    if settings.site is not None:
        routes.append(Mount("/", app=StaticFiles(directory=settings.site, html=True, check_dir=False)))
    return Starlette(routes=routes, exception_handlers={Refused: refused, HTTPException: not_served})
