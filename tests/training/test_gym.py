"""The Gymnasium single-agent wrapper (training/gym_env.py): ladder bots seated in-process around one learner."""
from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="the rl extra: pip install -e '.[test,rl]'")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from training.gym_env import BohnanzaSingle  # noqa: E402


@pytest.mark.parametrize("format,opponents", [("duel", ["greedy"]), ("classic", ["greedy", "random"]), ("solo", [])])
def test_a_game_against_ladder_bots_ends_with_a_reward(format, opponents):
    env = BohnanzaSingle(format, opponents, seat=None)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    done, reward, steps = False, 0.0, 0
    while not done:
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, done, truncated, info = env.step(action)
        steps += 1
        assert not truncated
    assert steps > 5 and -2 < reward < 2
    assert info["forfeits"] == {}  # the seated bots played every decision themselves
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)


def test_the_same_seed_deals_and_plays_the_same_game():
    def play() -> tuple[int, ...]:
        env = BohnanzaSingle("classic", ["greedy", "greedy"], seat=1)
        _, info = env.reset(seed=9)
        done = False
        while not done:
            _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        return tuple(info["coins"])

    assert play() == play()


def test_gymnasiums_environment_checker_passes():
    check_env(BohnanzaSingle("duel", ["greedy"], seat=None), skip_render_check=True)


def test_an_unmasked_index_plays_the_forfeit_policy():
    env = BohnanzaSingle("duel", ["greedy"], seat=0)
    _, info = env.reset(seed=1)
    illegal = next(i for i, ok in enumerate(info["action_mask"]) if not ok)
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"] is True


def test_a_seat_beyond_the_table_is_refused():
    with pytest.raises(ValueError, match="seat 2"):
        BohnanzaSingle("duel", ["greedy"], seat=2)
