"""Helpers of the hostile-bot battery (tests/sandbox/test_hostile_*.py): each bot is contained and gets its
status; the witness bot, the referee and the machine are unaffected; no process, file or secret escapes.

Harmless misbehaviour runs on every available tier; attacks the plain tier does not claim to
stop (reading, writing, network, exec) run on the strong tier only, and the bombs only after
a probe in the same test has shown fork/threads/kill are denied there.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sandbox_helpers import SECRET_MARKER, assert_gone, fast_limits, hostile_bundle, needs_strong

from sandbox import BotProcess, Limits, Reply, Tier, modules_from_package

ROOT = Path(__file__).resolve().parents[2]
#: the tests of the strong tier only
strong = pytest.mark.parametrize("tier", [pytest.param(Tier.STRONG, marks=needs_strong, id="strong")])


def sdk_bundle_modules() -> dict[str, str]:
    """The modules a real bot gets: the engine and the SDK (as arena/play/players.py ships them)."""
    modules = modules_from_package(ROOT / "engine", "engine")
    modules["sandbox.sdk"] = (ROOT / "sandbox" / "sdk.py").read_text(encoding="utf-8")
    modules["sandbox.protocol"] = (ROOT / "sandbox" / "protocol.py").read_text(encoding="utf-8")
    return modules


def run(name: str, tier: Tier, messages: list[dict], limits: Limits | None = None) -> tuple[list[Reply], BotProcess]:
    """Start a hostile bot, send ``messages``, close it; check it left nothing and leaked no secret."""
    bot = BotProcess.start(hostile_bundle(name), limits or fast_limits(), tier)
    failure = bot.failure  # None while the bot is well (its status OK)
    replies = [bot.request(m) for m in messages] if failure is None else [failure]
    bot.notify({"type": "end"})
    bot.close()
    assert_gone(bot)
    text = json.dumps([r.message for r in replies if r]) + bot.stderr_tail
    assert SECRET_MARKER not in text
    return replies, bot
