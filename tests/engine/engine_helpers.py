"""Helpers for the engine tests: hand-built positions, snapshots, illegal-action checks, what tests of
either game share (junk actions, a buying policy, a copy with the hidden cards permuted), and what the
classic rule tests (test_classic_*.py) share."""
from __future__ import annotations

import copy
import importlib
import json
import random
from collections import Counter
from typing import Any, Iterable, TypeVar

import pytest

from engine import (
    Action, Bean, BuyField, ClassicGame, Decision, DecisionKind, Event, GameResult, Harvest, IllegalAction, Plant,
    action_to_json, classic_rules,
)
from engine.game import Game
from strategy.policies import random_action

B = Bean
BLUE, CHILI, STINK, GREEN, SOY, BLACK, RED, GARDEN = (
    Bean.BLUE, Bean.CHILI, Bean.STINK, Bean.GREEN, Bean.SOY, Bean.BLACK_EYED, Bean.RED, Bean.GARDEN)
G = TypeVar("G", bound=Game)


def new_game(players: int = 3, seed: int = 1) -> ClassicGame:
    return ClassicGame(classic_rules(), players, seed)


def decision_of(game: Game) -> Decision:
    """The decision ``game`` waits for: a test asks it only while the game goes on."""
    assert game.decision is not None, "the game is over"
    return game.decision


def result_of(game: Game) -> GameResult:
    """The result of ``game``: a test reads it only once the game is over."""
    assert game.result is not None, "the game goes on"
    return game.result


def set_position(game: ClassicGame, **position: Any) -> ClassicGame:
    """``ClassicGame.set_position`` (the engine's public way to build a position)."""
    return game.set_position(**position)


def snapshot(game: ClassicGame) -> tuple:
    """Every piece of state an action could change (compared before/after a refused action)."""
    seats = tuple((tuple(s.hand), tuple(s.field_beans), tuple(s.field_counts), tuple(s.treasury),
                   tuple(s.trade), tuple(s.trade_locked)) for s in game.seats)
    return (seats, tuple(game.deck), tuple(game.discard), game.reshuffles, game.turn, game.active,
            game.phase, game.to_move, game.trade_round, game.offer, tuple(game.responses),
            tuple(game._respond_queue), game._round_quiet, tuple(game._plant_queue), tuple(game.events),
            tuple(game.history), game.over, game.result)


def quoted(action: Any) -> str:
    """How an illegal action's message quotes it: its JSON, as the protocol writes it (a stand-in that
    is no action at all: as Python shows it)."""
    try:
        return json.dumps(action_to_json(action), separators=(",", ":"))
    except AttributeError:
        return repr(action)


def assert_illegal(game: ClassicGame, action: Any, rule: str) -> IllegalAction:
    """``action`` (an action, or a stand-in that is none) is refused under ``rule``, the message quotes it, and
    nothing changed."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.rule == rule, f"expected rule {rule}, got {info.value.rule}: {info.value}"
    assert quoted(action) in str(info.value)
    assert f"rule {rule}" in str(info.value)
    assert snapshot(game) == before, "a refused action changed the state"
    game._decision = None
    assert snapshot(game) == before
    return info.value


def field_of(game: ClassicGame, seat: int) -> list[tuple[Bean | None, int] | None]:
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


def junk_on_field(kind: int, rng: random.Random) -> Plant | Harvest:
    """A ``Plant`` (kind 0) or ``Harvest`` (kind 1) of a field numbered -1..3, legal or not."""
    return (Plant, Harvest)[kind](rng.randrange(-1, 4))


def buy_or_harvest(game: Game, rng: random.Random, harvest_rate: float, **random_options: Any) -> Action:
    """``random_action``, but buying a field when possible with p=0.5 and harvesting with p=``harvest_rate``
    (to produce those events)."""
    options = game.legal_actions()
    if BuyField() in options and rng.random() < 0.5:
        return BuyField()
    harvests = [a for a in options if isinstance(a, Harvest)]
    if harvests and rng.random() < harvest_rate:
        return rng.choice(harvests)
    return random_action(game, rng, **random_options)


def hidden_permuted(game: G, seat: int, rng: random.Random) -> G:
    """A copy in which what ``seat`` may not know is changed: the deck's order and the other hands
    (their cards redistributed among the deck and those hands, sizes kept)."""
    # the copy's own generator is a new one: copying the old one's state was most of the copy's cost,
    # and the deck it would shuffle is permuted here anyway
    other = copy.deepcopy(game, {id(game.events): [], id(game.history): [], id(game.rules): game.rules,
                                 id(game._rng): random.Random(0)})
    others = [p for p in range(len(game.seats)) if p != seat]
    pool = list(other.deck) + [b for p in others for b in other.seats[p].hand]
    rng.shuffle(pool)
    for p in others:
        n = len(other.seats[p].hand)
        other.seats[p].hand, pool = pool[:n], pool[n:]
    other.deck = pool
    return other


# The card table of the rules notes (count; beans for 1/2/3/4 coins), typed in here on purpose so
# that seeds/beans.json is checked against an independent copy.
NOTES_TABLE = {
    BLUE: (20, (4, 6, 8, 10)),
    CHILI: (18, (3, 6, 8, 9)),
    STINK: (16, (3, 5, 7, 8)),
    GREEN: (14, (3, 5, 6, 7)),
    SOY: (12, (2, 4, 6, 7)),
    BLACK: (10, (2, 4, 5, 6)),
    RED: (8, (2, 3, 4, 5)),
    GARDEN: (6, (None, 2, 3, None)),
}


def expected_coins(bean: Bean, n: int) -> int:
    best = 0
    for coins, needed in enumerate(NOTES_TABLE[bean][1], start=1):
        if needed is not None and n >= needed:
            best = coins
    return best


def decide(game: ClassicGame, *actions: Action) -> list[Event]:
    """Apply actions in turn, each checked to come from the seat that is to move; returns all events."""
    out = []
    for action in actions:
        out.extend(game.apply(action))
    return out


def trading_position(game: ClassicGame, **overrides: Any) -> ClassicGame:
    """3 players, seat 0 active at the start of trading, two cards turned up (green, soy)."""
    kw = dict(
        hands=[[BLUE, RED, CHILI], [STINK, GARDEN, RED, BLUE], [SOY, SOY, CHILI]],
        trade=[[GREEN, SOY], [], []],
        fields=[[(BLUE, 2), None], [(RED, 1), None], [None, None]],
        deck=[BLACK] * 12,
        phase=DecisionKind.TRADE_OFFER,
    )
    kw.update(overrides)
    return set_position(game, **kw)


def rule_marks(modules: Iterable[str]) -> dict[str, list[str]]:
    """Rule id -> the names of the tests marked ``@pytest.mark.rule(id)`` in the test ``modules`` (bare names, as
    pytest imports the files of this folder)."""
    marked: dict[str, list[str]] = {}
    for module in map(importlib.import_module, modules):
        for name, fn in vars(module).items():
            for mark in getattr(fn, "pytestmark", []) if name.startswith("test_") else []:
                if mark.name == "rule":
                    marked.setdefault(mark.args[0], []).append(name)
    return marked
