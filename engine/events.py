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
    source: str  # "hand" or "trade"


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
    paid: tuple[Bean, ...]  # the coin cards, now on the discard pile


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


Event = Union[TurnStarted, Planted, Harvested, FieldBought, Passed, TurnedUp, Offered, Accepted,
              Traded, TradingEnded, Drew, Reshuffled, GameEnded]

EVENT_TYPES: dict[str, type] = {cls.TYPE: cls for cls in (
    TurnStarted, Planted, Harvested, FieldBought, Passed, TurnedUp, Offered, Accepted,
    Traded, TradingEnded, Drew, Reshuffled, GameEnded)}


def event_to_json(event: Event) -> dict[str, Any]:
    return wire.to_json(event)


def event_from_json(data: object) -> Event:
    return wire.from_json(EVENT_TYPES, data, "event")
