"""strategy.determinize: sampled states agree with the view they come from and conserve the deck."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Iterator

import pytest
from hypothesis import given, settings, strategies as st

from engine import ClassicGame, DecisionKind, PrincesGame, classic_rules, new_game, rules_for
from strategy.determinize import (
    SUPPORTED_KINDS, Hidden, build_game, build_princes_game, follow_princes_discard, sample_hidden, unseen_cards,
)
from strategy.policies import random_action

RULES = classic_rules()


def positions(players: int, seed: int, every: int = 7) -> Iterator[tuple[ClassicGame, int]]:
    """(game, seat) at supported decisions of a random game, every ``every``-th decision."""
    game = new_game(RULES, players, seed)
    assert isinstance(game, ClassicGame)
    rng = random.Random(seed)
    step = 0
    while not game.over:
        d = game.decision
        assert d is not None
        if d.kind in SUPPORTED_KINDS and step % every == 0:
            if d.kind is not DecisionKind.TRADE_OFFER or (game.offer is None and not game.responses):
                yield game, d.seat
        step += 1
        game.apply(random_action(game, rng))


def waiting_kind(game: ClassicGame) -> DecisionKind:
    """The kind of decision ``game`` waits for (it is not over)."""
    assert game.decision is not None, "the game is over"
    return game.decision.kind


def true_hidden(game) -> Hidden:
    return Hidden(tuple(tuple(s.hand) for s in game.seats), tuple(game.deck), tuple(game.discard),
                  tuple(tuple(s.treasury) for s in game.seats))


@settings(max_examples=15, deadline=None)
@given(players=st.integers(3, 5), seed=st.integers(0, 10_000))
def test_sampled_state_shows_the_same_view_and_conserves_cards(players: int, seed: int) -> None:
    checked = 0
    for game, seat in positions(players, seed):
        for viewer in {seat, (seat + 1) % players}:
            view = game.view(viewer)
            rng = random.Random(seed + checked)
            hidden = sample_hidden(RULES, view, game.discard, [s.treasury for s in game.seats], rng)
            built = build_game(RULES, view, hidden, waiting_kind(game), seed=checked)
            assert built.view(viewer) == view
            assert built.card_count() == RULES.deck_size == 104
            assert built.decision is not None and game.decision is not None
            assert built.decision.seat == game.decision.seat
            assert built.decision.kind is game.decision.kind
            assert built.coins() == game.coins()
            for other in range(players):
                assert len(built.seats[other].hand) == len(game.seats[other].hand)
            # the viewer's own legal options are those of the real game
            if game.decision.seat == viewer:
                assert built.legal_actions() == game.legal_actions()
            checked += 1
    assert checked > 0


def test_unseen_cards_are_the_other_hands_and_the_deck() -> None:
    for game, seat in positions(4, 5, every=3):
        view = game.view(seat)
        pool = unseen_cards(RULES, view, game.discard, [s.treasury for s in game.seats])
        truth = Counter(game.deck)
        for other, s in enumerate(game.seats):
            if other != seat:
                truth.update(s.hand)
        assert pool == +truth


def test_true_hidden_state_replays_the_real_game_until_a_reshuffle() -> None:
    """Built from the real hidden cards, the copy follows the real game move for move (until a
    reshuffle, which each game draws from its own random generator)."""
    game = new_game(RULES, 4, 21)
    assert isinstance(game, ClassicGame)
    rng = random.Random(21)
    for _ in range(120):
        game.apply(random_action(game, rng))
    while waiting_kind(game) not in (DecisionKind.PLANT_FIRST, DecisionKind.PLANT_TRADED):
        game.apply(random_action(game, rng))
    built = build_game(RULES, game.view(0), true_hidden(game), waiting_kind(game))
    reshuffles = game.reshuffles
    moves = 0
    while not game.over and game.reshuffles == reshuffles and moves < 300:
        assert built.decision == game.decision
        assert [built.view(s) for s in range(4)] == [game.view(s) for s in range(4)]
        action = random_action(game, rng)
        game.apply(action)
        built.apply(action)
        moves += 1
    assert moves > 20


def test_known_cards_stay_in_their_seat() -> None:
    for game, seat in positions(3, 4, every=5):
        other = (seat + 1) % 3
        hand = game.seats[other].hand
        if not hand:
            continue
        view = game.view(seat)
        hidden = sample_hidden(RULES, view, game.discard, [s.treasury for s in game.seats],
                               random.Random(0), known_in_hand={other: [hand[0]]})
        assert hand[0] in hidden.hands[other]
        build_game(RULES, view, hidden, waiting_kind(game))


def test_inconsistent_inputs_are_refused() -> None:
    game, seat = next(positions(4, 3, every=1))
    view = game.view(seat)
    treasuries = [s.treasury for s in game.seats]
    hidden = sample_hidden(RULES, view, game.discard, treasuries, random.Random(0))
    with pytest.raises(ValueError):
        build_game(RULES, view, replace(hidden, deck=hidden.deck[1:]), waiting_kind(game))
    with pytest.raises(ValueError):
        wrong = list(hidden.hands)
        wrong[seat] = tuple(reversed(wrong[seat])) if len(set(wrong[seat])) > 1 else ()
        build_game(RULES, view, replace(hidden, hands=tuple(wrong)), waiting_kind(game))
    with pytest.raises(ValueError):
        build_game(RULES, view, hidden, DecisionKind.TRADE_CONFIRM)
    with pytest.raises(ValueError):
        sample_hidden(RULES, view, list(game.discard) + [view.hand[0]], treasuries, random.Random(0))


def test_built_game_sets_every_attribute_of_a_new_game() -> None:
    """build_game (``ClassicGame.from_view``) skips ``__init__`` for speed; it must still set everything it sets."""
    game, seat = next(positions(4, 8, every=1))
    view = game.view(seat)
    hidden = sample_hidden(RULES, view, game.discard, [s.treasury for s in game.seats], random.Random(0))
    built = build_game(RULES, view, hidden, waiting_kind(game))
    assert set(vars(built)) == set(vars(new_game(RULES, 4, 1)))


@pytest.mark.parametrize("variant", ["duel", "solo"])
def test_a_princes_guess_shows_the_same_view_and_conserves_cards(variant: str) -> None:
    rules = rules_for(variant)
    game = new_game(rules, rules.min_players, 7)
    assert isinstance(game, PrincesGame)
    rng = random.Random(7)
    piles: list[list] = [[] for _ in game.seats]
    seen = [0] * len(game.seats)
    checked = 0
    while not game.over:
        seat = game.to_move
        follow_princes_discard(piles[seat], game.events[seen[seat]:])
        seen[seat] = len(game.events)
        assert piles[seat] == game.discard  # the pile followed from the public events is the real one
        view = game.view(seat)
        built = build_princes_game(rules, view, random.Random(checked), piles[seat] if checked % 2 else None)
        others_gold = sum(s.coins for k, s in enumerate(game.seats) if k != seat)  # guessed as none
        assert built.view(seat) == view and built.card_count() == game.card_count() - others_gold
        assert built.events == [] and built.legal_actions() == game.legal_actions()
        checked += 1
        game.apply(random_action(game, rng))
    assert checked > 20
