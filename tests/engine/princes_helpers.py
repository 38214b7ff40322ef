"""Helpers for the Princes engine tests: hand-built positions, snapshots, illegal-action checks."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import pytest

from engine import Bean, DecisionKind, IllegalAction, PrincesGame, duel_rules, solo_rules
from engine.princes import TurnLog

K = DecisionKind
BLUE, CHILI, STINK, GREEN, SOY, BLACK, RED = (
    Bean.BLUE, Bean.CHILI, Bean.STINK, Bean.GREEN, Bean.SOY, Bean.BLACK_EYED, Bean.RED)
COMPOSITION = Counter({t.bean: t.count for t in duel_rules().bean_types})
PLAIN_VINE = ["V04"] * 28  # "You have Blue bean(s) in one of your fields" everywhere


def duel(seed: int = 1, rules=None) -> PrincesGame:
    return PrincesGame(rules or duel_rules(), 2, seed)


def solo(seed: int = 1, rules=None) -> PrincesGame:
    return PrincesGame(rules or solo_rules(), 1, seed)


def set_position(
    game: PrincesGame,
    *,
    hands: Sequence[Sequence[Bean]] | None = None,
    fields: Sequence[Sequence[tuple[Bean, int] | None]] | None = None,
    deck: Sequence[Bean] = (),
    discard: Sequence[Bean] = (),
    treasury: Sequence[int | Sequence[Bean]] | None = None,
    positions: Sequence[int] | None = None,
    middle: dict[Bean, int] | None = None,
    vine: Sequence[str] | None = None,
    active: int = 0,
    phase: DecisionKind = K.PLANT_FIRST,
    log: TurnLog | None = None,
    violet: int | None = None,
    red: int | None = None,
    reshuffles: int = 0,
    turn: int = 0,
) -> PrincesGame:
    """Put ``game`` into a hand-built position with ``active`` to decide ``phase``.

    ``deck`` is in draw order (first card drawn first); ``discard`` bottom to top. ``treasury[seat]``
    is a number of gold (blue coin cards) or a list of coin cards, oldest first. ``vine`` lists task ids
    of cards 1..28 (default: all "V04"). The box is emptied; events and history are cleared. Card
    conservation is not kept: tests that count cards build complete positions themselves.
    """
    n = game.players
    hands = hands if hands is not None else [[] for _ in range(n)]
    fields = fields if fields is not None else [[None, None] for _ in range(n)]
    treasury = treasury if treasury is not None else [0] * n
    positions = positions if positions is not None else [0] * n
    for seat, s in enumerate(game.seats):
        s.hand = list(hands[seat])
        s.field_beans = [f[0] if f else None for f in fields[seat]]
        s.field_counts = [f[1] if f else 0 for f in fields[seat]]
        coins = treasury[seat]
        s.treasury = [BLUE] * coins if isinstance(coins, int) else list(coins)
        s.position = positions[seat]
    game.deck = list(reversed(deck))
    game.discard = list(discard)
    game.box = []
    game.middle = dict(middle or {})
    game.vine = list(vine if vine is not None else PLAIN_VINE)
    game.revealed = len(game.vine)
    if violet is not None:
        game.violet = violet
    if red is not None:
        game.red = red
    game.reshuffles = reshuffles
    game.turn = turn
    game.active = active
    game.to_move = active
    game.phase = phase
    game.log = log or TurnLog(phase={K.TAKE_MIDDLE: 0, K.KEEP_MIDDLE: 3}.get(phase, 1))
    game.over = False
    game.result = None
    game.end_reason = None
    game.events = []
    game.history = []
    game._decision = None
    return game


def snapshot(game: PrincesGame) -> tuple:
    seats = tuple((tuple(s.hand), tuple(s.field_beans), tuple(s.field_counts), tuple(s.treasury), s.position)
                  for s in game.seats)
    return (seats, tuple(game.deck), tuple(game.discard), tuple(game.box), tuple(game.middle.items()),
            tuple(game.vine), game.revealed, game.violet, game.red, game.reshuffles, game.turn, game.active,
            game.phase, game.to_move, game.log.record(), tuple(game.events), tuple(game.history), game.over,
            game.result)


def assert_illegal(game: PrincesGame, action, rule: str) -> IllegalAction:
    """``action`` is refused under ``rule``, the message quotes it, and nothing changed."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.rule == rule, f"expected rule {rule}, got {info.value.rule}: {info.value}"
    assert repr(action) in str(info.value) and f"rule {rule}" in str(info.value)
    assert snapshot(game) == before, "a refused action changed the state"
    return info.value


def fields_of(game: PrincesGame, seat: int) -> list[tuple[Bean, int] | None]:
    s = game.seats[seat]
    return [(b, n) if n else None for b, n in zip(s.field_beans, s.field_counts)]


def all_cards(game: PrincesGame) -> Counter:
    """The multiset of every card, wherever it lies (the box included)."""
    c: Counter = Counter(game.deck) + Counter(game.discard) + Counter(game.box) + Counter(game.middle)
    for s in game.seats:
        c += Counter(s.hand) + Counter(s.treasury)
        for bean, n in zip(s.field_beans, s.field_counts):
            if n:
                c[bean] += n
    return c
