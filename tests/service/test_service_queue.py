"""The service's queue: twenty uploads at once, an upload while a season holds the database, a server killed
mid-upload and mid-check, and a database that cannot be written (the upload waits, it is not lost)."""
from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from service_helpers import add_author, http, start_server, wait_verdict
from sqlmodel import Session, create_engine

from arena.submissions.accounts import add_author as add_account
from arena.db import make_engine

from arena.service.spool import Spool, TicketState
from arena.service.worker import WorkerSettings, run_once
from sandbox import Limits, detect_tier
from forked_arena import arena_popen, arena_run

BOTS = Path(__file__).resolve().parents[2] / "bots"


def versions(db: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT bot.name, botversion.number FROM botversion JOIN bot ON bot.id = "
                                 "botversion.bot_id ORDER BY bot.name, botversion.number"))


def test_twenty_concurrent_uploads_are_each_queued_once_and_each_answered(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        tokens = [add_account(session, f"author{i}")[1] for i in range(20)]
    engine.dispose()
    server = start_server(db, tmp_path / "spool", "--rate", "50")
    try:
        def upload(i: int) -> tuple[int, dict[str, str]]:
            body = f"# upload {i}\ndef act(message:\n".encode()  # a syntax error: answered without a game
            return http("POST", f"{server.url}/api/bots/b{i}?filename=b{i}.py", tokens[i], body)

        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(upload, range(20)))
        assert [status for status, _ in answers] == [202] * 20
        ids = [answer["id"] for _, answer in answers]
        assert len(set(ids)) == 20
        for i, ticket in enumerate(ids):
            verdict = wait_verdict(server, tokens[i], ticket)
            assert verdict["bot"] == f"b{i}" and verdict["state"] == "refused", verdict
            assert verdict["refusal"] == f"'b{i}.py' has a syntax error at line 2: '(' was never closed"
        assert len(list((server.spool / "done").iterdir())) == 20 and not list((server.spool / "queue").iterdir())
        # one author may have two uploads waiting, not more: no one fills the queue for everybody
        source = (BOTS / "random_bot.py").read_bytes()
        waiting = [http("POST", f"{server.url}/api/bots/w{i}?filename=w{i}.py", tokens[0], source) for i in range(3)]
        assert [status for status, _ in waiting] == [202, 202, 429]
        assert "2 uploads of yours are waiting" in waiting[2][1]["error"]
        assert http("POST", f"{server.url}/api/bots/w9?filename=w9.py", tokens[1], b"x = (\n")[0] == 202
    finally:
        server.stop()


