"""Suite-wide: the tiers (markers by file, docs in README "Tests"), and this process adopts the orphans
of what it starts, so a test finds every process it left behind among its own descendants, never
among the machine's other processes (docs/sandbox.md "Running the tests")."""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import multiprocessing.popen_fork
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from checkout import package_found_instead
from hypothesis import HealthCheck, settings

# pytest rewrites every test module's asserts (an AST pass, ~2.5 s of CPU for the suite) in each of its processes,
# and keeps the result only where bytecode may be written: under PYTHONDONTWRITEBYTECODE=1 (set on some machines)
# the controller and every xdist worker would redo it on every run. The rewritten modules go to tests/**/__pycache__
# (ignored by git); the modules of arena/, engine/ and sandbox/ still follow the environment's choice.
sys.dont_write_bytecode = False

PR_SET_CHILD_SUBREAPER = 36
TESTS = Path(__file__).resolve().parent

#: markers by test file (relative to tests/); a developer's fast tier is `-m "not slow"`
MARKERS_BY_FILE: dict[str, tuple[str, ...]] = {
    "arena/test_audit.py": ("slow",),
    "arena/test_audit_teams.py": ("slow", "hostile"),
    "arena/test_backup.py": ("slow",),
    "arena/test_demo_without_bwrap.py": ("slow",),
    "arena/test_disk_full.py": ("slow",),
    "arena/test_failure_evidence.py": ("slow",),
    "arena/test_formats.py": ("slow",),
    "arena/test_hostile_flagged_seats.py": ("slow", "hostile"),
    "arena/test_hostile_flag_gain.py": ("slow", "hostile"),
    "arena/test_provisional.py": ("slow", "hostile"),
    "arena/test_hostile_ladder.py": ("slow", "hostile"),
    "arena/test_hostile_text.py": ("slow", "hostile"),
    "arena/test_hostile_tickets.py": ("slow", "hostile"),
    "arena/test_ladder.py": ("slow",),
    "arena/test_live_loop.py": ("slow",),
    "arena/test_ladder_bots_cli.py": ("slow",),
    "arena/test_languages.py": ("slow",),
    "arena/test_pg_server.py": ("postgres",),
    "arena/test_princes_ladder.py": ("slow",),
    "arena/test_replay_text.py": ("slow",),
    "arena/test_scaling.py": ("slow",),
    "arena/test_trade_griefing_table.py": ("slow", "hostile"),
    "arena/test_secret_deals.py": ("slow",),
    "arena/test_testrun_stored.py": ("slow",),
    "arena/test_worker_death.py": ("slow",),
    "bots/test_sandboxed.py": ("slow",),
    "sandbox/test_hostile_between_bots.py": ("slow", "hostile"),
    "sandbox/test_hostile_cpu_limits.py": ("slow", "hostile"),
    "sandbox/test_hostile_escape.py": ("slow", "hostile"),
    "sandbox/test_hostile_misbehaviour.py": ("slow", "hostile"),
    "sandbox/test_hostile_programs.py": ("slow", "hostile"),
    "sandbox/test_hostile_referee_death.py": ("slow", "hostile"),
    "site/test_site_browser.py": ("slow", "browser"),
    "site/test_site_browser_pages.py": ("slow", "browser"),
    "site/test_site_browser_replay.py": ("slow", "browser"),
    "site/test_site_build.py": ("slow",),
    "site/test_site_competition.py": ("slow",),  # a competition played in the sandbox; its browser test: by fixture
    "site/test_site_damaged.py": ("slow",),  # builds the test ladder (real seasons) and its site, twice
    "site/test_site_incremental.py": ("slow",),  # builds the test ladder (real seasons), then rebuilds its site
    "site/test_site_tables.py": ("slow",),
    "site/test_site_testruns.py": ("slow",),  # plays two stored `arena test` runs in the sandbox, builds their site
    "site/test_site_phone.py": ("slow", "browser"),
    "packaging/test_wheel.py": ("slow",),
    "service/test_service.py": ("slow",),
    "service/test_service_fair.py": ("slow", "hostile"),
    "service/test_service_queue.py": ("slow",),
    "service/test_service_logs.py": ("slow",),
    "service/test_live_ladder.py": ("slow",),
    "service/test_service_status.py": ("slow",),
    "service/test_service_wait.py": ("slow",),
    "service/test_service_tickets.py": ("slow",),  # a real server, and real submissions with their smoke games
    "human/test_human_games.py": ("slow",),
    "human/test_human_input.py": ("slow",),
}
#: the tiers whose files run first, in this order (the rest keeps the order of its files)
FIRST = ("unprivileged", "browser", "hostile", "slow")
#: the longest files (seconds alone, a suite run on the 2-core VM of 2026-12-05), started before any other,
#: longest first: a long file started last finishes alone while the other worker idles. A stale figure only
#: costs balance, never a verdict.
LONGEST: dict[str, int] = {
    "packaging/test_unprivileged.py": 100,
    "arena/test_live_loop.py": 85,
    "arena/test_scaling.py": 50,
    "arena/test_audit.py": 50,
    "service/test_service_fair.py": 40,
    "service/test_live_ladder.py": 40,
    "arena/test_trade_griefing_table.py": 38,
    "service/test_service_wait.py": 35,
    "arena/test_hostile_flag_gain.py": 35,
    "service/test_service_queue.py": 30,
    "service/test_service_status.py": 30,
    "arena/test_audit_teams.py": 30,
    "arena/test_worker_death.py": 30,
    "site/test_site_build.py": 30,
    "code/test_types.py": 27,
    "packaging/test_wheel.py": 26,
    "service/test_service_tickets.py": 20,
    "site/test_site_competition.py": 18,
}
#: markers by fixture: whatever uses it needs what it starts
MARKERS_BY_FIXTURE: dict[str, tuple[str, ...]] = {
    "postgres": ("postgres",),
    "browser": ("slow", "browser"),
    "account": ("slow", "unprivileged"),
}


