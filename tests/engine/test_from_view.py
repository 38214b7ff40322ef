"""Games rebuilt from one seat's view and a guess of what it hides (``from_view``, engine/hidden.py), and
``clone``: both kinds of game, each checked against the game it comes from."""
from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Iterator

import pytest

from engine import ClassicGame, DecisionKind, PrincesGame, new_game, rules_for
from engine.hidden import CLASSIC_KINDS, Hidden
from strategy.policies import random_action


def classic_positions(players: int, seed: int, every: int = 5) -> Iterator[ClassicGame]:
    """A random classic game at the decisions ``from_view`` supports, every ``every``-th one."""
    game = new_game(rules_for("classic"), players, seed)
    assert isinstance(game, ClassicGame)
    rng = random.Random(seed)
    step = 0
    while not game.over:
        d = game.decision
        assert d is not None
        if d.kind in CLASSIC_KINDS and step % every == 0 and (
                d.kind is not DecisionKind.TRADE_OFFER or (game.offer is None and not game.responses)):
            yield game
        step += 1
        game.apply(random_action(game, rng, offer_rate=0.3))


def princes_positions(variant: str, seed: int, every: int = 3) -> Iterator[PrincesGame]:
    rules = rules_for(variant)
    game = new_game(rules, rules.min_players, seed)
    assert isinstance(game, PrincesGame)
    rng = random.Random(seed)
    step = 0
    while not game.over:
        if step % every == 0:
            yield game
        step += 1
        game.apply(random_action(game, rng))


def truth(game: ClassicGame | PrincesGame) -> Hidden:
    """What the views hide, as it really is."""
    hidden = Hidden(tuple(tuple(s.hand) for s in game.seats), tuple(game.deck), tuple(game.discard),
                    tuple(tuple(s.treasury) for s in game.seats))
    if isinstance(game, PrincesGame):
        return dataclasses.replace(hidden, box=tuple(game.box), vine=tuple(game.vine))
    return hidden


def test_a_classic_game_from_the_true_hidden_cards_is_the_game_itself() -> None:
    for game in classic_positions(4, 11):
        decision = game.decision
        assert decision is not None
        built = ClassicGame.from_view(game.rules, game.view(decision.seat), truth(game), decision.kind)
        assert [built.view(s) for s in range(4)] == [game.view(s) for s in range(4)]
        assert built.decision == game.decision and built.card_count() == game.card_count() == 104
        assert built.events == [] and built.history == []
        assert set(vars(built)) == set(vars(game))


@pytest.mark.parametrize("variant", ["duel", "solo"])
def test_a_princes_game_from_the_true_hidden_cards_plays_on_as_the_game_itself(variant: str) -> None:
    """Built with the real seed, even the reshuffles (the game's own random stream) come out alike."""
    checked = 0
    for game in princes_positions(variant, 5, every=7):
        decision = game.decision
        assert decision is not None
        built = PrincesGame.from_view(game.rules, game.view(decision.seat), truth(game), game.seed)
        assert set(vars(built)) == set(vars(game)) and built.events == [] and built.history == []
        if game.reshuffles == 0:
            copy, rng = game.clone(), random.Random(checked)
            while not copy.over:
                assert built.decision == copy.decision and built.view(copy.to_move) == copy.view(copy.to_move)
                action = random_action(copy, rng)
                built.apply(action)
                copy.apply(action)
            assert built.result == copy.result
        else:
            assert [built.view(s) for s in range(len(game.seats))] == [game.view(s) for s in range(len(game.seats))]
        checked += 1
    assert checked > 3


def test_a_princes_guess_of_the_wrong_shape_is_refused() -> None:
    game = next(princes_positions("duel", 2))
    view, hidden = game.view(0), truth(game)
    with pytest.raises(ValueError, match="deck of"):
        PrincesGame.from_view(game.rules, view, dataclasses.replace(hidden, deck=hidden.deck[1:]), 1)
    with pytest.raises(ValueError, match="face-up"):
        PrincesGame.from_view(game.rules, view, dataclasses.replace(hidden, vine=hidden.vine[::-1]), 1)
    with pytest.raises(ValueError, match="viewer's hand"):
        wrong = (tuple(reversed(hidden.hands[0])) + (hidden.deck[0],), hidden.hands[1])
        PrincesGame.from_view(game.rules, view, dataclasses.replace(hidden, hands=wrong), 1)
    with pytest.raises(ValueError, match="view of duel-v1, rules classic"):
        PrincesGame.from_view(rules_for("classic"), view, hidden, 1)


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_a_clone_is_the_same_game_and_independent_of_it(variant: str) -> None:
    positions: Iterator[ClassicGame | PrincesGame] = (
        classic_positions(3, 4) if variant == "classic" else princes_positions(variant, 4))
    for n, game in enumerate(positions):
        if n > 12:
            break
        copy = game.clone()
        assert set(vars(copy)) == set(vars(game)) and copy.events == [] and copy.history == []
        seats = range(len(game.seats))
        assert [copy.view(s) for s in seats] == [game.view(s) for s in seats] and copy.decision == game.decision
        before = [game.view(s) for s in seats], game.card_count(), len(game.events)
        rng = random.Random(n)
        while not copy.over:  # to the end, reshuffles included
            copy.apply(random_action(copy, rng))
        assert ([game.view(s) for s in seats], game.card_count(), len(game.events)) == before


def test_a_clone_with_a_shuffle_hides_the_deck_order_only() -> None:
    game = next(g for g in classic_positions(4, 9) if len(g.deck) > 20)
    copy = game.clone(shuffle=random.Random(1))
    assert copy.deck != game.deck and Counter(copy.deck) == Counter(game.deck)
    assert [copy.view(s) for s in range(4)] == [game.view(s) for s in range(4)]
