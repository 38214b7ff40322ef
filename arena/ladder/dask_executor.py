"""Tables on a Dask ``distributed`` cluster: a scheduler's workers, or a ``LocalCluster`` on this machine.

A worker lost mid-table has its task re-run elsewhere by the scheduler (after
``distributed.scheduler.allowed-failures`` the table is void); a worker whose machine has no strong
sandbox gets no strong-tier tables, and refuses one it is handed anyway (``TableRefused``).
"""
from __future__ import annotations

import logging
import socket
import time
import uuid
from typing import Any

from arena.ladder.executors import ExecutorError, TableExecutor, void_table
from arena.play.tables import MatchOutcome, TableTask, run_table
from sandbox import Tier, detect_tier, strong_tier_missing

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10  # reaching a Dask scheduler
WORKER_WAIT_S = 60  # a scheduler without workers (or without a strong one): how long to wait for one
#: How often a table may be refused by workers without the strong tier before it is void (the arena's fault).
MAX_REFUSALS = 3


class TableRefused(Exception):
    """A Dask worker cannot give a table the tier it needs; the table goes to another worker."""

    def __init__(self, worker: str, why: str) -> None:
        super().__init__(worker, why)
        self.worker, self.why = worker, why


def _worker_tier() -> tuple[str, str | None]:
    """Run on a Dask worker: the sandbox tier its machine provides and, if not the strong one, why
    (this starts a probe bot there once)."""
    return detect_tier().value, strong_tier_missing()


def _run_table_on_worker(task: TableTask) -> list[MatchOutcome]:
    """A table on a Dask worker, refused (``TableRefused``) if this machine lacks the tier it needs."""
    if task.tier is Tier.STRONG and detect_tier() is not Tier.STRONG:
        from distributed import get_worker

        raise TableRefused(get_worker().address, strong_tier_missing() or "no strong sandbox")
    return run_table(task)


def refused_at_once(address: str) -> None:
    """Raise ``ConnectionRefusedError`` when nothing listens at a ``tcp://host:port`` scheduler address (a typo, a
    scheduler not started): Dask's client would retry for ``CONNECT_TIMEOUT_S`` before saying so. Any other answer,
    or another kind of address, is left to the client."""
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not address.startswith("tcp://") or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except ConnectionRefusedError:
        raise
    except OSError:
        return  # unreachable or slow: the client says so after its own timeout


