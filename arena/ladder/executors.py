"""Where a season's tables are played: a local fork pool (the default) or a Dask ``distributed`` cluster
(``arena/ladder/dask_executor.py``).

An executor takes ``TableTask``s (which carry everything a worker needs: bot sources, rules id,
seeds, limits, sandbox tier) and hands back each table's ``MatchOutcome``s to the coordinator,
which alone writes the database. A Dask worker lost mid-table has its task re-run elsewhere by
the scheduler; the coordinator records a match only while it is still planned, so a table that
comes back twice is recorded once.
"""
from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import time
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any

from arena.play.tables import MatchOutcome, TableTask, run_table
from sandbox import Tier, close_fork_servers, detect_tier
from sandbox.cleanup import describe_exit

log = logging.getLogger(__name__)

class ExecutorError(RuntimeError):
    """Tables cannot be played as asked: a bad ``--executor``, an unreachable scheduler, a lost task."""


class TableExecutor(ABC):
    """Plays tables somewhere and returns their outcomes, one table at a time, as they finish."""

    name = "executor"

    @abstractmethod
    def start(self) -> None:
        """Start (or connect to) the workers."""

    @abstractmethod
    def slots(self) -> int:
        """Tables that can be played at the same time right now (at least 1)."""

    @abstractmethod
    def submit(self, task: TableTask) -> None:
        """Queue a table; its outcomes come back through ``next_result``."""

    @abstractmethod
    def next_result(self) -> list[MatchOutcome]:
        """Block until a submitted table is finished; a table that could not be played comes back
        void (``void_table``), never as an exception: it costs those matches, not the season."""

    def ready_results(self) -> list[list[MatchOutcome]]:
        """The submitted tables finished already, each as ``next_result`` gives it, without waiting (a coordinator
        records them in one transaction); an executor that cannot tell says none."""
        return []

    @abstractmethod
    def close(self) -> None:
        """Stop the workers this executor started (or disconnect); safe to call twice."""

    def detect_tier(self) -> Tier:
        """The strongest sandbox tier where the bots will run."""
        return detect_tier()

    def __enter__(self) -> TableExecutor:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def void_table(match_ids: list[int], reason: str) -> list[MatchOutcome]:
    """The outcomes of a table the arena could not play: every match void for ``reason``."""
    log.error("matches %s void: %s", match_ids, reason)
    return [MatchOutcome(match_id, None, reason[:500]) for match_id in match_ids]


# ----------------------------------------------------------------- the local fork pool
def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C and ends the pool
    die_with_parent()


