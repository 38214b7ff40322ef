"""Property tests over random legal playouts (3, 4 and 5 players).

Each example plays one whole game with ``strategy.policies.random_action`` (seeded) and, now and then,
throws a random and usually illegal action at the referee. After every action the invariants below
are checked; every few actions each seat's view is checked for leaks.
"""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Accept, BuyField, ClassicGame, Confirm, EndTrading, IllegalAction, Offer, Pass, PlantTraded, action_to_json,
    classic_rules,
)
from engine.events import Drew, FieldBought, Traded
from strategy.policies import random_action
from engine_helpers import all_cards, junk_on_field, snapshot

RULES = classic_rules()
COMPOSITION = Counter({t.bean: t.count for t in RULES.bean_types})
MAX_DECISIONS = 6000  # far above any real game (about 300-700 decisions); a runaway game fails
OPEN_ENDED = (Offer, Accept, Confirm)  # trade actions the options list does not enumerate
VIEW_EVERY = 9

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def is_subsequence(short: list, long: list) -> bool:
    it = iter(long)
    return all(any(x is y for y in it) for x in short)


def random_junk(game: ClassicGame, rng: random.Random):
    """An arbitrary action, legal or not, built from small random numbers."""
    s = game.seats[game.to_move]
    pos = lambda size: tuple(rng.sample(range(-1, size + 2), rng.randrange(0, min(3, size + 3))))  # noqa: E731
    kind = rng.randrange(9)
    if kind < 2:
        return junk_on_field(kind, rng)
    if kind == 2:
        return PlantTraded(rng.randrange(-1, len(s.trade) + 2), rng.randrange(-1, 4))
    if kind == 3:
        return Accept(pos(len(s.hand)))
    if kind == 4:
        return Confirm(rng.randrange(-1, 3), pos(len(s.hand)), pos(len(s.trade)))
    if kind == 5:
        return rng.choice([Pass(), EndTrading(), BuyField()])
    want = tuple(rng.choice(RULES.beans) for _ in range(rng.randrange(0, 3)))
    to = rng.choice([None, *range(-1, game.players + 1)])
    return Offer(pos(len(s.hand)), pos(len(s.trade)), want, to)


