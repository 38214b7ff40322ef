"""The service's worker: takes uploads from the spool, oldest first, and runs each as `arena submit` would
(arena/submission.py) for the author whose token sent it. A machine fault (no sandbox, a database that
cannot be written now, e.g. while a season holds it) leaves the upload queued for the next round."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from arena.accounts import Actor
from arena.db import DatabaseError
from arena.service.spool import Spool, Ticket, TicketState, Verdict
from arena.submission import submit_bytes
from sandbox import Limits, SandboxError, Tier

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerSettings:
    limits: Limits
    tier: Tier
    poll_seconds: float = 0.5
    retry_seconds: float = 5.0  # after a machine fault


def check_ticket(engine: Engine, ticket: Ticket, settings: WorkerSettings) -> Verdict:
    """The verdict on one upload; raises what is the machine's fault (to be retried)."""
    outcome = submit_bytes(engine, ticket.data, ticket.filename, ticket.name, Actor.author(ticket.author),
                           settings.limits, settings.tier)
    state = TicketState.REFUSED if outcome.refusal is not None else TicketState.ACCEPTED
    return Verdict(ticket.id, ticket.author, ticket.name, state, outcome.out, outcome.err, outcome.refusal,
                   outcome.version)


def run_once(engine: Engine, spool: Spool, settings: WorkerSettings) -> int:
    """Check every queued upload once, oldest first; how many were finished. Stops at the first machine fault."""
    finished = 0
    for ticket in spool.pending():
        try:
            verdict = check_ticket(engine, ticket, settings)
        except (SandboxError, OperationalError, DBAPIError, DatabaseError) as exc:
            log.warning("upload %s of %s stays queued (machine fault, not the bot's): %s", ticket.id, ticket.author,
                        str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return finished
        except Exception as exc:  # noqa: BLE001 - the arena's own fault: say so, and let the queue move on
            log.exception("upload %s could not be checked", ticket.id)
            verdict = Verdict(ticket.id, ticket.author, ticket.name, TicketState.REFUSED,
                              refusal=f"the arena could not check this upload (its fault, not yours: "
                                      f"{type(exc).__name__}); nothing was stored, send it again later")
        spool.finish(verdict)
        log.info("upload %s: %s %s", ticket.id, ticket.name, verdict.state.value)
        finished += 1
    return finished


def work(url: str, spool: Spool, settings: WorkerSettings) -> None:
    """The worker process's loop: forever, until the server stops it."""
    from arena.db import make_engine

    engine = make_engine(url)
    while True:
        if spool.queued() and not run_once(engine, spool, settings) and spool.queued():
            time.sleep(settings.retry_seconds)
        time.sleep(settings.poll_seconds)