class DaskExecutor(TableExecutor):
    """Tables as tasks of a Dask ``distributed`` cluster: a scheduler at ``address``, or a
    ``LocalCluster`` of ``workers`` processes (one thread each) when ``address`` is None.

    Each worker runs the sandbox on its own machine; uid slots are flock files per machine, so
    any number of workers on one machine is safe. Workers must have this project installed.
    """

    def __init__(self, address: str | None = None, workers: int = 2) -> None:
        self.address = address
        self.workers = workers
        self.name = f"dask {address}" if address else f"dask-local ({workers} worker{'s' if workers > 1 else ''})"
        self._cluster: Any = None
        self._client: Any = None
        self._completed: Any = None
        self._tables: dict[str, TableTask] = {}  # task key -> its table
        self._refusals: dict[str, int] = {}  # task key -> how often workers refused it
        self._strong: set[str] = set()  # workers that can run strong-tier tables
        self._told: set[str] = set()  # workers the user has been told lack the strong tier

    def start(self) -> None:
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError:
            raise ExecutorError("the Dask executor needs the 'distributed' package: "
                                "pip install 'bohnanza-arena[dask]'") from None
        if self.address is None:
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                         host="127.0.0.1", dashboard_address="127.0.0.1:0", silence_logs=False,
                                         scheduler_kwargs={"dashboard": False})
            self._client = Client(self._cluster)
        else:
            try:
                refused_at_once(self.address)
                self._client = Client(self.address, timeout=f"{CONNECT_TIMEOUT_S}s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise ExecutorError(f"cannot reach the Dask scheduler {self.address!r}: "
                                    f"{' '.join(str(exc).split())}") from None
            if not self._client.nthreads():
                log.warning("no Dask worker at %s yet; waiting up to %d s for one", self.address, WORKER_WAIT_S)
                try:
                    self._client.wait_for_workers(1, timeout=WORKER_WAIT_S)
                except (TimeoutError, OSError):
                    raise ExecutorError(f"no Dask worker joined the scheduler {self.address!r} "
                                        f"within {WORKER_WAIT_S} s") from None
        self._completed = as_completed()
        log.info("Dask executor: %s, %d worker threads", self._client.scheduler.address, self.slots())

    def slots(self) -> int:
        threads: dict[str, int] = self._client.nthreads()  # worker address -> its threads
        return max(1, sum(threads.values()))

    def detect_tier(self) -> Tier:
        """The strong tier if any worker provides it (each probes its own machine with a sandboxed bot):
        tables then go to those workers only, and a worker without it is named once and gets none."""
        probes = self._client.run(_worker_tier)
        deadline = time.monotonic() + WORKER_WAIT_S
        while self.address is not None and not any(t == Tier.STRONG.value for t, _ in probes.values()) \
                and time.monotonic() < deadline:  # a scheduler's workers join when they are up: wait for a strong one
            time.sleep(1.0)
            joined = [worker for worker in self._client.nthreads() if worker not in probes]
            if joined:
                probes.update(self._client.run(_worker_tier, workers=joined))
        self._strong = {worker for worker, (tier, _) in probes.items() if tier == Tier.STRONG.value}
        if not self._strong:
            return Tier.PLAIN
        for worker, (tier, why) in sorted(probes.items()):
            if tier != Tier.STRONG.value:
                self._refused_by(worker, why)
        return Tier.STRONG

    def _refused_by(self, worker: str, why: str | None) -> None:
        self._strong.discard(worker)
        if worker not in self._told:
            self._told.add(worker)
            log.warning("Dask worker %s has no strong sandbox (%s): it gets no tables", worker, why)

    def submit(self, task: TableTask, key: str | None = None, strict: bool = False) -> None:
        """Send a table to the cluster: a strong-tier table to the workers with the strong sandbox (to
        any worker if they are busy or gone, unless ``strict``: a table one refused waits for them)."""
        key = key or f"table-{task.games[0].match_id}-{uuid.uuid4().hex[:8]}"
        where = ({"workers": sorted(self._strong), "allow_other_workers": not strict}
                 if task.tier is Tier.STRONG and self._strong else {})
        future = self._client.submit(_run_table_on_worker, task, key=key, pure=False, **where)
        self._tables[key] = task
        self._completed.add(future)

    def next_result(self) -> list[MatchOutcome]:
        while True:
            outcomes = self._take(next(self._completed))
            if outcomes is not None:
                return outcomes

    def ready_results(self) -> list[list[MatchOutcome]]:
        """The tables whose tasks are done already, without waiting (a table a worker refused goes elsewhere and
        comes back later)."""
        found: list[list[MatchOutcome]] = []
        while self._completed.has_ready():
            outcomes = self._take(next(self._completed))
            if outcomes is not None:
                found.append(outcomes)
        return found

    def _take(self, future: Any) -> list[MatchOutcome] | None:
        """The games of a finished task's table; None if a worker refused it and it went to another."""
        task = self._tables.pop(future.key)
        matches = [game.match_id for game in task.games]
        try:
            outcomes: list[MatchOutcome] = future.result()
            return outcomes
        except TableRefused as refused:  # a worker without the strong tier: the table goes elsewhere
            self._refused_by(refused.worker, refused.why)
            tries = self._refusals.pop(future.key, 0) + 1
            if tries >= MAX_REFUSALS or not self._strong:
                return void_table(matches, f"no Dask worker with a strong sandbox took the table "
                                           f"({tries} refusals)")
            again = f"{future.key.split('-again')[0]}-again{tries}"
            self._refusals[again] = tries
            # only a strong worker now: an idle weak one took it again at once while they were busy
            self.submit(task, again, strict=True)
            return None
        except Exception as exc:  # KilledWorker after too many lost workers: the arena's fault, void the table
            return void_table(matches, f"the table failed on the Dask cluster: "
                                       f"{' '.join(str(exc).split()) or type(exc).__name__}")
        finally:
            future.release()

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            except Exception as exc:  # a scheduler that went away: nothing left to close
                log.debug("closing the Dask client: %r", exc)
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
