"""One match, as a worker process runs it: everything it needs travels in the task."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from arena.players import SandboxPlayer
from arena.referee import GameRecord, Player, play_game
from engine import rules_for
from sandbox import Limits, SandboxError, Tier

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatEntry:
    version_id: int
    name: str
    source: str


@dataclass(frozen=True)
class MatchTask:
    match_id: int
    rules_id: str
    seed: int
    seats: tuple[SeatEntry, ...]
    limits: Limits
    tier: Tier


@dataclass(frozen=True)
class MatchOutcome:
    match_id: int
    record: GameRecord | None
    machine_fault: str | None = None  # the machine, not a bot, kept the match from being played


def run_match(task: MatchTask) -> MatchOutcome:
    """Play a task's game with every seat in its own sandbox; always closes every bot."""
    players: list[Player] = []
    try:
        for seat in task.seats:
            players.append(SandboxPlayer(seat.name, seat.source, task.limits, task.tier))
        record = play_game(rules_for(task.rules_id), task.seed, players, task.limits)
        return MatchOutcome(task.match_id, record)
    except SandboxError as exc:
        log.error("match %d not played: %s", task.match_id, exc)
        return MatchOutcome(task.match_id, None, str(exc))
    finally:
        for player in players:
            player.close()
