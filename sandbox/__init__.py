"""Sandbox layer: runs bots in subprocesses under JSON-line framing, deadlines and isolation tiers.

It knows the protocol framing (one JSON object per line, one reply per request), not the game.
"""
from __future__ import annotations

from .tiers import detect_tier, strong_tier_missing, strong_tier_summary
from .process import BotProcess
from .fork_server_pool import close_fork_servers, warm_fork_servers
from .values import BotBundle, Limits, Reply, SandboxError, Status, Tier, modules_from_package

__all__ = [
    "BotBundle",
    "BotProcess",
    "Limits",
    "Reply",
    "SandboxError",
    "Status",
    "Tier",
    "close_fork_servers",
    "detect_tier",
    "strong_tier_missing",
    "strong_tier_summary",
    "modules_from_package",
    "warm_fork_servers",
]
