"""Helpers for the Princes engine tests: hand-built positions, snapshots, illegal-action checks."""
from __future__ import annotations

import json
from collections import Counter
from typing import Any, Sequence

import pytest

from engine import (
    Action, Bean, DecisionKind, IllegalAction, PrincesGame, PrincesRules, Rules, action_to_json, duel_rules, new_game,
    solo_rules,
)

K = DecisionKind
BLUE, CHILI, STINK, GREEN, SOY, BLACK, RED = (
    Bean.BLUE, Bean.CHILI, Bean.STINK, Bean.GREEN, Bean.SOY, Bean.BLACK_EYED, Bean.RED)
COMPOSITION = Counter({t.bean: t.count for t in duel_rules().bean_types})
PLAIN_VINE = ["V04"] * 28  # "You have Blue bean(s) in one of your fields" everywhere


def duel(seed: int = 1, rules: Rules | None = None) -> PrincesGame:
    return PrincesGame(rules or duel_rules(), 2, seed)


def solo(seed: int = 1, rules: Rules | None = None) -> PrincesGame:
    return PrincesGame(rules or solo_rules(), 1, seed)


def princes_of(rules: Rules) -> PrincesRules:
    """The Princes settings of a Princes variant's rules."""
    assert rules.princes is not None, "not a Princes variant"
    return rules.princes


def princes_game(rules: Rules, players: int, seed: int) -> PrincesGame:
    """``new_game`` for a Princes variant."""
    game = new_game(rules, players, seed)
    assert isinstance(game, PrincesGame), type(game)
    return game


def set_position(game: PrincesGame, vine: Sequence[str] | None = None, **position: Any) -> PrincesGame:
    """``PrincesGame.set_position`` with a plain vine by default (every card "V04")."""
    return game.set_position(vine=PLAIN_VINE if vine is None else vine, **position)


def snapshot(game: PrincesGame) -> tuple:
    seats = tuple((tuple(s.hand), tuple(s.field_beans), tuple(s.field_counts), tuple(s.treasury), s.position)
                  for s in game.seats)
    return (seats, tuple(game.deck), tuple(game.discard), tuple(game.box), tuple(game.middle.items()),
            tuple(game.vine), game.revealed, game.violet, game.red, game.reshuffles, game.turn, game.active,
            game.phase, game.to_move, game.log.record(), tuple(game.events), tuple(game.history), game.over,
            game.result)


def assert_illegal(game: PrincesGame, action: Action, rule: str) -> IllegalAction:
    """``action`` is refused under ``rule``, the message quotes it, and nothing changed."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.rule == rule, f"expected rule {rule}, got {info.value.rule}: {info.value}"
    assert (json.dumps(action_to_json(action), separators=(",", ":")) in str(info.value)
            and f"rule {rule}" in str(info.value))
    assert snapshot(game) == before, "a refused action changed the state"
    return info.value


def fields_of(game: PrincesGame, seat: int) -> list[tuple[Bean | None, int] | None]:
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
