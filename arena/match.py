"""Tables of matches, as a worker process runs them: everything needed travels in the task.

A table is one or more games between the same bots (e.g. one deal with seats rotated). Each
bot's sandboxed process is started once per table and plays all its games; a bot whose
process failed in one game gets a fresh process for the next.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from arena.players import SandboxPlayer
from arena.referee import GameRecord, play_game
from engine import rules_for
from sandbox import Limits, SandboxError, Status, Tier

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatEntry:
    version_id: int
    name: str
    source: str


@dataclass(frozen=True)
class GameSpec:
    match_id: int
    seed: int
    seating: tuple[int, ...]  # indices into TableTask.bots, in seat order


@dataclass(frozen=True)
class TableTask:
    rules_id: str
    bots: tuple[SeatEntry, ...]
    games: tuple[GameSpec, ...]
    limits: Limits
    tier: Tier


@dataclass(frozen=True)
class MatchOutcome:
    match_id: int
    record: GameRecord | None
    machine_fault: str | None = None  # the machine, not a bot, kept the match from being played


def run_table(task: TableTask) -> list[MatchOutcome]:
    """Play a table's games, every bot in its own sandbox; always closes every bot."""
    rules = rules_for(task.rules_id)
    players: dict[int, SandboxPlayer] = {}
    outcomes: list[MatchOutcome] = []
    try:
        for game in task.games:
            try:
                for index in game.seating:
                    player = players.get(index)
                    if player is not None and player.process.status is not Status.OK:
                        player.close()
                        player = None
                    if player is None:
                        bot = task.bots[index]
                        player = players[index] = SandboxPlayer(bot.name, bot.source, task.limits, task.tier)
                    player.new_game()
                record = play_game(rules, game.seed, [players[i] for i in game.seating], task.limits)
                outcomes.append(MatchOutcome(game.match_id, record))
            except SandboxError as exc:
                log.error("match %d not played: %s", game.match_id, exc)
                outcomes.append(MatchOutcome(game.match_id, None, str(exc)))
    finally:
        for player in players.values():
            player.close()
    return outcomes
