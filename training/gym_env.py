"""A Gymnasium single-agent environment: one learning seat, the others played by ladder bots in this process,
in the spirit of kaggle-environments' ``env.train([None, "greedy"])``.

    from training.gym_env import BohnanzaSingle
    e = BohnanzaSingle(format="duel", opponents=["greedy"], seat=0)
    obs, info = e.reset(seed=3)
    while True:
        obs, reward, terminated, truncated, info = e.step(policy(obs, info["action_mask"]))
        if terminated:
            break

It steps the PettingZoo environment (``training.aec``): the learner's decisions come to ``step``, the
others' are answered by their bots (``training.seats``) in between. ``seat=None`` draws the learner's seat
from the reset's seed. The observation is the learner's vector; ``info`` has its ``action_mask`` and, as in
the AEC environment, its ``view``, ``kind`` and the engine ``actions`` of the legal indices. An index the mask
does not allow is not an error here (Gymnasium's checker steps unmasked samples): the referee's forfeit policy
(``engine.defaults.default_action``) plays that decision, and ``info["illegal_action"]`` says so.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from engine.defaults import default_action
from training.actions import N_ACTIONS
from training.aec import BohnanzaEnv, final_reward
from training.observe import SIZE
from training.seats import BotSeat


class BohnanzaSingle(gym.Env[np.ndarray, np.int64]):
    """One seat learns; ``opponents`` (bot names or files, one per other seat) play the rest."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, format: str = "duel", opponents: Sequence[str] = ("greedy",), seat: int | None = 0,
                 render_mode: str | None = None) -> None:
        self.aec = BohnanzaEnv(format, len(opponents) + 1, render_mode)
        if seat is not None and not 0 <= seat < self.aec.players:
            raise ValueError(f"seat {seat!r} is not at a table of {self.aec.players}")
        self.fixed_seat = seat
        self.bots = [BotSeat(name) for name in opponents]
        self.observation_space = spaces.Box(0.0, 1.0, (SIZE,), np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.render_mode = render_mode
        self.seat = 0
        self._by_seat: dict[int, BotSeat] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        deal = int(self.np_random.integers(2**31)) if seed is None else seed
        rng = random.Random(deal)
        self.seat = self.fixed_seat if self.fixed_seat is not None else rng.randrange(self.aec.players)
        self.aec.reset(seed=deal)
        others = [k for k in range(self.aec.players) if k != self.seat]
        self._by_seat = dict(zip(others, self.bots))
        game = self.aec._game()
        for k, bot in self._by_seat.items():
            bot.start(game, k, rng.randrange(2**31))
        return self._advance()

    def _advance(self) -> tuple[np.ndarray, dict[str, Any]]:
        """Let the bots move until the learner must decide or the game ends; the learner's observation."""
        aec, game = self.aec, self.aec._game()
        while not game.over:
            decision = game.decision
            assert decision is not None  # a game that goes on waits for a decision
            bot = self._by_seat.get(decision.seat)
            if bot is None:
                break
            bot.play(game)
        if game.over:
            for bot in self._by_seat.values():
                bot.end(game)
        else:
            aec._next()
        agent = aec.possible_agents[self.seat]
        obs = aec.observe(agent)
        info = dict(aec.infos[agent]) if not game.over else {}
        info["action_mask"] = obs["action_mask"]
        return obs["observation"], info

    def step(self, action: int | np.int64) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        game = self.aec._game()
        if game.over:
            raise RuntimeError("the game is over: call reset()")
        try:
            chosen, illegal = self.aec.action_of(int(action)), False
        except ValueError:  # an unmasked index: the referee's forfeit policy plays this decision instead
            chosen, illegal = default_action(game), True
        game.apply(chosen)
        obs, info = self._advance()
        info["illegal_action"] = illegal
        if not game.over:
            return obs, 0.0, False, False, info
        result = game.result
        assert result is not None  # a game that is over has its result
        info.update(coins=result.coins, ranks=result.ranks, seat=self.seat,
                    forfeits={k: b.failed for k, b in self._by_seat.items() if b.failed})
        return obs, final_reward(result.ranks[self.seat], result.coins[self.seat], result.coins), True, False, info

    def render(self) -> str | None:
        return self.aec.render()
