"""Tables of matches, as a worker process runs them: everything needed travels in the task.

A table is one or more games between the same bots (e.g. one deal with seats rotated). Every
game starts every bot afresh: a process that played a deal would remember it in the rotation.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from arena.audit.stats import TradeFlows
from arena.db.columns import Compressed, compressed
from arena.play.players import SandboxPlayer, warm_sandboxes
from arena.play.referee import OutOfTime, play_game
from arena.play.records import GameRecord
from engine.rules import rules_for
from sandbox import Limits, SandboxError, Tier

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatEntry:
    version_id: int
    name: str
    source: str
    language: str = "python"


@dataclass(frozen=True)
class GameSpec:
    match_id: int
    seed: int
    seating: tuple[int, ...]  # indices into TableTask.bots, in seat order
    bot_seeds: tuple[int, ...] = ()  # per seat, for the bots' own randomness (empty: fresh randomness)


@dataclass(frozen=True)
class TableTask:
    rules_id: str
    bots: tuple[SeatEntry, ...]
    games: tuple[GameSpec, ...]
    limits: Limits
    tier: Tier
    #: ``time.monotonic()`` on this machine past which no request is sent (a submission's smoke games: its budget)
    deadline: float | None = None
    #: a game the machine or the referee could not play is void and the table goes on (a season's); False: the
    #: error is raised to the caller, who retries (a submission's smoke game, a machine fault is not the bot's)
    void_faults: bool = True


@dataclass(frozen=True)
class MatchOutcome:
    match_id: int
    record: GameRecord | None
    machine_fault: str | None = None  # the machine, not a bot, kept the match from being played
    #: the audit's trade flows (``TradeFlows.to_json``), counted as the game was played: the audit need not
    #: play every recorded game again
    flows: str | None = None
    #: the replay as the database stores it, compressed by the worker that played the game (None: the recorder
    #: compresses ``record.replay_text``)
    stored_replay: Compressed | None = None


def run_table(task: TableTask) -> list[MatchOutcome]:
    """Play a table's games, every bot in its own sandbox, a fresh process for every game (nothing a
    bot held survives into the next game, seat rotations included). A game that the machine or the referee could
    not play is void (``machine_fault``), and the table goes on (unless the task says ``void_faults=False``: then
    it raises); past the task's ``deadline`` it raises ``OutOfTime`` (the caller's budget is spent: nobody's
    fault). Whatever it raises, its bots' processes are ended."""
    rules = rules_for(task.rules_id)
    outcomes: list[MatchOutcome] = []
    for game in task.games:
        players: list[SandboxPlayer] = []
        try:
            warm_sandboxes([task.bots[index].language for index in game.seating], task.limits, task.tier)
            for index in game.seating:
                bot = task.bots[index]
                players.append(SandboxPlayer(bot.name, bot.source, task.limits, task.tier, bot.language))
            flows = TradeFlows()
            record = play_game(rules, game.seed, players, task.limits, game.bot_seeds or None, task.deadline,
                               flows.seen)
            outcomes.append(MatchOutcome(game.match_id, record, flows=flows.to_json(),
                                         stored_replay=compressed(record.replay_text)))
        except OutOfTime:
            raise
        except Exception as exc:  # noqa: BLE001 - the machine's fault (bot faults never raise): void this game
            if not task.void_faults:
                raise
            log.error("match %d not played: %s", game.match_id, exc, exc_info=not isinstance(exc, SandboxError))
            outcomes.append(MatchOutcome(game.match_id, None, f"{type(exc).__name__}: {exc}"[:500]))
        finally:
            for player in players:
                player.close()
    return outcomes
