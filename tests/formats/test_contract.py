"""The contract every registered format keeps, checked on random games of each (and of every table
size it allows): it ends, no card appears or vanishes, the same seed and actions give the same game,
a view shows its seat's hand and only public facts of the others, and a replay re-simulates exactly.
A format registered later (arena.formats.register) is checked by the same battery."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.formats import Format, formats
from engine import IllegalAction, new_game
from engine.policies import random_action
from engine.replay import Replay, resimulate
from engine_helpers import hidden_permuted

CASES = [(fmt, players) for fmt in formats() for players in range(fmt.players[0], fmt.players[1] + 1)]
IDS = [f"{fmt.name}-{players}p" for fmt, players in CASES]
SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_ACTIONS = 20_000  # far above any real game (a classic game of 5 takes ~1,000)


def play_out(fmt: Format, players: int, seed: int, policy_seed: int, check=lambda game: None):  # type: ignore[no-untyped-def]
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


@pytest.mark.parametrize("fmt,players", CASES, ids=IDS)
@SETTINGS
@given(seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32 - 1))
def test_every_game_ends_with_every_card_accounted_for(fmt: Format, players: int, seed: int, policy_seed: int) -> None:
    deck = fmt.rules().deck_size

    def conserved(game) -> None:  # type: ignore[no-untyped-def]
        assert game.card_count() == deck

    game = play_out(fmt, players, seed, policy_seed, conserved)
    assert game.card_count() == deck and game.result is not None
    assert len(game.result.ranks) == players


@pytest.mark.parametrize("fmt,players", CASES, ids=IDS)
@SETTINGS
@given(seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32 - 1))
def test_the_same_seed_and_actions_give_the_same_game_and_replay(fmt: Format, players: int, seed: int,
                                                                  policy_seed: int) -> None:
    game = play_out(fmt, players, seed, policy_seed)
    again = new_game(fmt.rules(), players, seed)
    for seat, action in game.history:
        assert again.to_move == seat
        again.apply(action)
    assert again.events == game.events and again.result == game.result
    replay = Replay.loads(Replay.of(game, [f"bot{k}" for k in range(players)]).dumps())
    assert replay.rules_id == fmt.rules().id
    assert resimulate(replay).events == game.events and replay.result == game.result


@pytest.mark.parametrize("fmt,players", CASES, ids=IDS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32 - 1))
def test_a_view_shows_its_own_hand_and_nothing_of_the_deck_or_other_hands(fmt: Format, players: int, seed: int,
                                                                 policy_seed: int) -> None:
    first = new_game(fmt.rules(), players, seed).view_json(0)
    keys = set(first)

    junk = random.Random(seed ^ 0x5EED)

    def hides(game) -> None:  # type: ignore[no-untyped-def]
        for seat in range(players):
            view = game.view_json(seat)
            assert hidden_permuted(game, seat, junk).view_json(seat) == view  # the hidden cards do not show
            assert set(view) == keys  # the same public shape for every seat, always
            assert view["hand"] == [b.value for b in game.seats[seat].hand]
            assert view["hand_sizes"] == [len(s.hand) for s in game.seats]
            assert view["deck_size"] == len(game.deck) and "deck" not in view
            assert view == game.view(seat).to_json()

    play_out(fmt, players, seed, policy_seed, hides)
    assert {"hand", "hand_sizes", "deck_size"} <= keys
