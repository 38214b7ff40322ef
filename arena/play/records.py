"""What a game produced, as the referee (arena/play/referee.py) hands it on: each seat's outcome, a failed seat's
evidence, and the game's record with its replay. Values only: workers send them to the coordinator."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from engine.replay import Replay
from sandbox.values import Status


#: How much of a failed bot's last output is kept with the game (docs/protocol.md "Failures").
MAX_FAILURE_LOG = 4000
#: How much of every seat's own standard error of a game its record carries, its tail (``SeatOutcome.log``).
MAX_SEAT_LOG = 4000


@dataclass(frozen=True)
class Failure:
    """Why a seat failed, for its author: the request it was answering (``hello`` or a decision
    kind), when it was asked (``step``: the number of actions played before it, the replay's step
    (engine/spectator.py); ``arena game show N --step K`` and the site's ``#step-K`` show it), and the bot's
    own last output on stderr (the runner's traceback, its prints), at most ``MAX_FAILURE_LOG``
    characters. Nothing in it comes from another seat."""

    request: str
    step: int
    log: str


@dataclass(frozen=True)
class SeatOutcome:
    name: str
    coins: int
    rank: int
    status: Status
    detail: str
    decisions: int
    time_ms: float
    failure: Failure | None = None
    #: the bot's own standard error of this whole game (its prints, a traceback), its last ``MAX_SEAT_LOG``
    #: characters, read once its process ended: for its owner alone, failed or not (arena/ladder/seat_logs.py)
    log: str = ""


@dataclass(frozen=True)
class GameRecord:
    """What a finished (or voided) game produced. The replay travels as its JSON, made once where the
    game was played (a worker sends it to the coordinator, which stores it as it is)."""

    rules_id: str
    seed: int
    seats: tuple[SeatOutcome, ...]
    replay_text: str  # engine.replay.Replay.dumps()
    seconds: float
    void: str | None = None  # why the referee voided the game (its own fault), else None

    @functools.cached_property
    def replay(self) -> Replay:
        return Replay.loads(self.replay_text)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "replay"}  # the text is enough
