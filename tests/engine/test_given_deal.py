"""A game dealt from a given deck order (and vine) instead of its seed's shuffle: a chance player's deal
(training/spiel*.py). The seed's random stream stays the game's; the deal is the given order's."""
from __future__ import annotations

import random

import pytest

from engine import Bean, ClassicGame, PrincesGame, classic_rules, duel_rules


def test_a_classic_deal_follows_the_given_order_and_keeps_the_seeds_stream():
    rules = classic_rules()
    order = list(rules._deck)
    random.Random(9).shuffle(order)
    game = ClassicGame(rules, 3, 7, deck=order)
    for seat in range(3):  # one card at a time around the table, the first drawn first
        assert game.seats[seat].hand == order[seat::3][:rules.hand_size]
    assert list(reversed(game.deck)) == order[3 * rules.hand_size:]
    seeded = ClassicGame(rules, 3, 7)
    assert game._rng.getstate() == seeded._rng.getstate()  # reshuffles as the seed's game would
    assert seeded.seats[0].hand != game.seats[0].hand or seeded.deck != game.deck


def test_a_deck_that_is_not_the_rules_deck_is_refused_by_its_size():
    rules = classic_rules()
    short = list(rules._deck)[:-1]
    with pytest.raises(ValueError, match=f"a deck of {len(short)} cards that is not the classic"):
        ClassicGame(rules, 3, 0, deck=short)
    swapped = list(rules._deck)
    swapped[0] = Bean.GARDEN if swapped[0] is not Bean.GARDEN else Bean.RED
    with pytest.raises(ValueError, match="not the classic"):
        ClassicGame(rules, 3, 0, deck=swapped)


def test_a_duel_given_its_seeds_own_deal_is_that_game_and_follows_a_given_vine():
    rules = duel_rules()
    seeded = PrincesGame(rules, 2, 3)
    hands = [list(s.hand) for s in seeded.seats]
    drawn = [card for pair in zip(*hands) for card in pair] + list(reversed(seeded.deck))  # in draw order
    vine = list(reversed(seeded.vine))
    game = PrincesGame(rules, 2, 3, deck=drawn, vine=vine)
    assert [s.hand for s in game.seats] == hands and game.deck == seeded.deck
    assert game.vine == vine != seeded.vine
    with pytest.raises(ValueError, match="not the duel"):
        PrincesGame(rules, 2, 3, vine=vine[:-1])
