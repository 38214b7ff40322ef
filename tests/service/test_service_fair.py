"""The service is fair under load (issue 41, item 6): an upload's smoke games have a wall-clock budget, and
uploads are checked by several workers that take them round-robin across authors, one upload of an author at
a time, so one author's slow uploads delay only that author. A worker killed mid-check loses nothing."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from service_helpers import add_author, http, start_server, wait_verdict

from arena.service.spool import Spool, TicketState, Verdict
from forked_arena import arena_run

HERE = Path(__file__).resolve().parent
BOTS = HERE.parents[1] / "bots"
SLOW = (HERE / "slow_bot.py").read_bytes()


def bots(db: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT bot.name, bot.author, botversion.number FROM botversion JOIN bot ON "
                                 "bot.id = botversion.bot_id ORDER BY bot.name, botversion.number"))


def test_one_authors_slow_uploads_delay_only_that_author_and_are_refused_at_the_budget(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    tokens = {name: add_author(db, name) for name in ("ann", "bob", "cy")}
    server = start_server(db, tmp_path / "spool", "--upload-budget", "30", "--upload-workers", "2")
    try:
        # ann's second upload only has to wait its turn: a syntax error, refused at once when a worker takes it (a
        # second slow one would hold the test another whole budget); were it taken beside her first, it would
        # have its verdict before bob's
        slow = [http("POST", f"{server.url}/api/bots/slowpoke?filename={name}", tokens["ann"], body)
                for name, body in (("slowpoke.py", SLOW), ("slowpoke2.py", b"def act(message:\n"))]
        assert [status for status, _ in slow] == [202, 202], slow
        status, honest = http("POST", f"{server.url}/api/bots/bobs?filename=bobs.py", tokens["bob"],
                              (BOTS / "greedy_bot.py").read_bytes())
        assert status == 202, honest
        verdict = wait_verdict(server, tokens["bob"], honest["id"])
        # the causal claim: bob's verdict is in while neither of ann's uploads has one (her slow one holds its
        # worker for its whole budget, and her second cannot start before her first is done)
        pending = [http("GET", f"{server.url}/api/uploads/{ticket['id']}", tokens["ann"])[1]["state"]
                   for _, ticket in slow]
        assert verdict["state"] == "accepted" and verdict["out"][0].startswith("bobs version 1 registered"), verdict
        assert pending == ["queued", "queued"]
        # the harmless twin: two ordinary uploads of one author, both accepted (one after the other)
        twins = [http("POST", f"{server.url}/api/bots/cys?filename=cys.py", tokens["cy"],
                      (BOTS / name).read_bytes()) for name in ("random_bot.py", "trader_bot.py")]
        assert [status for status, _ in twins] == [202, 202], twins
        for (_, ticket), number in zip(twins, (1, 2)):
            twin = wait_verdict(server, tokens["cy"], ticket["id"])
            assert twin["state"] == "accepted" and twin["out"][0].startswith(f"cys version {number} registered"), twin
        refused = wait_verdict(server, tokens["ann"], slow[0][1]["id"])
        assert refused["state"] == "refused" and refused["version"] is None, refused
        assert refused["refusal"].startswith("'slowpoke.py' rejected: its smoke games took longer than 30 s"), \
            refused
        assert refused["refusal"].endswith("nothing was stored") and "\n" not in refused["refusal"]
        second = wait_verdict(server, tokens["ann"], slow[1][1]["id"])
        assert second["state"] == "refused" and second["version"] is None, second
        assert second["refusal"] == "'slowpoke2.py' has a syntax error at line 1: '(' was never closed", second
    finally:
        server.stop()
    assert bots(db) == [("bobs", "bob", 1), ("cys", "cy", 1), ("cys", "cy", 2)]  # nothing of ann's stored


def test_a_local_submit_over_its_budget_is_refused_in_one_line_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    (tmp_path / "slowpoke.py").write_bytes(SLOW)
    done = arena_run(["--db", f"sqlite:///{db}", "submit", str(tmp_path / "slowpoke.py"),
                           "--budget", "3"], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert f"'{tmp_path / 'slowpoke.py'}' rejected: its smoke games took longer than 3 s" in done.stderr
    assert "nothing was stored" in done.stderr.strip().splitlines()[-1]
    assert bots(db) == []
    remote = arena_run(["submit", str(tmp_path / "slowpoke.py"), "--budget", "3", "--to",
                             "http://127.0.0.1:9"], capture_output=True, text=True, timeout=60)
    assert remote.returncode == 2 and "--budget are for a local submit" in remote.stderr, remote.stderr


def test_an_upload_given_back_after_a_machine_fault_waits_behind_the_other_authors(tmp_path: Path) -> None:
    """An upload whose check fails as the machine's fault is given back to the queue: it is tried again, but after
    the uploads of the other authors that were waiting (before, it stayed first in line and, failing again and
    again, stalled the queue for everyone)."""
    spool = Spool(tmp_path / "spool")
    stuck, a1, b1 = (spool.accept(author, "x", "x.py", b"#") for author in ("mallory", "ann", "bob"))
    claim = spool.claim()
    assert claim is not None and claim.ticket.id == stuck.id
    spool.release(claim)
    order = []
    while (held := spool.claim()) is not None:
        order.append(held.ticket.id)
        spool.finish(Verdict(held.ticket.id, held.ticket.author, "x", TicketState.REFUSED), held)
    assert order == [a1.id, b1.id, stuck.id]


def test_claims_take_authors_in_turn_never_two_of_one_author_at_once(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    a1, a2, b1, c1 = (spool.accept(author, "x", "x.py", b"#") for author in ("ann", "ann", "bob", "cy"))
    first, second, third = spool.claim(), spool.claim(), spool.claim()  # three workers (three open locks)
    assert [c.ticket.id for c in (first, second, third) if c] == [a1.id, b1.id, c1.id]
    assert spool.claim() is None  # ann's second waits while her first is checked, with a worker free
    assert first is not None and second is not None and third is not None
    spool.finish(Verdict(a1.id, "ann", "x", TicketState.REFUSED), first)
    again = spool.claim()
    assert again is not None and again.ticket.id == a2.id
    for claim in (second, third, again):
        spool.finish(Verdict(claim.ticket.id, claim.ticket.author, "x", TicketState.REFUSED), claim)
    assert spool.queued() == 0 and not list(spool.working.iterdir())
    # one worker: ann's second upload waits behind bob's, which arrived while her first was checked
    a1, a2 = spool.accept("ann", "x", "x.py", b"#"), spool.accept("ann", "x", "x.py", b"#")
    held = spool.claim()
    assert held is not None and held.ticket.id == a1.id
    b1 = spool.accept("bob", "x", "x.py", b"#")
    spool.finish(Verdict(a1.id, "ann", "x", TicketState.REFUSED), held)
    order = []
    while (held := spool.claim()) is not None:
        order.append(held.ticket.id)
        spool.finish(Verdict(held.ticket.id, held.ticket.author, "x", TicketState.REFUSED), held)
    assert order == [b1.id, a2.id]


def test_a_worker_killed_mid_check_gives_its_upload_back_whole(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    ticket = spool.accept("ann", "x", "x.py", b"# the upload")
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom pathlib import Path\n"
                               "from arena.service.spool import Spool\n"
                               "claim = Spool(Path(sys.argv[1])).claim()\nprint(claim.ticket.id, flush=True)\n"
                               "time.sleep(600)\n", str(spool.root)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == ticket.id
        assert (spool.working / f"{ticket.id}.lock").read_text() == f"{holder.pid}\n"
        assert spool.claim() is None  # checked by the other process: nobody takes it twice
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(30)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(30)
    claim = spool.claim()
    assert claim is not None and claim.ticket == ticket  # queued again, whole
    spool.finish(Verdict(ticket.id, "ann", "x", TicketState.ACCEPTED, version=1), claim)
    found = spool.lookup(ticket.id)
    assert found is not None and found[1]["state"] == "accepted" and spool.claim() is None