def test_an_upload_while_a_season_holds_the_database_is_queued_not_lost(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    token = add_author(db, "ann")
    season = arena_popen(["--db", f"sqlite:///{db}", "-q", "season", "run",
                               "--games", "40", "--players", "3", "--bosses", "random,greedy,trader"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    server = start_server(db, tmp_path / "spool")
    try:
        lock = db.with_name(db.name + ".lock")
        while season.poll() is None and not (lock.exists() and lock.read_text().startswith("pid")):
            time.sleep(0.1)  # the season holds the database (its lock file names it)
        assert season.poll() is None, season.communicate()
        status, ticket = http("POST", f"{server.url}/api/bots/mine?filename=mine.py", token,
                              (BOTS / "greedy_bot.py").read_bytes())
        assert status == 202 and ticket["state"] == "queued"
        verdict = wait_verdict(server, token, ticket["id"])
        assert verdict["state"] == "accepted" and verdict["out"][0].startswith("mine version 1 registered"), verdict
        out, err = season.communicate(timeout=600)
        assert season.returncode == 0, err
    finally:
        if season.poll() is None:
            season.kill()
        server.stop()
    assert versions(db)[-1:] == [("mine", 1)] or ("mine", 1) in versions(db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM \"match\" WHERE status = 'done'").fetchone() == (40,)


def test_a_server_killed_mid_upload_or_mid_check_stores_nothing_half_and_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    token = add_author(db, "ann")
    spool = tmp_path / "spool"
    server = start_server(db, spool)
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:  # half a body, then the kill
        sock.sendall(f"POST /api/bots/half?filename=half.py HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {token}\r\n"
                     f"Content-Length: 5000\r\n\r\n".encode() + b"#" * 1000)
        time.sleep(0.5)
        server.stop(signal.SIGKILL)
    (spool / "tmp" / "leftover.part").write_bytes(b"# what a killed write leaves")  # as a kill mid-write would
    server = start_server(db, spool)
    second = arena_run(["--db", f"sqlite:///{db}", "serve", "--bind",
                             "127.0.0.1:0", "--spool", str(spool)], capture_output=True, text=True, timeout=60)
    assert second.returncode == 2 and "another 'arena serve' uses it" in second.stderr, second.stderr
    try:
        assert not list((spool / "tmp").iterdir()) and not list((spool / "queue").iterdir())
        # a bot that thinks 0.03 s a decision: its smoke games take seconds (several hundred decisions), so the
        # kill, sent as soon as the worker has taken the upload, lands while it is checked
        unhurried = (Path(__file__).with_name("slow_bot.py").read_text()
                     .replace("time.sleep(0.85)", "time.sleep(0.03)").encode())
        status, ticket = http("POST", f"{server.url}/api/bots/whole?filename=whole.py", token, unhurried)
        assert status == 202
        taken = spool / "working" / f"{ticket['id']}.lock"  # a worker's pid in it: its claim, the games follow
        deadline = time.monotonic() + 120
        while not (taken.exists() and taken.read_text().strip()):
            assert time.monotonic() < deadline, "no worker took the upload"
            time.sleep(0.02)
        server.stop(signal.SIGKILL)
        assert json.loads((spool / "queue" / f"{ticket['id']}.json").read_text())["name"] == "whole"
        server = start_server(db, spool)
        verdict = wait_verdict(server, token, ticket["id"])
        assert verdict["state"] == "accepted", verdict
    finally:
        server.stop()
    assert versions(db) == [("whole", 1)]  # the half upload stored nothing; the whole one once


def test_a_database_that_cannot_be_written_keeps_the_upload_queued(tmp_path: Path) -> None:
    """The worker meets a database it cannot write (another writer holds it past the busy timeout): the
    upload stays queued, and the next round stores it."""
    db = tmp_path / "ladder.sqlite"
    add_author(db, "ann")
    spool = Spool(tmp_path / "spool")
    ticket = spool.accept("ann", "mine", "mine.py", (BOTS / "greedy_bot.py").read_bytes())
    engine = create_engine(f"sqlite:///{db}", connect_args={"timeout": 0.2})
    settings = WorkerSettings(Limits(), detect_tier())
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert run_once(engine, spool, settings) == 0
        assert [t.id for t in spool.pending()] == [ticket.id]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert run_once(engine, spool, settings) == 1
    found = spool.lookup(ticket.id)
    assert found is not None and found[0] == "ann" and found[1]["state"] == TicketState.ACCEPTED.value
    assert versions(db) == [("mine", 1)]
    engine.dispose()


def test_an_upload_whose_checks_keep_meeting_a_machine_fault_is_refused_in_the_end(tmp_path: Path) -> None:
    """A fault that never clears (here a database held for good) no longer keeps an upload queued for ever, its
    author's later uploads behind it: after ``give_up_faults`` tries over ``give_up_seconds`` it is refused, saying
    the machine was at fault and nothing was stored; the count is the ticket's own."""
    db = tmp_path / "ladder.sqlite"
    add_author(db, "ann")
    spool = Spool(tmp_path / "spool")
    first = spool.accept("ann", "mine", "mine.py", (BOTS / "greedy_bot.py").read_bytes())
    engine = create_engine(f"sqlite:///{db}", connect_args={"timeout": 0.1})
    settings = WorkerSettings(Limits(), detect_tier(), give_up_faults=3, give_up_seconds=0.0)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert run_once(engine, spool, settings) == 0
        second = spool.accept("ann", "later", "later.py", (BOTS / "random_bot.py").read_bytes())
        assert run_once(engine, spool, settings) == 0
        assert [t.id for t in spool.pending()] == [first.id, second.id]  # one of ann's at a time: hers waits
        assert run_once(engine, spool, WorkerSettings(Limits(), detect_tier(), give_up_faults=3,
                                                      give_up_seconds=3600.0)) == 0  # 3 tries, not for an hour
        assert run_once(engine, spool, settings) == 1  # the 4th: refused (finished), then the later one's fault
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    found = spool.lookup(first.id)
    assert found is not None and found[1]["state"] == TicketState.REFUSED.value
    refusal = found[1]["refusal"]
    assert refusal.startswith("the arena could not check this upload: 4 tries over 0 minutes met a fault of the "
                              "arena's machine, not of your bot (OperationalError); nothing was stored"), refusal
    assert [t.id for t in spool.pending()] == [second.id]
    assert run_once(engine, spool, settings) == 1  # its own count: 1 fault, then stored
    later = spool.lookup(second.id)
    assert later is not None and later[1]["state"] == TicketState.ACCEPTED.value
    assert versions(db) == [("later", 1)]
    engine.dispose()
