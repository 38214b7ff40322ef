"""`arena submit FILE --to URL`: send a bot file to the submission service as the token's author, wait for
its smoke games and print the verdict as a local `arena submit` does (with ``--wait``, then wait for its
placement); `arena status --to URL`: the author's own bots, failures and game logs. Every failure is one line
and a non-zero exit: a wrong token, a name that is not yours, a file too big, a rate limit, a server that is
down, a wait that ran out."""
from __future__ import annotations

import ipaddress
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import click

from arena.service.owner_text import game_lines, placing_line, standing_text, status_lines
from arena.submissions.bot_file import read_bot_file
from arena.submissions.errors import SubmissionError
from arena.submissions.name_form import check_name_form
from arena.text import shown, terminal

TOKEN_ENV = "ARENA_TOKEN"
REQUEST_SECONDS = 30.0
#: how often ``--wait`` asks where a new version stands: 100 reads in the service's window of 600 reads / 300 s
PLACEMENT_POLL_SECONDS = 3.0


class ServiceError(click.ClickException):
    """The service refused, or could not be reached; the message is its one line."""

    exit_code = 2


class Busy(ServiceError):
    """The service answered 429: ask again in ``retry_after`` seconds (its Retry-After)."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def read_token(token_file: str | None) -> str:
    if token_file is not None:
        try:
            token = Path(token_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ServiceError(f"cannot read the token file {token_file!r}: {getattr(exc, 'strerror', None) or exc}")
        if not token:
            raise ServiceError(f"the token file {token_file!r} is empty")
        return token
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise ServiceError(f"no token: set ${TOKEN_ENV} or give --token-file (the operator made it with "
                           "'arena authors add')")
    return token


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """urllib carries every header a request was made with to wherever a redirect points, the token
    included: the client follows none."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> None:
        raise ServiceError(f"the service at {req.full_url!r} answered with a redirect (HTTP {code}) to "
                           f"{newurl!r}; the token is not sent there: give that address with --to if you trust it")


_OPENER = urllib.request.build_opener(_NoRedirects)


