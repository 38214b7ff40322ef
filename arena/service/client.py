"""`arena submit FILE --to URL`: send a bot file to the submission service as the token's author, wait for
its smoke games and print the verdict as a local `arena submit` does. Every failure is one line and a
non-zero exit: a wrong token, a name that is not yours, a file too big, a rate limit, a server that is down."""
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

from arena.submit import SubmissionError, check_name, read_bot_file

TOKEN_ENV = "ARENA_TOKEN"
REQUEST_SECONDS = 30.0


class ServiceError(click.ClickException):
    """The service refused, or could not be reached; the message is its one line."""

    exit_code = 2


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
        raise ServiceError(f"the service refused: {message}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServiceError(f"cannot reach the submission service at {url!r}: {reason}") from None
    except ValueError:
        raise ServiceError(f"the service at {url!r} did not answer in JSON: is it an arena service?") from None


def submit_remote(url: str, file: Path, name: str | None, token_file: str | None, wait: float) -> None:
    """Upload ``file`` as bot ``name`` (default: the file name's stem), then print the verdict."""
    base = service_base(url)
    token = read_token(token_file)
    try:
        data = read_bot_file(file)
        name = check_name(name or file.stem)
    except SubmissionError as exc:
        raise ServiceError(str(exc)) from None
    query = urllib.parse.urlencode({"filename": file.name})
    ticket = call("POST", f"{base}/api/bots/{urllib.parse.quote(name, safe='')}?{query}", token, data)
    click.echo(f"uploaded {file.name} as {name}: upload {ticket['id']}, waiting for its smoke games", err=True)
    deadline = time.monotonic() + wait
    while True:
        status = call("GET", f"{base}/api/uploads/{ticket['id']}", token)
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
