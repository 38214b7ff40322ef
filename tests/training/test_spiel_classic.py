"""The classic game as an OpenSpiel game (training/spiel_classic.py): OpenSpiel's random-simulation test, the
chance deal, resampling mid-round, returns by rank, IS-MCTS."""
from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra: pip install -e '.[test,rl]'")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from engine.actions import Accept, DecisionKind, Offer  # noqa: E402
from training.spiel import zero_sum_returns  # noqa: E402
from training.spiel_classic import SHORT_NAME  # noqa: E402

SAMPLER = pyspiel.UniformProbabilitySampler(0.0, 1.0)


def dealt(seed: int, players: int = 3):
    state = pyspiel.load_game(SHORT_NAME, {"players": players}).new_initial_state()
    rng = random.Random(seed)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        assert sum(probs) == pytest.approx(1.0)
        state.apply_action(rng.choices(outcomes, probs)[0])
    return state


@pytest.mark.parametrize("players", [3, 5])
def test_openspiel_random_simulation_test(players):
    pyspiel.random_sim_test(pyspiel.load_game(SHORT_NAME, {"players": players}), num_sims=1, serialize=False,
                            verbose=False)


def test_a_table_size_outside_the_rules_is_refused_by_name():
    with pytest.raises(ValueError, match="3-5 players, not 6"):
        pyspiel.load_game(SHORT_NAME, {"players": 6})


def test_the_deal_is_a_chance_node_per_deck_card_and_the_hands_are_its_first_cards():
    state = dealt(1, 4)
    game = state.engine_game
    history = state.history()
    assert len(history) == game.rules.deck_size
    beans = game.rules.beans
    dealt_in_order = [beans[a] for a in history]
    for seat in range(4):  # dealt one at a time around the table
        assert game.seats[seat].hand == dealt_in_order[seat::4][:game.rules.hand_size]
    assert game.deck[-1] == dealt_in_order[4 * game.rules.hand_size]  # the next card drawn
    assert state.current_player() == 0 and state.legal_actions()


def test_returns_are_by_rank_and_sum_to_zero_with_ties():
    assert zero_sum_returns((1, 2, 3)) == [1.0, 0.0, -1.0]
    assert zero_sum_returns((1, 1, 3)) == [0.5, 0.5, -1.0]
    assert zero_sum_returns((2, 1, 2, 4)) == pytest.approx([0.0, 1.0, 0.0, -1.0])
    assert zero_sum_returns((1, 1)) == [0.0, 0.0]
    with pytest.raises(ValueError, match="two seats"):
        zero_sum_returns((1,))


def play_until(state, rng, stop):
    while not state.is_terminal() and not stop(state):
        state.apply_action(rng.choice(state.legal_actions()))
    assert not state.is_terminal(), "the game ended first"


def test_a_resample_mid_round_keeps_the_seats_information_and_changes_the_hidden_cards():
    state, rng = dealt(2), random.Random(2)
    # an accepted offer: the responder showed cards the resampled hand must hold, at places the view never gives
    play_until(state, rng, lambda s: s.engine_game.decision.kind is DecisionKind.TRADE_CONFIRM
               and any(r.accept for r in s.engine_game.responses))
    seat = state.current_player()
    assert state.round and any(isinstance(r.action, Accept) and r.hand_beans for r in state.round)
    key = state.information_state_string(seat)
    others = set()
    for _ in range(6):
        sample = state.resample_from_infostate(seat, SAMPLER)
        assert sample.information_state_string(seat) == key
        assert sample.legal_actions() == state.legal_actions()
        others.add(tuple(tuple(s.hand) for k, s in enumerate(sample.engine_game.seats) if k != seat))
    assert len(others) > 1
    with pytest.raises(ValueError, match="not to move"):
        state.resample_from_infostate((seat + 1) % 3, SAMPLER)


def test_an_offer_beyond_the_action_space_is_played_and_replayed_on_resamples():
    state, rng = dealt(4), random.Random(4)
    play_until(state, rng, lambda s: s.engine_game.decision.kind is DecisionKind.TRADE_RESPOND)
    game = state.engine_game
    responder = game.decision.seat
    wanted = game.seats[game.active].trade[0]
    counter = Offer(give_hand=(1, 0), want=(wanted,), to=game.active)  # two hand cards for a trading-area card
    hand_before = list(game.seats[responder].hand)
    state.apply_engine_action(counter)
    assert state.round[-1].hand_beans == tuple(hand_before[i] for i in counter.give_hand)
    while not state.is_terminal() and state.round and state.current_player() != state.engine_game.active:
        state.apply_action(rng.choice(state.legal_actions()))
    seat = state.current_player()
    assert any(done.action == counter for done in state.round)  # the resample replays it
    key = state.information_state_string(seat)
    for _ in range(4):
        assert state.resample_from_infostate(seat, SAMPLER).information_state_string(seat) == key


def test_openspiel_information_set_mcts_plays_a_move():
    state = dealt(3)
    game = state.get_game()
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 4, random_state=np.random.RandomState(0))
    action = bot.step(state)
    assert action in state.legal_actions()