def string_lists(data, path=()):
    """Every list of strings in a JSON value, with its path of keys."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from string_lists(v, path + (k,))
    elif isinstance(data, list):
        if data and all(isinstance(x, str) for x in data):
            yield path, data
        for v in data:
            yield from string_lists(v, path)


def check_views(game: ClassicGame, rng: random.Random) -> None:
    for seat in range(game.players):
        data = game.view_json(seat)
        assert data["hand"] == [b.value for b in game.seats[seat].hand]
        assert data["coins"] == len(game.seats[seat].treasury)
        assert data["hand_sizes"] == [len(s.hand) for s in game.seats]
        # (that the deck's order and the other hands do not change it: tests/formats/test_contract.py)
        # no other hand appears as a list anywhere (offers' give/want are public bean lists)
        for p in range(game.players):
            hand = [b.value for b in game.seats[p].hand]
            if p == seat or len(hand) < 2 or hand == data["hand"]:
                continue
            for path, values in string_lists(data):
                if path and path[-1] in ("give", "want"):
                    continue
                assert values != hand, f"seat {seat}'s view shows seat {p}'s hand at {path}"


def play_checked(players: int, seed: int, policy_seed: int, junk_rate: float = 0.15) -> ClassicGame:
    game = ClassicGame(RULES, players, seed)
    rng = random.Random(policy_seed)
    junk_rng = random.Random(policy_seed ^ 0x5EED)
    assert all_cards(game) == COMPOSITION
    decisions = 0
    while not game.over:
        decisions += 1
        assert decisions <= MAX_DECISIONS, "the game does not end"
        decision = game.decision
        assert decision is not None and decision.seat == game.to_move
        if junk_rng.random() < junk_rate:
            junk = random_junk(game, junk_rng)
            if junk not in decision.options:
                before = snapshot(game)
                try:
                    step(game, junk)
                except IllegalAction as exc:
                    assert (json.dumps(action_to_json(junk), separators=(",", ":")) in str(exc)
                            and exc.rule.startswith(("C-", "D-")))
                    assert snapshot(game) == before, f"refused {junk!r} changed the state"
                    game._decision = None
                    assert snapshot(game) == before
                else:
                    assert isinstance(junk, OPEN_ENDED), f"{junk!r} is not an option but was accepted"
                continue
        step(game, random_action(game, rng, offer_rate=0.3))
        if decisions % VIEW_EVERY == 0 and not game.over:
            check_views(game, junk_rng)
    assert game.result is not None and game.decision is None
    assert all(s.hand == [] and s.trade == [] and not any(s.field_counts) for s in game.seats)
    return game


def step(game: ClassicGame, action) -> list:
    """Apply ``action`` and check the invariants that relate the state before and after."""
    hands = [list(s.hand) for s in game.seats]
    coins = [s.coins for s in game.seats]
    events = game.apply(action)
    assert all_cards(game) == COMPOSITION
    assert game.card_count() == 104
    drawn: Counter[int] = Counter()
    for e in events:
        if isinstance(e, Drew):
            drawn[e.seat] += e.cards
    bought = Counter(e.seat for e in events if isinstance(e, FieldBought))
    for p, s in enumerate(game.seats):
        assert s.coins == len(s.treasury)
        assert len(s.trade) == len(s.trade_locked)
        if game.over:
            assert s.hand == []
        else:
            kept = len(s.hand) - drawn[p]
            assert kept >= 0
            assert is_subsequence(s.hand[:kept], hands[p]), f"seat {p}'s hand was reordered"
            assert len(s.field_beans) <= RULES.max_fields
        if bought[p]:
            assert bought[p] == 1 and s.coins == coins[p] - 3 and len(events) == 1
        else:
            assert s.coins >= coins[p], f"seat {p} lost coins without buying a field"
        for b, n in zip(s.field_beans, s.field_counts):
            assert (b is None) == (n == 0)
    return events


@pytest.mark.parametrize("players", [3, 4, 5])
@SETTINGS
@given(seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32 - 1))
def test_random_playouts_keep_every_invariant(players, seed, policy_seed):
    play_checked(players, seed, policy_seed)


def test_random_playouts_do_trade():
    """The playouts above exercise trading: gifts, accepted offers and counter-offers all happen."""
    kinds: Counter[str] = Counter()
    for seed in range(6):
        game = play_checked(3 + seed % 3, seed, seed, junk_rate=0.0)
        for e in game.events:
            if isinstance(e, Traded):
                kinds["gift" if not e.b_gave else "deal"] += 1
        kinds["fields_bought"] += sum(isinstance(e, FieldBought) for e in game.events)
        kinds["reshuffles"] += game.reshuffles
    assert kinds["gift"] > 0 and kinds["deal"] > 0
    assert kinds["reshuffles"] > 0


def test_different_seeds_deal_differently():
    deals = set()
    for seed in range(40):
        game = ClassicGame(RULES, 4, seed)
        deals.add((tuple(tuple(s.hand) for s in game.seats), tuple(game.deck)))
    assert len(deals) == 40


def test_turning_up_is_not_reordered_by_later_reshuffles():
    """The rng is the game's own: another game's play in between does not change a game."""
    a, b = ClassicGame(RULES, 3, 99), ClassicGame(RULES, 3, 99)
    ra, rb = random.Random(1), random.Random(1)
    random.seed(12345)  # the global generator must not matter
    while not a.over:
        a.apply(random_action(a, ra, offer_rate=0.0))
        random.random()
    while not b.over:
        b.apply(random_action(b, rb, offer_rate=0.0))
    assert a.events == b.events
