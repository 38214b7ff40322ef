"""The living ladder's side jobs (arena/ladder/side_jobs.py): each `arena` command is forked from a server that
imported the command line once, runs in a session of its own with the environment it was given, says its failure
in one logged line with the command's last words, and is ended when the loop stops without waiting for it."""
from __future__ import annotations

import logging
import os
import socket
import time
from pathlib import Path
from typing import Iterator

import pytest

from arena.ladder.side_jobs import SideJob, arena_command


@pytest.fixture(autouse=True, scope="module")
def _stop_the_server() -> Iterator[None]:
    """The side jobs' server these tests start ends with them, so that no later test of this worker finds it among
    its descendants (multiprocessing's own way to stop it, as its tests do)."""
    yield
    from multiprocessing import forkserver

    getattr(forkserver._forkserver, "_stop")()


def ended(job: SideJob, codes: list[int], timeout: float = 120) -> int:
    """Poll ``job`` until it has ended; its exit code."""
    deadline = time.monotonic() + timeout
    while not codes:
        assert time.monotonic() < deadline, f"{job.name} did not end in {timeout} s"
        job.poll(time.monotonic())
        time.sleep(0.05)
    return codes[0]


def test_a_job_runs_its_command_with_the_environment_given(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    codes: list[int] = []
    env = dict(os.environ, ARENA_DB=f"sqlite:///{db}")
    job = SideJob("the bots", arena_command("bots"), every=0.0, env=env, on_end=lambda j, code: codes.append(code))
    job.poll(time.monotonic())
    assert ended(job, codes) == 0
    assert db.is_file()  # the database of the environment it was given, not the test's
    assert job.process is None and not job.wanted
    job.poll(time.monotonic())
    assert job.process is None  # not started again until something changed (``wanted``)


def test_a_failed_job_is_one_logged_line_with_the_commands_last_words(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    codes: list[int] = []
    env = dict(os.environ, ARENA_DB=f"sqlite:///{tmp_path / 'ladder.sqlite'}")
    job = SideJob("the site build", arena_command("site", "build", "--out", "/sys/site"), every=0.0, env=env,
                  on_end=lambda j, code: codes.append(code))
    with caplog.at_level(logging.ERROR, logger="arena.ladder.side_jobs"):
        job.poll(time.monotonic())
        assert ended(job, codes) == 2
    said = [r.getMessage() for r in caplog.records]
    assert said == ["the site build failed (exit 2): Error: cannot write the site to '/sys/site': '/sys' takes no "
                    "new file (Permission denied)"]


def test_a_job_has_a_session_of_its_own_and_the_loop_stopping_ends_it_after_the_grace(tmp_path: Path) -> None:
    """A job still running when the loop stops gets ``grace`` seconds, then is killed: the loop never waits on it.
    It runs in a session of its own (a signal to the loop's process group misses it), forked from the server that
    imported the command line once."""
    with socket.socket() as silent:  # a service that takes the connection and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        codes: list[int] = []
        env = dict(os.environ, ARENA_DB=f"sqlite:///{tmp_path / 'ladder.sqlite'}", ARENA_TOKEN="t" * 32)
        job = SideJob("the status", arena_command("status", "--to", f"http://127.0.0.1:{silent.getsockname()[1]}"),
                      every=0.0, env=env, on_end=lambda j, code: codes.append(code))
        job.poll(time.monotonic())
        assert job.process is not None and job.process.pid is not None
        pid = job.process.pid
        deadline = time.monotonic() + 60
        while os.getsid(pid) != pid and time.monotonic() < deadline:  # until the job has made its session
            time.sleep(0.05)
        assert os.getsid(pid) == pid != os.getsid(0)
        parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        server = Path(f"/proc/{parent}/cmdline").read_bytes()
        assert parent != os.getpid() and b"multiprocessing.forkserver" in server  # forked, not a new interpreter
        job.stop(grace=0.5)
        assert codes == [-9] and job.process is None  # killed: the client had not given up on its own
