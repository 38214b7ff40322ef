"""The service's workers: each takes the next upload from the spool (arena/service/spool.py: fair across
authors, one upload of an author at a time) and runs it as `arena submit` would (arena/submissions/submit.py)
for the author whose token sent it, within the upload's time budget. A machine fault (no sandbox, a database that
cannot be written now, e.g. while a season holds it) gives the upload back to the queue for the next round.
``supervise`` keeps the workers running: a worker that dies is replaced, and the upload it held is queued again."""
from __future__ import annotations

import logging
import multiprocessing
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from arena.submissions.accounts import Actor
from arena.db import DatabaseError
from arena.ladder.executors import die_with_parent
from arena.service.spool import Claim, Spool, Ticket, TicketState, Verdict
from arena.submissions import BUDGET_SECONDS
from arena.submissions.submit import submit_bytes
from sandbox import Limits, SandboxError, Tier

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerSettings:
    limits: Limits
    tier: Tier
    poll_seconds: float = 0.5
    retry_seconds: float = 5.0  # after a machine fault
    # an upload whose checks met a machine fault this many times, the first this long ago, is refused (it would be
    # tried for ever, and its author's later uploads wait behind it)
    give_up_faults: int = 10
    give_up_seconds: float = 3600.0
    budget: float | None = BUDGET_SECONDS  # wall-clock seconds an upload's smoke games may take in all


def check_ticket(engine: Engine, ticket: Ticket, settings: WorkerSettings) -> Verdict:
    """The verdict on one upload; raises what is the machine's fault (to be retried)."""
    outcome = submit_bytes(engine, ticket.data, ticket.filename, ticket.name, Actor.author(ticket.author),
                           settings.limits, settings.tier, budget=settings.budget)
    state = TicketState.REFUSED if outcome.refusal is not None else TicketState.ACCEPTED
    return Verdict(ticket.id, ticket.author, ticket.name, state, outcome.out, outcome.err, outcome.refusal,
                   outcome.version)


def check_claim(engine: Engine, spool: Spool, claim: Claim, settings: WorkerSettings) -> bool:
    """Check one claimed upload and keep its verdict; False (the upload given back) on a machine fault, unless its
    checks met faults ``give_up_faults`` times over ``give_up_seconds``: then it is refused, and the queue moves on."""
    ticket = claim.ticket
    try:
        verdict = check_ticket(engine, ticket, settings)
    except (SandboxError, OperationalError, DBAPIError, DatabaseError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        faults, since = spool.fault(claim)
        if faults < settings.give_up_faults or since < settings.give_up_seconds:
            log.warning("upload %s of %s stays queued (machine fault %d, not the bot's): %s", ticket.id,
                        ticket.author, faults, reason)
            spool.release(claim)
            return False
        log.error("upload %s of %s refused: %d checks over %.0f s met a machine fault, the last: %s", ticket.id,
                  ticket.author, faults, since, reason)
        verdict = Verdict(ticket.id, ticket.author, ticket.name, TicketState.REFUSED,
                          refusal=f"the arena could not check this upload: {faults} tries over {since / 60:.0f} "
                                  f"minutes met a fault of the arena's machine, not of your bot "
                                  f"({type(exc).__name__}); nothing was stored, send it again later")
        spool.finish(verdict, claim)
        return True
    except Exception as exc:  # noqa: BLE001 - the arena's own fault: say so, and let the queue move on
        log.exception("upload %s could not be checked", ticket.id)
        verdict = Verdict(ticket.id, ticket.author, ticket.name, TicketState.REFUSED,
                          refusal=f"the arena could not check this upload (its fault, not yours: "
                                  f"{type(exc).__name__}); nothing was stored, send it again later")
    spool.finish(verdict, claim)
    log.info("upload %s: %s %s", ticket.id, ticket.name, verdict.state.value)
    return True


def run_once(engine: Engine, spool: Spool, settings: WorkerSettings) -> int:
    """Check queued uploads in turn until none is left to this process; how many were finished. Stops at the
    first machine fault."""
    finished = 0
    while (claim := spool.claim()) is not None:
        if not check_claim(engine, spool, claim, settings):
            return finished
        finished += 1
    return finished


def work(url: str, spool: Spool, settings: WorkerSettings) -> None:
    """A worker process's loop: forever, until its supervisor stops it."""
    from arena.db import make_engine

    engine = make_engine(url)
    while True:
        claim = spool.claim()
        if claim is None:
            time.sleep(settings.poll_seconds)
        elif not check_claim(engine, spool, claim, settings):
            time.sleep(settings.retry_seconds)


def supervise(url: str, folder: Path, settings: WorkerSettings, workers: int) -> None:
    """The workers' parent process: keeps ``workers`` worker processes running (a dead one is replaced; the
    kernel has released its claim, so its upload is queued again) until SIGTERM, which ends them with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops the workers; Ctrl-C reaches the server
    die_with_parent()  # a server killed outright takes its workers along; the queue keeps what it held

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    context = multiprocessing.get_context("fork")
    running: list[multiprocessing.process.BaseProcess] = []
    try:
        while True:
            for process in [p for p in running if not p.is_alive()]:
                log.warning("upload worker %s ended (exit %s); a new one takes its place", process.pid,
                            process.exitcode)
                running.remove(process)
                process.join(0)
            while len(running) < workers:
                process = context.Process(target=_worker_main, args=(url, folder, settings),
                                          name=f"arena-upload-worker-{len(running) + 1}", daemon=True)
                process.start()
                running.append(process)
            time.sleep(settings.poll_seconds)
    finally:
        for process in running:
            process.terminate()
        for process in running:
            process.join(5)


def _worker_main(url: str, folder: Path, settings: WorkerSettings) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the supervisor's handler is not this process's
    die_with_parent()  # a supervisor killed outright takes its workers along
    work(url, Spool(folder), settings)
