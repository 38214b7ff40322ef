"""The duel as an OpenSpiel game (training/spiel.py): OpenSpiel's random-simulation test, resampling, IS-MCTS."""
from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra: pip install -e '.[test,rl]'")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from training.spiel import SHORT_NAME  # noqa: E402


def dealt(seed: int):
    state = pyspiel.load_game(SHORT_NAME).new_initial_state()
    rng = random.Random(seed)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        assert sum(probs) == pytest.approx(1.0)
        state.apply_action(rng.choices(outcomes, probs)[0])
    return state


def test_openspiel_random_simulation_test():
    pyspiel.random_sim_test(pyspiel.load_game(SHORT_NAME), num_sims=1, serialize=False, verbose=False)


def test_the_deal_is_chance_nodes_for_every_supply_and_vine_card():
    state = dealt(1)
    game = state.engine_game
    assert game is not None and len(state.history()) == game.rules.deck_size + 28
    assert state.current_player() == 0 and state.legal_actions()


def test_a_resampled_state_keeps_the_seats_information_and_changes_the_hidden_cards():
    state = dealt(2)
    seat = state.current_player()
    key = state.information_state_string(seat)
    other_hands = set()
    for k in range(5):
        sample = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert sample.information_state_string(seat) == key
        assert sample.legal_actions() == state.legal_actions()
        other_hands.add(tuple(sample.engine_game.seats[1 - seat].hand))
    assert len(other_hands) > 1
    with pytest.raises(ValueError, match="not to move"):
        state.resample_from_infostate(1 - seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))


def test_openspiel_information_set_mcts_plays_a_move():
    state = dealt(3)
    game = state.get_game()
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 4, random_state=np.random.RandomState(0))
    action = bot.step(state)
    assert action in state.legal_actions()