# The same examples every run, however busy the machine: no per-example deadline or speed check, a
# fixed seed. HYPOTHESIS_PROFILE=explore draws fresh examples (a new failure is worth a test of its own).
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True,
                          database=None)
settings.register_profile("explore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers more than the machine has cores. A third of the suite's wall clock on 2 cores is spent
    waiting (servers, sandboxes, seasons' subprocesses, bounds waited out): quiet, 2 workers took 542 s at 66 % of
    the CPUs, 3 workers 475 s; another day 3 workers 450 s and 4 workers 427 s (docs/benchmarks.md, "The suite's
    length")."""
    return (os.cpu_count() or 1) + 2


def pytest_configure(config: pytest.Config) -> None:
    gone = [name for name in [*MARKERS_BY_FILE, *LONGEST] if not (TESTS / name).is_file()]
    if gone:  # a renamed file would quietly leave its tier
        raise pytest.UsageError(f"tests/conftest.py names test files that do not exist: {gone!r}")
    # most tests run `python -m arena` in a folder of their own: it must find this checkout, or nearly every one of
    # them fails with "No module named arena" or tests another clone's code
    elsewhere = None if hasattr(config, "workerinput") else package_found_instead()
    if elsewhere is not None:
        raise pytest.UsageError(f"the arena package that commands started elsewhere import is {elsewhere}, not this "
                                f"checkout's: run python3 -m pip install -e '.[test]' in {TESTS.parent}")
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist would hand out files by their number of tests,
        config.option.loadscopereorder = False     # the longest (few tests each) last: keep the order made below
    # Without this an orphan (a referee killed mid-game, a double fork) is reparented to init and
    # leaves the tree; a bot process of another arena on the machine is never in it.
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def reap_adopted_orphans() -> None:
    """Reap the ended orphans this process adopted, never a child it started itself (its Popen would
    read exit status 0). A zombie keeps its pid and counts against its uid's RLIMIT_NPROC, which a
    sandbox slot's next bot would inherit the lack of."""
    try:
        if os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            return  # no child has ended: the usual case, one system call
    except ChildProcessError:
        return  # no child at all
    ours = {obj.pid for obj in gc.get_objects()
            if isinstance(obj, (subprocess.Popen, multiprocessing.popen_fork.Popen)) and obj.returncode is None}
    me = str(os.getpid()).encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in ours:
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                state, parent = f.read().rsplit(b")", 1)[1].split()[:2]
        except OSError:
            continue
        if state == b"Z" and parent == me:
            try:
                os.waitpid(int(entry.name), os.WNOHANG)
            except ChildProcessError:
                pass


@pytest.fixture(autouse=True)
def _reap_orphans() -> Iterator[None]:
    yield
    reap_adopted_orphans()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path))
        names = MARKERS_BY_FILE.get(path.relative_to(TESTS).as_posix(), ()) if path.is_relative_to(TESTS) else ()
        for fixture, marks in MARKERS_BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                names += marks
        for name in dict.fromkeys(names):
            item.add_marker(name)
    # Longest first: parallel workers (pytest-xdist, by file) take files in this order, and a long file
    # started last would finish alone while the other workers idle.
    def order(item: pytest.Item) -> tuple[int, int]:
        path = Path(str(item.path))
        name = path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else ""
        tier = next((n for n, mark in enumerate(FIRST) if item.get_closest_marker(mark)), len(FIRST))
        return -LONGEST.get(name, 0), tier
    items.sort(key=order)
