"""The contract every format keeps, as one function its author calls: ``check_format(fmt)``.

It checks the ``Format`` itself (registered, its rules of its name, table sizes, smoke opponents that
are built-in bots, a replay drawing the site has), then random games at every table size it allows:
each ends, no card appears or vanishes, the same seed and actions give the same game, a view shows
its seat's hand and only public facts of the others, and a replay re-simulates exactly. A failure is
an ``AssertionError`` (hypothesis shows the smallest game that breaks it).

A new format's tests: put ``tests/formats`` and ``tests/engine`` on ``sys.path`` (as
``tests/formats/conftest.py`` does), register the format, and call ``check_format`` on it.
"""
from __future__ import annotations

import random
from typing import Callable, Iterable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.formats import Format, formats
from arena.paths import data_dir
from arena.submissions.names import builtin_bots
from engine import ClassicGame, IllegalAction, PrincesGame, new_game
from strategy.policies import random_action
from engine.replay import Replay, Resimulation
from engine_helpers import hidden_permuted

MAX_ACTIONS = 20_000  # far above any real game (a classic game of 5 takes ~1,000)
SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VIEW_SETTINGS = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.integers(0, 2**63 - 1)
POLICY_SEEDS = st.integers(0, 2**32 - 1)


def check_format(fmt: Format, players: Iterable[int] | None = None) -> None:
    """Run the whole battery on ``fmt`` (registered first), at each table size in ``players``
    (default: every size its rules allow)."""
    check_format_object(fmt)
    low, high = fmt.players
    for n in range(low, high + 1) if players is None else players:
        check_every_game_ends_with_every_card_accounted_for(fmt, n)
        check_the_same_seed_and_actions_give_the_same_game_and_replay(fmt, n)
        check_a_view_shows_its_own_hand_and_nothing_of_the_deck_or_other_hands(fmt, n)


def check_format_object(fmt: Format) -> None:
    """What the layers ask of the ``Format`` beyond its rules' games."""
    assert any(f is fmt for f in formats()), f"format {fmt.name!r} is not the registered one (arena.formats.register)"
    assert fmt.rules().variant == fmt.name, f"format {fmt.name!r} has rules of variant {fmt.rules().variant!r}"
    low, high = fmt.players
    assert 1 <= low <= high, f"format {fmt.name!r} seats {low}-{high} players"
    unknown = sorted(set(fmt.smoke_opponents) - set(builtin_bots()))
    assert fmt.smoke_opponents and not unknown, f"format {fmt.name!r}: smoke opponents {unknown!r} are no built-in bots"
    assert fmt.season_games >= 1, f"format {fmt.name!r}: season_games {fmt.season_games!r}"
    assert fmt.spectator.speed >= 1, f"format {fmt.name!r}: replay speed {fmt.spectator.speed!r}"
    table = data_dir("site") / "templates" / f"table-{fmt.spectator.table}.html"
    assert table.is_file(), f"format {fmt.name!r}: the site has no replay table {fmt.spectator.table!r} ({table})"
    fmt.spectator.facts(fmt.rules())  # the drawing's facts can be taken from its rules


def play_out(fmt: Format, players: int, seed: int, policy_seed: int,
             check: Callable[[ClassicGame | PrincesGame], None] = lambda game: None) -> ClassicGame | PrincesGame:
    game = new_game(fmt.rules(), players, seed)
    rng = random.Random(policy_seed)
    for _ in range(MAX_ACTIONS):
        if game.over:
            return game
        check(game)
        try:
            game.apply(random_action(game, rng, offer_rate=0.3))
        except IllegalAction:
            continue  # a random offer may be refused; the game must stay as it was
    raise AssertionError(f"{fmt.name} with {players} players did not end within {MAX_ACTIONS} actions")


def check_every_game_ends_with_every_card_accounted_for(fmt: Format, players: int) -> None:
    deck = fmt.rules().deck_size

    @SETTINGS
    @given(seed=SEEDS, policy_seed=POLICY_SEEDS)
    def check(seed: int, policy_seed: int) -> None:
        def conserved(game: ClassicGame | PrincesGame) -> None:
            assert game.card_count() == deck

        game = play_out(fmt, players, seed, policy_seed, conserved)
        assert game.card_count() == deck and game.result is not None
        assert len(game.result.ranks) == players

    check()


def check_the_same_seed_and_actions_give_the_same_game_and_replay(fmt: Format, players: int) -> None:
    @SETTINGS
    @given(seed=SEEDS, policy_seed=POLICY_SEEDS)
    def check(seed: int, policy_seed: int) -> None:
        game = play_out(fmt, players, seed, policy_seed)
        again = new_game(fmt.rules(), players, seed)
        for seat, action in game.history:
            assert again.to_move == seat
            again.apply(action)
        assert again.events == game.events and again.result == game.result
        replay = Replay.loads(Replay.of(game, [f"bot{k}" for k in range(players)]).dumps())
        assert replay.rules_id == fmt.rules().id
        assert Resimulation.of(replay).to_end().events == game.events and replay.result == game.result

    check()


def check_a_view_shows_its_own_hand_and_nothing_of_the_deck_or_other_hands(fmt: Format, players: int) -> None:
    @VIEW_SETTINGS
    @given(seed=SEEDS, policy_seed=POLICY_SEEDS)
    def check(seed: int, policy_seed: int) -> None:
        first = new_game(fmt.rules(), players, seed).view_json(0)
        keys = set(first)

        junk = random.Random(seed ^ 0x5EED)

        def hides(game: ClassicGame | PrincesGame) -> None:
            for seat in range(players):
                view = game.view_json(seat)
                assert hidden_permuted(game, seat, junk).view_json(seat) == view  # the hidden cards do not show
                assert set(view) == keys  # the same public shape for every seat, always
                assert view["hand"] == [b.value for b in game.seats[seat].hand]
                assert view["hand_sizes"] == [len(s.hand) for s in game.seats]
                assert view["deck_size"] == len(game.deck) and "deck" not in view
                assert type(game.view(seat)).from_json(view) == game.view(seat)  # the value is its JSON read back

        play_out(fmt, players, seed, policy_seed, hides)
        assert {"hand", "hand_sizes", "deck_size"} <= keys

    check()
