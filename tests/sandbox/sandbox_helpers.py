"""Helpers for the sandbox tests: available tiers, bot bundles, leftover checks."""
from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path
from typing import Any

import pytest

from sandbox import BotBundle, BotProcess, Limits, Reply, Tier, detect_tier
from sandbox.languages import language_of_file
from sandbox.procscan import live_descendants, processes_of_uid, processes_with_tag

HOSTILE = Path(__file__).with_name("hostile")
#: Put in the referee's environment; must never show up in anything a bot outputs.
SECRET_MARKER = "deck-seed-7f3a9c1e5b"
os.environ["BOHNANZA_TEST_SECRET"] = SECRET_MARKER

ECHO_SOURCE = "def act(message):\n    return {'echo': message}\n"

STRONG_AVAILABLE = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG_AVAILABLE:
    # .ci/run installs bubblewrap: in CI the strong-tier tests must run, never be skipped
    raise RuntimeError("CI without the strong sandbox tier: see the sandbox.isolation log for why")
ALL_TIERS = [Tier.PLAIN] + ([Tier.STRONG] if STRONG_AVAILABLE else [])
needs_strong = pytest.mark.skipif(not STRONG_AVAILABLE, reason="strong tier (bubblewrap + seccomp, root) unavailable")


def fast_limits(**overrides: Any) -> Limits:
    """Limits for tests, with ``overrides`` (``Limits`` fields) on top. The decision limit is one a loaded machine
    cannot reach (2 s ran out under load more than once, last for the memory hog in the unprivileged battery): a
    test of a time rule sets its own."""
    return dataclasses.replace(Limits(decision_ms=20_000, bank_ms=0, startup_ms=5000, memory_mb=256, cpu_seconds=20),
                               **overrides)


def message_of(reply: Reply) -> dict[str, Any]:
    """The object a reply carries (a test reads it where the bot answered)."""
    assert reply.message is not None, reply
    return reply.message


def hostile_bundle(name: str) -> BotBundle:
    """A hostile bot of tests/sandbox/hostile by name: ``"network"`` (Python) or ``"program_escape.js"``."""
    path = HOSTILE / (name if "." in name else f"{name}.py")
    language = language_of_file(path.name)
    assert language is not None, path
    return BotBundle(path.stem, path.read_text(encoding="utf-8"), language=language.name)


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except OSError:
        return None


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def leftovers(bot: BotProcess, seconds: float = 10.0) -> set[int]:
    """What a closed bot of a fork server left behind: once its keeper is gone (it kills them after its bot's end,
    which ``BotProcess.close`` does not wait for; at most ``seconds``), the processes with its fork server's tag in
    their argv but its template and the template's next keeper and bot."""
    assert bot.server_tag is not None and bot.server_pid is not None
    deadline = time.monotonic() + seconds
    while bot.keeper_pid is not None and alive(bot.keeper_pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    if bot.keeper_pid is not None and alive(bot.keeper_pid):
        return {bot.keeper_pid}  # still there: what it holds is not known to be gone
    carriers = {pid for pid in processes_with_tag(bot.server_tag) if alive(pid)}
    keepers = {pid for pid in carriers if parent_of(pid) == bot.server_pid}
    return {pid for pid in carriers if pid != bot.server_pid and pid not in keepers and parent_of(pid) not in keepers}


def assert_gone(bot: BotProcess) -> None:
    """No process of this bot remains (tag in argv, or the slot uid in the strong tier). The slot is free
    once the bot is closed and another arena on the machine may take its uid at once: only this test
    process's descendants count (tests/conftest.py makes it the subreaper of its orphans)."""
    assert processes_with_tag(bot.tag) == []
    if bot.server_tag is not None and bot.tier is Tier.PLAIN:  # a plain fork server's bot
        assert leftovers(bot) == set()
    if bot.uid is not None:
        assert set(processes_of_uid(bot.uid)) & set(live_descendants(os.getpid())) == set()


def live_threads(pid: int) -> list[str]:
    """The threads of process ``pid`` that still run (neither zombie nor dead), read from /proc."""
    alive = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return []
    for tid in tids:
        try:
            state = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if state not in ("Z", "X"):
            alive.append(tid)
    return alive


def gone_within(pid: int, seconds: float = 60) -> bool:
    """Whether no thread of ``pid`` runs within ``seconds`` (a bound, not a verdict: a SIGKILL's end is not
    instant)."""
    deadline = time.monotonic() + seconds
    while live_threads(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not live_threads(pid)
