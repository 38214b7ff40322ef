"""The griefer of tests/sandbox/hostile/trade_griefer.py at a real table in the strong sandbox, with
two honest bots that think for a fixed share of their decision limit at every decision (they burn
CPU). The CPU safety net is small (1 s above what the time rules grant): before, it was a fixed
RLIMIT_CPU whatever the rules granted, and the honest bots were killed by SIGXCPU a few dozen
decisions into the game. Now they finish every game with status ok, and the griefer makes them
decide at most twice as often as its harmless twin does (C-6.7, D-1)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.play.players import SandboxPlayer
from arena.play.referee import play_game
from arena.play.records import GameRecord
from engine import classic_rules
from sandbox import Limits, Status, Tier, close_fork_servers, detect_tier

HOSTILE = Path(__file__).resolve().parents[1] / "sandbox" / "hostile"
STRONG = detect_tier() is Tier.STRONG
if os.environ.get("CI") == "true" and not STRONG:
    raise RuntimeError("CI without the strong sandbox tier: the griefing table must run there, never be skipped")
pytestmark = pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")

FACTOR = 2  # seeds/classic-rules.md, D-1
DECISION_MS = 75.0
THINK_MS = 30.0  # each honest decision burns this much CPU: 40 % of the decision limit
#: the bank only absorbs the machine's load (timing varies on a shared machine); the honest bots never need it
LIMITS = Limits(decision_ms=DECISION_MS, bank_ms=30_000.0, cpu_seconds=1, startup_ms=10_000.0)
SLOW_HONEST = f'''
import time
from sandbox.sdk import Bot

THINK_S = {THINK_MS / 1000.0!r}


class SlowHonest(Bot):
    """The SDK's default play, after thinking THINK_S of CPU at every decision."""

    def act(self, message):
        if message.get("type") == "decide":
            end = time.process_time() + THINK_S
            while time.process_time() < end:
                pass
        return super().act(message)
'''


def griefer_source(mode: str) -> str:
    source = (HOSTILE / "trade_griefer.py").read_text(encoding="utf-8")
    assert 'MODE = "grief"' in source
    return source.replace('MODE = "grief"', f'MODE = "{mode}"')


def play(mode: str, seed: int, limits: Limits) -> GameRecord:
    players = [SandboxPlayer("griefer", griefer_source(mode), limits, Tier.STRONG),
               SandboxPlayer("honest1", SLOW_HONEST, limits, Tier.STRONG),
               SandboxPlayer("honest2", SLOW_HONEST, limits, Tier.STRONG)]
    try:
        return play_game(classic_rules(), seed, players, limits, bot_seeds=[1, 2, 3])
    finally:
        for player in players:
            player.close()


# one deal per tier: the bots play deterministically (fixed deal and bot seeds), so each deal's counts are
# the same every run; many deals are compared in process by tests/engine/test_trade_griefing.py
@pytest.mark.parametrize("fork_server,seeds", [(True, (5,)), (False, (7,))], ids=["forked", "cold"])
def test_an_honest_slow_bot_finishes_every_griefed_game_within_the_stated_factor(fork_server, seeds):
    limits = Limits(**{**LIMITS.__dict__, "fork_server": fork_server})
    try:
        for seed in seeds:
            grief = play("grief", seed, limits)
            twin = play("twin", seed, limits)
            assert grief.void is None and twin.void is None, (grief.void, twin.void)
            for seat in (1, 2):
                honest = grief.seats[seat]
                assert (honest.status, honest.detail) == (Status.OK, ""), honest
                assert twin.seats[seat].status is Status.OK, twin.seats[seat]
                # enough decisions that their thinking alone is far past the 1 s net: it was granted
                assert honest.decisions * THINK_MS >= 2 * 1000 * LIMITS.cpu_seconds, honest
                assert honest.decisions <= FACTOR * twin.seats[seat].decisions, (seed, seat, honest, twin.seats[seat])
    finally:
        close_fork_servers()
