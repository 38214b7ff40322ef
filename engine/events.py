"""Public record of what happened. Events never carry hidden cards (hands, deck order)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

from engine import wire
from engine.cards import Bean


@dataclass(frozen=True, slots=True)
class TurnStarted:
    TYPE: ClassVar[str] = "turn_started"
    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class Planted:
    TYPE: ClassVar[str] = "planted"
    seat: int
    bean: Bean
    field: int
    source: str  # "hand" or "trade"; in the Princes variants "hand" or "middle"


@dataclass(frozen=True, slots=True)
class Harvested:
    TYPE: ClassVar[str] = "harvested"
    seat: int
    field: int
    bean: Bean
    beans: int
    coins: int


@dataclass(frozen=True, slots=True)
class FieldBought:
    TYPE: ClassVar[str] = "field_bought"
    seat: int
    paid: tuple[Bean, ...]  # the coin cards, now on the discard pile (classic) or in the box (Princes)


@dataclass(frozen=True, slots=True)
class Passed:
    TYPE: ClassVar[str] = "passed"
    seat: int
    kind: str  # the decision kind declined


@dataclass(frozen=True, slots=True)
class TurnedUp:
    TYPE: ClassVar[str] = "turned_up"
    seat: int
    beans: tuple[Bean, ...]


@dataclass(frozen=True, slots=True)
class Offered:
    """An offer (or a gift when ``want`` is empty); the cards offered are shown, their hand positions are not."""

    TYPE: ClassVar[str] = "offered"
    seat: int
    to: int | None
    give: tuple[Bean, ...]
    want: tuple[Bean, ...]
    round: int


@dataclass(frozen=True, slots=True)
class Accepted:
    TYPE: ClassVar[str] = "accepted"
    seat: int
    round: int


@dataclass(frozen=True, slots=True)
class Traded:
    """Cards changed hands: ``a`` gave ``a_gave`` to ``b`` and ``b`` gave ``b_gave`` to ``a``."""

    TYPE: ClassVar[str] = "traded"
    a: int
    b: int
    a_gave: tuple[Bean, ...]
    b_gave: tuple[Bean, ...]


@dataclass(frozen=True, slots=True)
class TradingEnded:
    TYPE: ClassVar[str] = "trading_ended"
    seat: int
    rounds: int


@dataclass(frozen=True, slots=True)
class Drew:
    TYPE: ClassVar[str] = "drew"
    seat: int
    cards: int


@dataclass(frozen=True, slots=True)
class Reshuffled:
    TYPE: ClassVar[str] = "reshuffled"
    deck: int
    reshuffles: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    TYPE: ClassVar[str] = "game_ended"
    coins: tuple[int, ...]
    ranks: tuple[int, ...]


# ----------------------------------------------------------------- Princes variants (duel, solo)
@dataclass(frozen=True, slots=True)
class Discarded:
    """Cards put on the discard pile by choice: from the hand (phase 1) or the middle (phase 0, solo phase 3)."""

    TYPE: ClassVar[str] = "discarded"
    seat: int
    beans: tuple[Bean, ...]
    source: str  # "hand" or "middle"


@dataclass(frozen=True, slots=True)
class TookDiscard:
    """Phase 2: matching cards taken from the top of the discard pile into the middle, in the order taken."""

    TYPE: ClassVar[str] = "took_discard"
    seat: int
    beans: tuple[Bean, ...]


@dataclass(frozen=True, slots=True)
class TaskClaimed:
    """A figure fulfilled the task of vine card ``position`` (1-based) and stands on it; ``task`` is
    ``"castle"`` when it entered the Castle."""

    TYPE: ClassVar[str] = "task_claimed"
    seat: int
    position: int
    task: str


@dataclass(frozen=True, slots=True)
class TributePaid:
    """A figure passed vine card ``position`` by paying ``paid`` (coin cards, now in the box)."""

    TYPE: ClassVar[str] = "tribute_paid"
    seat: int
    position: int
    paid: tuple[Bean, ...]


@dataclass(frozen=True, slots=True)
class FigureMoved:
    """A neutral figure of the solo game (``violet`` or ``red``) moved to ``position``."""

    TYPE: ClassVar[str] = "figure_moved"
    figure: str
    position: int


@dataclass(frozen=True, slots=True)
class VineRevealed:
    """Vine card ``position`` (1-based) is turned face up and shows ``task``."""

    TYPE: ClassVar[str] = "vine_revealed"
    position: int
    task: str


@dataclass(frozen=True, slots=True)
class EndTriggered:
    """Why a Princes game ends: ``castle`` (``seat`` entered it), ``neutral`` (a neutral figure did,
    solo) or ``supply`` (the supply ran out once too often)."""

    TYPE: ClassVar[str] = "end_triggered"
    reason: str
    seat: int | None


Event = Union[TurnStarted, Planted, Harvested, FieldBought, Passed, TurnedUp, Offered, Accepted,
              Traded, TradingEnded, Drew, Reshuffled, GameEnded, Discarded, TookDiscard, TaskClaimed,
              TributePaid, FigureMoved, VineRevealed, EndTriggered]

CLASSIC_EVENTS = (TurnStarted, Planted, Harvested, FieldBought, Passed, TurnedUp, Offered, Accepted,
                  Traded, TradingEnded, Drew, Reshuffled, GameEnded)
PRINCES_EVENTS = (TurnStarted, Planted, Harvested, FieldBought, Passed, TurnedUp, Drew, Reshuffled, GameEnded,
                  Discarded, TookDiscard, TaskClaimed, TributePaid, FigureMoved, VineRevealed, EndTriggered)
EVENT_TYPES: dict[str, type] = {cls.TYPE: cls for cls in CLASSIC_EVENTS + PRINCES_EVENTS}


def event_to_json(event: Event) -> dict[str, Any]:
    return wire.to_json(event)


def event_from_json(data: object) -> Event:
    return wire.from_json(EVENT_TYPES, data, "event")
