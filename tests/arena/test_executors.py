"""The local pool's bookkeeping with a scripted table player (no sandbox, no database): every table
comes back exactly once, a worker holds the next table while it plays one, and a worker that dies
voids only the table it was playing -- the one waiting in its pipe is played by another worker."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
from arena_helpers import missing

import arena.ladder.executors as executors
from arena.play.tables import GameSpec, MatchOutcome, TableTask
from sandbox import Limits, Tier

DIES_AT = 5  # the scripted worker playing the table of this match dies


def task(match_id: int) -> TableTask:
    return TableTask("classic-v2", (), (GameSpec(match_id, seed=match_id, seating=()),), Limits(), Tier.PLAIN)


def scripted_table(task: TableTask) -> list[MatchOutcome]:
    match_id = task.games[0].match_id
    if match_id == DIES_AT:
        os._exit(9)  # as if SIGKILLed by the OOM killer
    time.sleep(0.05)
    return [MatchOutcome(match_id, None, f"played by {os.getpid()}")]


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[executors.LocalPoolExecutor]:
    monkeypatch.setattr(executors, "run_table", scripted_table)  # the forked workers inherit it
    executor = executors.LocalPoolExecutor(2)
    executor.start()
    yield executor
    executor.close()


def test_every_table_comes_back_once_and_a_dead_worker_costs_one_table(pool: executors.LocalPoolExecutor) -> None:
    for match_id in range(1, 11):
        pool.submit(task(match_id))
    assert sum(len(w.tasks) for w in pool._pool) == 4  # two workers, two tables each: one played, one waiting
    outcomes = [o for _ in range(10) for o in pool.next_result()]
    assert sorted(o.match_id for o in outcomes) == list(range(1, 11))
    died = [o for o in outcomes if o.match_id == DIES_AT]
    assert died[0].machine_fault is not None and "died" in died[0].machine_fault
    played = [o for o in outcomes if o.match_id != DIES_AT]
    assert all(o.machine_fault and o.machine_fault.startswith("played by") for o in played)
    assert len({o.machine_fault for o in played}) >= 3  # the dead worker's replacement played too
    with pytest.raises(executors.ExecutorError, match="no table is being played"):
        pool.next_result()


def big_table(task: TableTask) -> list[MatchOutcome]:
    return [MatchOutcome(task.games[0].match_id, None, "x" * 1_000_000)]  # far more than a pipe holds


def test_close_reads_away_the_tables_nobody_will_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop (SIGTERM) closes the pool with tables in flight: a worker that finished one must not block on
    sending its outcomes to a coordinator that no longer reads them (it did, until close killed it at 10 s)."""
    monkeypatch.setattr(executors, "run_table", big_table)
    executor = executors.LocalPoolExecutor(2)
    executor.start()
    processes = [w.process for w in executor._pool]
    for match_id in range(1, 5):
        executor.submit(task(match_id))
    time.sleep(0.5)  # every worker has played its tables and is sending the first one's outcomes
    started = time.monotonic()
    executor.close()
    assert time.monotonic() - started < 5
    assert [p.exitcode for p in processes] == [0, 0]  # they ended by themselves, not killed


def gated(gate: Path) -> Callable[[TableTask], list[MatchOutcome]]:
    """A table player that finishes once ``gate`` exists."""
    def play(task: TableTask) -> list[MatchOutcome]:
        while not gate.exists():
            time.sleep(0.01)
        return [MatchOutcome(task.games[0].match_id, None, "played")]
    return play


def test_tables_finished_meanwhile_come_back_at_once_and_none_is_waited_for(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    """``ready_results``: what a coordinator records in one transaction with the table it waited for."""
    gate = tmp_path / "gate"
    monkeypatch.setattr(executors, "run_table", gated(gate))
    executor = executors.LocalPoolExecutor(2)
    executor.start()
    try:
        check_ready_results(executor, gate)
    finally:
        executor.close()


def check_ready_results(executor: executors.TableExecutor, gate: Path) -> None:
    """Four tables handed to ``executor`` (tables that end once ``gate`` exists): ``ready_results`` gives none while
    none has ended, without waiting, then every table once besides the one ``next_result`` waited for."""
    for match_id in range(1, 5):
        executor.submit(task(match_id))
    assert executor.ready_results() == []  # none is finished: it returns without waiting
    gate.touch()
    tables = [executor.next_result()]
    deadline = time.monotonic() + 60
    while sum(map(len, tables)) < 4 and time.monotonic() < deadline:
        tables += executor.ready_results()
        time.sleep(0.01)
    assert sorted(o.match_id for table in tables for o in table) == [1, 2, 3, 4]
    assert all(len(table) == 1 for table in tables)  # each table as next_result gives it
    assert executor.ready_results() == []


def test_a_dask_clusters_tables_finished_meanwhile_come_back_at_once(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """The Dask executor's ``ready_results``, on a cluster of two worker threads in this process (so that they play
    the scripted tables): ``check_ready_results``."""
    try:
        import distributed
    except ImportError:
        missing("dask distributed is not installed (pip install -e '.[test]')")
    from arena.ladder import dask_executor

    gate = tmp_path / "gate"
    monkeypatch.setattr(dask_executor, "_run_table_on_worker", gated(gate))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        executor = dask_executor.DaskExecutor(cluster.scheduler_address)
        executor.start()
        try:
            check_ready_results(executor, gate)
        finally:
            executor.close()
