"""Hostile bots trying to escape the strong tier: reading, writing, network, raw system calls, exec, and
the bombs only after a probe in the same test has shown fork/threads/kill are denied there; and what
the plain tier does not claim to stop.

The battery's promises and its ``run``: hostile_helpers.py.
"""
from __future__ import annotations

import os
import platform
import socket
from pathlib import Path

import pytest
from hostile_helpers import ROOT, run, strong
from sandbox_helpers import SECRET_MARKER, assert_gone, fast_limits, hostile_bundle, message_of

from sandbox import BotProcess, Tier
from sandbox import isolation
from sandbox.isolation import Confinement


# -- strong tier only ----------------------------------------------------------------------------


@strong
def test_cannot_read_sources_database_or_secrets(tier: Tier, witness: BotProcess, tmp_path: Path) -> None:
    secret = tmp_path / "root-only.txt"
    secret.write_text("TOP SECRET " + SECRET_MARKER)
    secret.chmod(0o600)
    db = tmp_path / "arena.sqlite"
    db.write_bytes(b"SQLite format 3\x00" + SECRET_MARKER.encode())
    paths = [str(secret), str(db), str(tmp_path), str(ROOT / "sandbox" / "process.py"), str(ROOT),
             "/run/bohnanza-sandbox"]
    replies, _ = run("read_files", tier, [{"type": "decide", "paths": paths, "pids": [os.getpid(), witness.pid]}])
    results = message_of(replies[0])["results"]
    for path in paths:
        assert results[path].startswith("error:"), (path, results[path])
    for pid in (os.getpid(), witness.pid):
        assert results[f"/proc/{pid}/environ"].startswith("error:")
    assert results["/work"].startswith("error:") and results["/root"] != "ok:.pyenv,.ssh"


@strong
def test_cannot_write_or_delete_files(tier: Tier, witness: BotProcess, tmp_path: Path) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("keep")
    target = tmp_path / "new.txt"
    replies, _ = run("write_files", tier, [{"type": "decide", "paths": [str(target), str(ROOT / "pwned")],
                                            "delete": [str(keep)], "usual_places": True}])
    results = message_of(replies[0])["results"]
    assert results[str(target)].startswith("error:") and results["rm " + str(keep)].startswith("error:")
    assert results["/bohnanza-hostile"].startswith("error:") and results["/tmp/bohnanza-hostile"].startswith("error:")
    assert not target.exists() and keep.read_text() == "keep" and not (ROOT / "pwned").exists()
    assert not Path("/tmp/bohnanza-hostile").exists() and not Path("/dev/shm/bohnanza-hostile").exists()


@strong
def test_no_network(tier: Tier, witness: BotProcess) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0bohnanza-test-" + str(os.getpid()))
    abstract.listen()
    abstract.setblocking(False)
    try:
        replies, _ = run("network", tier, [{"type": "decide", "port": server.getsockname()[1],
                                            "abstract": "bohnanza-test-" + str(os.getpid())}])
        for sock in (server, abstract):
            with pytest.raises(BlockingIOError):
                sock.accept()
    finally:
        server.close()
        abstract.close()
    results = message_of(replies[0])["results"]
    assert results == {"tcp": "error:1", "udp": "error:1", "unix-abstract": "error:1", "raw-socket": "error:1"}


def outer_seccomp() -> bool:
    """Whether this test process already runs under a seccomp filter (a container's, say)."""
    status = Path("/proc/self/status").read_text()
    return any(line.split()[1:] == ["2"] for line in status.splitlines() if line.startswith("Seccomp:"))


x86_64_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="raw_syscalls.py knows x86_64 numbers only")


@strong
@x86_64_only
def test_raw_denied_syscalls_get_eperm_from_the_filter(tier: Tier, witness: BotProcess) -> None:
    replies, _ = run("raw_syscalls", tier, [{"type": "decide"}])
    results = message_of(replies[0])["results"]
    assert len(results) == 8 and results == {name: "error:1" for name in results}, results


@x86_64_only
@pytest.mark.skipif(outer_seccomp(), reason="an outer seccomp filter (e.g. a container's) answers these calls itself")
def test_raw_syscalls_run_for_real_without_the_filter() -> None:
    """The control for the test above: in the plain tier (no seccomp) the same calls are not EPERM,
    so that EPERM is the filter's answer, not the kernel's."""
    replies, _ = run("raw_syscalls", Tier.PLAIN, [{"type": "decide"}])
    results = message_of(replies[0])["results"]
    assert len(results) == 8 and "error:1" not in results.values(), results


@strong
def test_no_exec(tier: Tier, witness: BotProcess) -> None:
    replies, _ = run("exec_shell", tier, [{"type": "decide"}])
    results = message_of(replies[0])["results"]
    assert (results["system"] != 0 and str(results["subprocess"]).startswith("error:")
            and results["execv"].startswith("error:"))
    assert not Path("/tmp/bohnanza-shell").exists()


@strong
def test_bombs_only_after_probe_shows_they_are_denied(tier: Tier, witness: BotProcess) -> None:
    bot = BotProcess.start(hostile_bundle("process_probe"), fast_limits(), tier)
    reply = bot.request({"type": "decide"})
    assert reply.message is not None and bot.pid is not None
    probe = message_of(reply)["results"]
    with open(f"/proc/{bot.pid}/status") as f:  # from the outside: the bot itself has no /proc
        status = {k: v.strip() for k, v in (line.split(":", 1) for line in f)}
    userns = os.readlink(f"/proc/{bot.pid}/ns/user")
    bot.close()
    assert_gone(bot)
    if isolation.confinement() is Confinement.UID_SLOTS:
        assert probe["uid"] != 0 and probe["gid"] != 0 and probe["groups"] == []
    else:  # root of a user namespace of its own, without a single capability
        assert userns != os.readlink("/proc/self/ns/user") and probe["uid"] == 0
    assert probe["proc"] is False
    assert status["Seccomp"] == "2" and status["NoNewPrivs"] == "1"
    assert status["CapEff"] == status["CapPrm"] == status["CapAmb"] == "0000000000000000"
    assert probe["fork"] == "error:1" and probe["thread"].startswith("error:") and probe["kill-parent-0"] == "error:1"
    replies, _ = run("bombs", tier, [{"type": "decide"}])
    results = message_of(replies[0])["results"]
    assert results == {"forks": 0, "threads": 0, "kill-all": "error:1", "kill-parent": "error:1",
                       "kill-init": "error:1"}


def test_plain_tier_does_not_claim_file_isolation(tmp_path: Path) -> None:
    """Documents the plain tier's limit: RLIMIT_FSIZE=0 stops contents, not (empty) file creation."""
    target = tmp_path / "plain.txt"
    replies, _ = run("write_files", Tier.PLAIN, [{"type": "decide", "paths": [str(target)]}])
    assert message_of(replies[0])["results"][str(target)] == "error:OSError"  # EFBIG
    assert target.stat().st_size == 0