def die_with_parent() -> None:
    """A worker must not outlive a coordinator that was killed outright (SIGKILL, OOM)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        log.debug("no prctl here; pool workers end when their task pipe closes")


def _pin_to_cpu(index: int) -> None:
    """Keep worker ``index``, its fork servers and its bots on one CPU of those this process may use.

    A table is a relay (referee, then a bot, then the referee...): on one CPU each hand-over is a
    plain context switch, across CPUs it is a wake-up of another CPU, which costs far more (a
    virtual machine's inter-processor interrupts most of all)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) > 1:
            os.sched_setaffinity(0, {cpus[index % len(cpus)]})
    except (AttributeError, OSError):
        log.debug("no CPU affinity here; worker %d is not pinned", index)


def _worker_main(conn: Any, index: int = 0, pin: bool = False) -> None:
    """A local worker: play the tables its coordinator sends on ``conn`` until it sends None or goes away."""
    _worker_init()
    if pin:
        _pin_to_cpu(index)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            break
        if task is None:
            break
        try:
            outcomes = run_table(task)
        except BaseException as exc:  # noqa: BLE001 - run_table never raises; if it did, the table is void
            outcomes = void_table([g.match_id for g in task.games], f"a match worker failed: {exc!r}")
        try:
            conn.send(outcomes)
        except (OSError, ValueError):
            break
    close_fork_servers()


class _Worker:
    """One local worker process, its own pipe (no lock is shared with another worker), its table."""

    def __init__(self, context: Any, index: int, pin: bool) -> None:
        self.conn, theirs = context.Pipe()
        self.index = index
        self.process = context.Process(target=_worker_main, args=(theirs, index, pin), daemon=True)
        self.process.start()
        theirs.close()
        self.tasks: list[TableTask] = []  # sent to it, in order: the first is the one it plays


#: Tables a local worker holds at once: the one it plays and the next, already in its pipe, so that it
#: never waits while the coordinator records the previous one
WORKER_DEPTH = 2


class LocalPoolExecutor(TableExecutor):
    """Today's default: worker processes forked on this machine, one table at a time each (and the
    next one waiting in its pipe).

    Each worker has a pipe of its own, so a worker killed at any moment (SIGKILL, the OOM killer)
    can hold no lock another needs: the table it played comes back void, the one waiting goes to
    another worker, a new worker takes its place, and the season goes on. Start it after disposing of any
    database engine: no connection may cross the fork.
    """

    name = "local"

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ExecutorError(f"a local pool needs at least 1 worker, not {workers!r}")
        self.workers = workers
        self.name = f"local ({workers} worker{'s' if workers > 1 else ''})"
        self._context: Any = None
        self._pool: list[_Worker] = []
        self._queue: list[TableTask] = []  # submitted, not yet sent to a worker
        self._mp_logging = False

    def start(self) -> None:
        import multiprocessing_logging

        multiprocessing_logging.install_mp_handler()
        self._mp_logging = True
        self._context = multiprocessing.get_context("fork")
        # pinned only while there is a CPU for each worker: more workers than CPUs share them all
        self._pin = self.workers <= len(os.sched_getaffinity(0))
        self._pool = [_Worker(self._context, index, self._pin) for index in range(self.workers)]

    def slots(self) -> int:
        return self.workers

    def submit(self, task: TableTask) -> None:
        self._queue.append(task)
        self._dispatch()

    def _dispatch(self) -> None:
        for depth in range(WORKER_DEPTH):  # every idle worker gets a table before any gets a second
            for worker in self._pool:
                if len(worker.tasks) == depth and self._queue:
                    task = self._queue.pop(0)
                    worker.tasks.append(task)
                    try:
                        worker.conn.send(task)
                    except (OSError, ValueError):  # it died in between: the death is noticed below
                        pass

    def next_result(self) -> list[MatchOutcome]:
        """The next finished table; the table of a worker that died comes back void."""
        while True:
            self._dispatch()
            busy = [w for w in self._pool if w.tasks]
            if not busy:
                raise ExecutorError("no table is being played")
            ready = multiprocessing.connection.wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for worker in busy:
                if worker.conn in ready:
                    outcomes: list[MatchOutcome] | None
                    try:
                        outcomes = worker.conn.recv()
                    except (EOFError, OSError):
                        outcomes = None  # it died while answering
                    if outcomes is not None:
                        worker.tasks.pop(0)
                        return outcomes
                if worker.conn in ready or worker.process.sentinel in ready:
                    return self._replace(worker)

    def ready_results(self) -> list[list[MatchOutcome]]:
        found: list[list[MatchOutcome]] = []
        while True:
            busy = [w for w in self._pool if w.tasks]
            if not busy or not multiprocessing.connection.wait([w.conn for w in busy] +
                                                               [w.process.sentinel for w in busy], timeout=0):
                return found
            found.append(self.next_result())

    def _replace(self, worker: _Worker) -> list[MatchOutcome]:
        """A worker died: void the table it played, queue the one it had not started, start another
        worker in its place."""
        worker.process.join(timeout=5)
        reason = f"the worker playing it (pid {worker.process.pid}) died ({describe_exit(worker.process.exitcode)})"
        played, waiting = worker.tasks[0], worker.tasks[1:]
        self._queue[:0] = waiting
        worker.conn.close()
        self._pool[self._pool.index(worker)] = _Worker(self._context, worker.index, self._pin)
        log.error("a table worker died; a new one replaces it")
        return void_table([g.match_id for g in played.games], reason)

    def close(self) -> None:
        for worker in self._pool:
            try:
                worker.conn.send(None)  # finish and close the fork servers
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 10
        for worker in self._pool:
            while worker.process.is_alive() and time.monotonic() < deadline:
                try:  # a finished table nobody will record: read it away, or the worker blocks sending it
                    if worker.conn.poll(0.05):
                        worker.conn.recv()
                except (EOFError, OSError):
                    break
            worker.process.join(timeout=max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=5)
            worker.conn.close()
        self._pool = []
        if self._mp_logging:
            import multiprocessing_logging

            multiprocessing_logging.uninstall_mp_handler()
            self._mp_logging = False