def service_base(url: str) -> str:
    """The service's address without a trailing slash; https, or http to a loopback address only (the
    token travels in a header: over plain http anyone on the way reads it)."""
    base = url.rstrip("/")
    parts = urllib.parse.urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServiceError(f"--to {url!r} is not an http:// or https:// URL")
    if parts.scheme == "http" and not _loopback(parts.hostname):
        raise ServiceError(f"--to {url!r} would send your token unencrypted: use https:// (plain http:// is "
                           "for a loopback address, e.g. http://127.0.0.1:8000)")
    return base


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def call(method: str, url: str, token: str, body: bytes | None = None) -> dict[str, Any]:
    """One request; its JSON reply, or the service's one-line error."""
    request = urllib.request.Request(url, data=body, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"})
    try:
        with _OPENER.open(request, timeout=REQUEST_SECONDS) as response:
            reply: dict[str, Any] = json.loads(response.read(1 << 20))
            return reply
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read(1 << 16))["error"]
        except (ValueError, KeyError, TypeError, OSError):
            message = f"HTTP {exc.code} {exc.reason}"
        after = exc.headers.get("Retry-After", "") if exc.headers else ""
        if exc.code == 429 and after.isdigit():
            raise Busy(f"the service refused: {message}", float(after)) from None
        raise ServiceError(f"the service refused: {message}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServiceError(f"cannot reach the submission service at {url!r}: {reason}") from None
    except ValueError:
        raise ServiceError(f"the service at {url!r} did not answer in JSON: is it an arena service?") from None


def ask_until(url: str, token: str, deadline: float) -> dict[str, Any]:
    """``GET url`` for a loop that asks again and again: a 429 (too many reads) waits its Retry-After and asks
    again while that ends before ``deadline`` (``time.monotonic``), rather than ending the wait."""
    while True:
        try:
            return call("GET", url, token)
        except Busy as busy:
            if time.monotonic() + busy.retry_after > deadline:
                raise
            time.sleep(busy.retry_after)


def submit_remote(url: str, file: Path, name: str | None, token_file: str | None, wait: float,
                  placement_minutes: float | None = None) -> None:
    """Upload ``file`` as bot ``name`` (default: the file name's stem), then print the verdict; with
    ``placement_minutes``, then wait that long at most for the version's placement (``wait_placement``)."""
    base = service_base(url)
    token = read_token(token_file)
    try:
        data = read_bot_file(file)
        name = check_name_form(name or file.stem)  # a reserved or taken name: the service says so
    except SubmissionError as exc:
        raise ServiceError(str(exc)) from None
    query = urllib.parse.urlencode({"filename": file.name})
    ticket = call("POST", f"{base}/api/bots/{urllib.parse.quote(name, safe='')}?{query}", token, data)
    click.echo(f"uploaded {file.name} as {name}: upload {ticket['id']}, waiting for its smoke games", err=True)
    deadline = time.monotonic() + wait
    while True:
        status = ask_until(f"{base}/api/uploads/{ticket['id']}", token, deadline)
        if status.get("state") != "queued":
            break
        if time.monotonic() > deadline:
            raise ServiceError(f"no verdict within {wait:.0f} s; upload {ticket['id']} is still queued "
                               "(ask again later: it is not lost)")
        time.sleep(1.0)
    for line in status.get("out", []):
        click.echo(line)
    for line in status.get("err", []):
        click.echo(line, err=True)
    if status.get("refusal"):
        raise ServiceError(status["refusal"])
    if placement_minutes is not None:
        version = status.get("version")
        if not isinstance(version, int):
            raise ServiceError(f"the service did not say which version of {name!r} it stored: cannot wait for it")
        wait_placement(base, token, name, version, placement_minutes)


def wait_placement(base: str, token: str, name: str, version: int, minutes: float,
                   poll: float = PLACEMENT_POLL_SECONDS) -> None:
    """Ask ``/api/me`` every ``poll`` seconds until version ``version`` of bot ``name`` is placed in every format
    it plays, printing each new ``placing ...`` line on stderr, then its ranks; a version that is paused, is no
    longer the bot's active one, or still places after ``minutes`` is one line and a non-zero exit."""
    deadline = time.monotonic() + minutes * 60.0
    said = ""
    try:
        while True:
            active = _active_version(ask_until(f"{base}/api/me", token, deadline), name, version)
            if active.get("paused"):
                raise ServiceError(f"{name} version {version} was paused by the ladder: "
                                   f"{shown(active['paused'].get('reason'), 500)}")
            formats = active.get("formats") or []
            if not any(place["placing"] for place in formats):
                for place in formats:
                    click.echo(terminal(f"{name} version {version}: {standing_text(place)} in {place['format']} "
                                        f"after {place['games']} games"))
                return
            line = placing_line(formats)
            if line != said:
                click.echo(terminal(f"{name} version {version}: {line}"), err=True)
                said = line
            left = deadline - time.monotonic()
            if left <= 0:
                raise ServiceError(f"{name} version {version} is still {line} after {minutes:g} minutes; "
                                   "its games go on: 'arena status --to URL' shows where it stands")
            time.sleep(min(poll, left))
    except KeyboardInterrupt:
        raise ServiceError(f"stopped waiting for {name} version {version}; its placement goes on: "
                           "'arena status --to URL' shows where it stands") from None


def _active_version(report: dict[str, Any], name: str, version: int) -> dict[str, Any]:
    """Bot ``name``'s active version in ``report``, which must be ``version``."""
    bot = next((b for b in report.get("bots", []) if b.get("name") == name), None)
    active = None if bot is None else bot.get("active")
    if active is None:
        raise ServiceError(f"{name} has no active version any more (retired, or not yours): nothing to wait for")
    if active.get("version") != version:
        raise ServiceError(f"{name} version {version} is no longer its active version (version "
                           f"{active.get('version')} is): nothing to wait for")
    return dict(active)


def status_remote(url: str, token_file: str | None, as_json: bool, game: int | None) -> None:
    """Print the author's report (``/api/me``), or with ``game`` their view of that game, as text or JSON."""
    base = service_base(url)
    token = read_token(token_file)
    reply = call("GET", f"{base}/api/me" if game is None else f"{base}/api/me/games/{game}", token)
    if as_json:
        click.echo(json.dumps(reply, indent=2))
        return
    for line in (status_lines(reply) if game is None else game_lines(reply)):
        click.echo(terminal(line))
