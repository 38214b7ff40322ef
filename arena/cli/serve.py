"""`arena serve`: the submission service (arena/service/), served by uvicorn, with its worker processes."""
from __future__ import annotations

import logging

import multiprocessing
import socket
from pathlib import Path

import click

from arena.db import database_url
from arena.service.spool import Spool
from arena.service.worker import WorkerSettings, supervise
from arena.submissions import BUDGET_SECONDS
from arena.text import plural
from sandbox import Limits

from arena.cli.base import Context, UserError, cli, echo, pass_context
from arena.cli.trust import sandbox_tier

#: connections held at once (more are answered 503): each may buffer an upload (256 KiB) while it is checked
MAX_CONNECTIONS = 256


def bound_socket(bind: str) -> socket.socket:
    """A listening TCP socket on ``HOST:PORT`` (port 0: any free port)."""
    host, sep, port = bind.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise UserError(f"--bind {bind!r} is not HOST:PORT (e.g. 127.0.0.1:8000)")
    host = host.strip("[]")
    try:
        info = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)[0]
        sock = socket.socket(info[0], socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(info[4])
        sock.listen(128)
    except OSError as exc:
        raise UserError(f"cannot listen on {bind!r}: {exc.strerror or exc}") from None
    return sock


@cli.command()
@click.option("--bind", default="127.0.0.1:8000", show_default=True, help="HOST:PORT to listen on (port 0: any).")
@click.option("--spool", type=click.Path(file_okay=False), default="arena-uploads", show_default=True,
              help="Folder of the queue of uploads (made when missing).")
@click.option("--site", type=click.Path(file_okay=False), default=None,
              help="The static site to serve read-only at / (as 'arena site build --out' wrote it).")
@click.option("--rate", type=click.IntRange(min=1), default=10, show_default=True,
              help="Uploads an author may make in 10 minutes.")
@click.option("--read-rate", type=click.IntRange(min=1), default=600, show_default=True,
              help="Reads (/api/me, an upload's verdict) an author may make in 5 minutes.")
@click.option("--token-failures", type=click.IntRange(min=1), default=20, show_default=True,
              help="Requests without a valid token one client address may send in 10 minutes.")
@click.option("--upload-seconds", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="The time an upload's body may take to arrive.")
@click.option("--upload-budget", type=click.FloatRange(min=1), default=BUDGET_SECONDS, show_default=True,
              help="Seconds an upload's smoke games may take in all; a bot still playing then is refused.")
@click.option("--upload-workers", type=click.IntRange(min=1, max=64), default=2, show_default=True,
              help="Uploads checked at once, each of another author (taken round-robin across authors).")
@click.option("--head-seconds", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds a connection may take to send a request's head (line and headers); then it is closed.")
@click.option("--stall-seconds", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds an answer may go out not at all (its client reads nothing); then the connection is closed.")
@click.option("--connections-per-address", type=click.IntRange(min=1), default=16, show_default=True,
              help="Connections one client address (an IPv6 /64) may hold open; a trusted proxy's are not counted.")
@click.option("--unsafe", is_flag=True, help="Allow smoke games without a strong sandbox.")
@pass_context
def serve(ctx: Context, bind: str, spool: str, site: str | None, rate: int, read_rate: int, token_failures: int,
          upload_seconds: float, upload_budget: float, upload_workers: int, head_seconds: float,
          stall_seconds: float, connections_per_address: int, unsafe: bool) -> None:
    """Run the submission service: authors upload bot files with their token ('arena submit FILE --to URL'),
    workers check the uploads as 'arena submit' does, one author's at a time, round-robin across authors, and
    each author reads their own bots and logs."""
    import uvicorn

    from arena.service.app import ServiceSettings, make_app
    from arena.service.connections import bounded

    if not ctx.quiet:  # what it did, at the default level too: a journal (systemd) keeps each upload and verdict
        logging.getLogger("arena.service").setLevel(logging.INFO)
    tier = sandbox_tier(unsafe)
    engine = ctx.engine  # made (and upgraded) once, here, before the worker starts
    folder = Path(spool)
    try:
        held = Spool(folder).lock()  # kept open while the server runs
        cleared = Spool(folder).clear_partial()
    except BlockingIOError:
        raise UserError(f"cannot use {spool!r} for uploads: another 'arena serve' uses it") from None
    except OSError as exc:
        raise UserError(f"cannot use {spool!r} for uploads: {exc.strerror or exc}") from None
    sock = bound_socket(bind)
    host, port = sock.getsockname()[:2]
    settings = ServiceSettings(spool=folder, site=Path(site) if site else None, rate=rate,
                               upload_seconds=upload_seconds, reads=read_rate, failures=token_failures)
    # not a daemon: a daemon may not have children; it is stopped below, and dies with the server if killed
    worker = multiprocessing.get_context("fork").Process(
        target=supervise, name="arena-upload-workers",
        args=(database_url(ctx.db_url), folder, WorkerSettings(Limits(), tier, budget=upload_budget), upload_workers))
    engine.dispose()  # no connection crosses the fork
    worker.start()
    if cleared:
        echo(f"removed {plural(cleared, 'half-received upload')} left by a stopped server", err=True)
    echo(f"serving on http://{host}:{port} (uploads in {folder}, {Spool(folder).queued()} queued; "
         f"{plural(upload_workers, 'worker')}, {upload_budget:g} s an upload)", err=True)
    config = uvicorn.Config(make_app(engine, settings), log_config=None, access_log=False, timeout_keep_alive=5,
                            http=bounded(head_seconds, stall_seconds, connections_per_address),
                            limit_concurrency=MAX_CONNECTIONS, h11_max_incomplete_event_size=16 * 1024)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        worker.terminate()
        worker.join(10)
        if worker.is_alive():
            worker.kill()
            worker.join(5)
        sock.close()
        held.close()
