"""`arena serve`: the submission service (arena/service/), served by uvicorn, with its worker process."""
from __future__ import annotations

import multiprocessing
import signal
import socket
from pathlib import Path

import click

from arena.db import database_url
from arena.executors import die_with_parent
from arena.service.spool import Spool
from arena.service.worker import WorkerSettings, work
from arena.text import plural
from sandbox import Limits

from arena.cli.base import Context, UserError, cli, echo, pass_context
from arena.cli.trust import sandbox_tier


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
@click.option("--unsafe", is_flag=True, help="Allow smoke games without a strong sandbox.")
@pass_context
def serve(ctx: Context, bind: str, spool: str, site: str | None, rate: int, read_rate: int, token_failures: int,
          upload_seconds: float, unsafe: bool) -> None:
    """Run the submission service: authors upload bot files with their token ('arena submit FILE --to URL'),
    a worker checks each upload as 'arena submit' does, and each author reads their own bots and logs."""
    import uvicorn

    from arena.service.app import ServiceSettings, make_app

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
    worker = multiprocessing.get_context("fork").Process(
        target=_worker_main, args=(database_url(ctx.db_url), folder, WorkerSettings(Limits(), tier)),
        name="arena-submission-worker", daemon=True)
    engine.dispose()  # no connection crosses the fork
    worker.start()
    if cleared:
        echo(f"removed {plural(cleared, 'half-received upload')} left by a stopped server", err=True)
    echo(f"serving on http://{host}:{port} (uploads in {folder}, {Spool(folder).queued()} queued)", err=True)
    config = uvicorn.Config(make_app(engine, settings), log_config=None, access_log=False, timeout_keep_alive=5,
                            limit_concurrency=64, h11_max_incomplete_event_size=16 * 1024)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        worker.terminate()
        worker.join(5)
        sock.close()
        held.close()


def _worker_main(url: str, folder: Path, settings: WorkerSettings) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops the worker; Ctrl-C reaches the server
    die_with_parent()  # a server killed outright takes its worker along; the queue keeps what it held
    work(url, Spool(folder), settings)
