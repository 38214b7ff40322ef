"""The engine's interning caches: one shared instance of each small action, common event and decision, and
tables derived from a field layout. Actions, events and decisions are frozen, so the engine hands out one
instance of each instead of making it anew every time (making a frozen dataclass is the costly part of a step);
a table keyed by a bean uses its name, since hashing an enum member is a Python call. Every table is bounded.
The deck's fast shuffle lives here too."""
from __future__ import annotations

import random
from functools import cache
from typing import Any

from engine.actions import Action, BuyField, Decision, Harvest, Plant, PlantTraded
from engine.events import Drew, Harvested, Passed, Planted, TurnStarted

_BUY_FIELD = BuyField()
PLANTS = tuple(Plant(i) for i in range(8))
HARVESTS = tuple(Harvest(i) for i in range(8))

# Events are frozen values too: the plantings, by (bean name, seat, field, source), and the passes, by (seat, kind).
PLANTED: dict[tuple[str, int, int, str], Planted] = {}
PASSED: dict[tuple[int, str], Passed] = {}
HARVESTED: dict[tuple[str, int, int, int, int], Harvested] = {}  # by (bean name, seat, field, beans, coins)
DREW = tuple(tuple(Drew(seat, n) for n in range(8)) for seat in range(8))


def passed(seat: int, kind: str) -> Passed:
    """``Passed(seat, kind)``, a shared value."""
    event = PASSED.get((seat, kind))
    if event is None:
        event = Passed(seat, kind)
        if len(PASSED) < 1_000:
            PASSED[(seat, kind)] = event
    return event


TURN_STARTED: dict[tuple[int, int], TurnStarted] = {}


def turn_started(seat: int, turn: int) -> TurnStarted:
    """``TurnStarted(seat, turn)``, a shared value."""
    event = TURN_STARTED.get((seat, turn))
    if event is None:
        event = TurnStarted(seat, turn)
        if len(TURN_STARTED) < 10_000:
            TURN_STARTED[(seat, turn)] = event
    return event


# What a field layout allows, by (may buy a field, *field counts): (cashable per field, the field options).
FIELD_TABLE: dict[tuple[int, ...], tuple[tuple[bool, ...], tuple[Action, ...]]] = {}


def field_table(counts: list[int], can_buy: bool) -> tuple[tuple[bool, ...], tuple[Action, ...]]:
    """Per field whether it may be cashed in now (C-4.2: a lone bean not while another field holds more),
    and the options every decision has: buy the next field (if ``can_buy``), cash in each cashable field."""
    key = (can_buy, *counts)
    found = FIELD_TABLE.get(key)
    if found is None:
        lone_blocked = any(c > 1 for c in counts)
        cashable = tuple(c > 1 or (c == 1 and not lone_blocked) for c in counts)
        options: list[Action] = [_BUY_FIELD] if can_buy else []
        options.extend(HARVESTS[i] if i < len(HARVESTS) else Harvest(i) for i, ok in enumerate(cashable) if ok)
        found = (cashable, tuple(options))
        if len(FIELD_TABLE) < 100_000:  # a hand-built position may have any counts: keep the table bounded
            FIELD_TABLE[key] = found
    return found


# Decisions are frozen values: the trading decisions that offer only passing (or ending trading) and the field
# options, by (seat, trade_offer?, may buy a field, *field counts).
TRADE_DECISIONS: dict[tuple[int | bool, ...], Decision] = {}
PLANT_TRADED_GRID = tuple(tuple(PlantTraded(c, i) for i in range(8)) for c in range(16))


@cache
def seat_queue(players: int, active: int) -> tuple[int, ...]:
    """Every seat from the active one around the table, last first (a queue popped from its end)."""
    return tuple((active + k) % players for k in range(players - 1, -1, -1))


def _fast_shuffle(rng: random.Random, cards: list[Any]) -> None:
    """``random.Random.shuffle``'s algorithm with its ``_randbelow`` inlined: the same draws, the same order."""
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _shuffles_alike() -> bool:
    """Whether ``_fast_shuffle`` is this Python's ``shuffle`` (a later Python may shuffle another way)."""
    a, b = list(range(300)), list(range(300))
    ra, rb = random.Random(2026), random.Random(2026)
    ra.shuffle(a)
    _fast_shuffle(rb, b)
    return a == b and ra.random() == rb.random()


_SHUFFLES_ALIKE = _shuffles_alike()
_RANDOM = random.Random  # the class itself: a test may put an arranged stand-in in the module's place


def shuffle(rng: random.Random, cards: list[Any]) -> None:
    """``rng.shuffle(cards)``, about twice as fast for a plain ``random.Random`` (same draws, same order)."""
    if _SHUFFLES_ALIKE and type(rng) is _RANDOM:
        _fast_shuffle(rng, cards)
    else:
        rng.shuffle(cards)
