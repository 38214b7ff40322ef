"""Helpers for the engine tests: hand-built positions, snapshots, illegal-action checks."""
from __future__ import annotations

import copy
from collections import Counter
from typing import Iterable, Sequence

import pytest

from engine import Bean, ClassicGame, DecisionKind, IllegalAction, classic_rules

B = Bean
BLUE, CHILI, STINK, GREEN, SOY, BLACK, RED, GARDEN = (
    Bean.BLUE, Bean.CHILI, Bean.STINK, Bean.GREEN, Bean.SOY, Bean.BLACK_EYED, Bean.RED, Bean.GARDEN)


def new_game(players: int = 3, seed: int = 1) -> ClassicGame:
    return ClassicGame(classic_rules(), players, seed)


def set_position(
    game: ClassicGame,
    *,
    hands: Sequence[Sequence[Bean]] | None = None,
    fields: Sequence[Sequence[tuple[Bean, int] | None]] | None = None,
    deck: Sequence[Bean] = (),
    discard: Sequence[Bean] = (),
    treasury: Sequence[int | Sequence[Bean]] | None = None,
    trade: Sequence[Sequence[Bean]] | None = None,
    locked: Sequence[Sequence[bool]] | None = None,
    active: int = 0,
    phase: DecisionKind = DecisionKind.PLANT_FIRST,
    reshuffles: int = 0,
    turn: int = 0,
) -> ClassicGame:
    """Put ``game`` into a hand-built position.

    ``deck`` is given in draw order (its first card is taken first); ``discard`` bottom to top.
    ``fields[seat]`` lists ``(bean, count)`` or ``None`` per field. ``treasury[seat]`` is a number of
    coins (blue cards) or a list of coin cards, oldest first. ``phase`` is where the game stands:
    PLANT_FIRST / PLANT_SECOND (active to move), TRADE_OFFER (round 0 opens), PLANT_TRADED
    (trading has just ended; planting starts with the active seat).
    """
    n = game.players
    hands = hands if hands is not None else [[] for _ in range(n)]
    fields = fields if fields is not None else [[None, None] for _ in range(n)]
    treasury = treasury if treasury is not None else [0] * n
    trade = trade if trade is not None else [[] for _ in range(n)]
    for seat, s in enumerate(game.seats):
        s.hand = list(hands[seat])
        s.field_beans = [f[0] if f else None for f in fields[seat]]
        s.field_counts = [f[1] if f else 0 for f in fields[seat]]
        coins = treasury[seat]
        s.treasury = [BLUE] * coins if isinstance(coins, int) else list(coins)
        s.trade = list(trade[seat])
        s.trade_locked = list(locked[seat]) if locked is not None else [False] * len(s.trade)
    game.deck = list(reversed(deck))
    game.discard = list(discard)
    game.reshuffles = reshuffles
    game.turn = turn
    game.active = active
    game.over = False
    game.result = None
    game.trade_round = 0
    game.offer = None
    game.responses = []
    game._respond_queue = []
    game._plant_queue = []
    game._round_quiet = True
    game.events = []
    game.history = []
    game.to_move = active
    if phase in (DecisionKind.PLANT_FIRST, DecisionKind.PLANT_SECOND):
        game.phase = phase
    elif phase is DecisionKind.TRADE_OFFER:
        game._start_round()
    elif phase is DecisionKind.PLANT_TRADED:
        game._end_trading()  # events: TradingEnded, then whatever planting/drawing followed
    else:
        raise ValueError(f"set_position cannot start at {phase}")
    game._decision = None
    return game


def snapshot(game: ClassicGame) -> tuple:
    """Every piece of state an action could change (compared before/after a refused action)."""
    seats = tuple((tuple(s.hand), tuple(s.field_beans), tuple(s.field_counts), tuple(s.treasury),
                   tuple(s.trade), tuple(s.trade_locked)) for s in game.seats)
    return (seats, tuple(game.deck), tuple(game.discard), game.reshuffles, game.turn, game.active,
            game.phase, game.to_move, game.trade_round, game.offer, tuple(game.responses),
            tuple(game._respond_queue), game._round_quiet, tuple(game._plant_queue), tuple(game.events),
            tuple(game.history), game.over, game.result)


def assert_illegal(game: ClassicGame, action, rule: str) -> IllegalAction:
    """``action`` is refused under ``rule``, the message quotes it, and nothing changed."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.rule == rule, f"expected rule {rule}, got {info.value.rule}: {info.value}"
    assert repr(action) in str(info.value)
    assert f"rule {rule}" in str(info.value)
    assert snapshot(game) == before, "a refused action changed the state"
    game._decision = None
    assert snapshot(game) == before
    return info.value


def field_of(game: ClassicGame, seat: int) -> list[tuple[Bean, int] | None]:
    s = game.seats[seat]
    return [(b, n) if n else None for b, n in zip(s.field_beans, s.field_counts)]


def all_cards(game: ClassicGame) -> Counter:
    """The multiset of every card of the game, wherever it lies."""
    c: Counter = Counter(game.deck) + Counter(game.discard)
    for s in game.seats:
        c += Counter(s.hand) + Counter(s.treasury) + Counter(s.trade)
        for bean, n in zip(s.field_beans, s.field_counts):
            if n:
                c[bean] += n
    return c


def types_of(events: Iterable) -> list[str]:
    return [e.TYPE for e in events]


def clone(game: ClassicGame) -> ClassicGame:
    g = copy.deepcopy(game)
    g._decision = None
    return g
