"""The PettingZoo environment (training/aec.py): PettingZoo's own API and seed tests, the action space, rewards."""
from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra: pip install -e '.[test,rl]'")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from engine.actions import DecisionKind, EndTrading, Offer, Pass, Plant  # noqa: E402
from engine.classic import ClassicGame  # noqa: E402
from engine.rules import classic_rules  # noqa: E402
from training.actions import ACCEPT, N_ACTIONS, OFFER0, OFFER_SLOTS, choices, describe, index_of  # noqa: E402
from training.aec import BohnanzaEnv, env, final_reward  # noqa: E402

TABLES = [("classic", 3), ("classic", 5), ("duel", None), ("solo", None)]


@pytest.mark.parametrize("format,players", TABLES)
def test_pettingzoo_api_test(format, players):
    api_test(env(format, players), num_cycles=200)


@pytest.mark.parametrize("format,players", TABLES)
def test_pettingzoo_seed_test(format, players):
    seed_test(lambda: env(format, players), num_cycles=200)


def test_a_masked_random_game_ends_with_rewards_by_rank():
    e = env("classic", 4)
    e.reset(seed=11)
    rewards = {a: 0.0 for a in e.possible_agents}
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        rewards[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(e.action_space(agent).sample(obs["action_mask"])))
        steps += 1
    assert steps > 50 and e.game is not None and e.game.result is not None
    ranks = e.game.result.ranks
    best = min(range(4), key=lambda k: (ranks[k], k))
    assert rewards[f"seat_{best}"] == max(rewards.values())


def test_every_index_is_described_and_options_map_back():
    assert len({describe(i) for i in range(N_ACTIONS)}) == N_ACTIONS
    assert index_of(Pass()) == 0 and index_of(EndTrading()) == 1 and describe(ACCEPT) == "accept"
    assert index_of(Plant(2)) is not None and index_of(Offer(give_trade=(0,))) is None  # offers only by slot
    with pytest.raises(ValueError, match="no action index"):
        describe(N_ACTIONS)


def test_offer_slots_are_legal_offers_to_everybody():
    game = ClassicGame(classic_rules(), 3, 5)
    while game.decision is not None and game.decision.kind is not DecisionKind.TRADE_OFFER:
        game.apply(game.decision.options[0])
    decision = game.decision
    assert decision is not None
    picked = choices(game.rules, game.view(decision.seat), decision.kind, decision.options)
    offers = [a for i, a in picked.actions.items() if i >= OFFER0]
    assert all(isinstance(o, Offer) and o.to is None and o.give_trade for o in offers)
    assert len(OFFER_SLOTS) == N_ACTIONS - OFFER0


def test_rewards():
    assert final_reward(1, 10, (10, 4, 4)) == pytest.approx(1 + 0.05 * 6)
    assert final_reward(3, 4, (10, 6, 4)) == pytest.approx(-1 + 0.05 * (4 - 8))
    assert final_reward(1, 0, (0,)) == 1.0 and final_reward(2, 0, (0,)) == -1.0


def test_formats_and_table_sizes_are_checked():
    with pytest.raises(ValueError, match="unknown format"):
        BohnanzaEnv("chess")
    with pytest.raises(ValueError, match="3-5 players"):
        BohnanzaEnv("classic", 2)
