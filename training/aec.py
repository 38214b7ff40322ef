"""A PettingZoo AEC environment over the engine: classic (3-5 seats), duel (2) and solo (1).

    from training.aec import env
    e = env(format="duel")
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        e.step(None if terminated or truncated else policy(obs["observation"], obs["action_mask"]))

Agents are ``seat_0``... in seat order; the one to move is the engine's decision's seat. An observation is
``{"observation": float32[SIZE], "action_mask": int8[N_ACTIONS]}`` (``training.observe``, ``training.actions``);
``infos[agent]`` of the agent to move holds its ``view`` (the engine's value), the decision's ``kind`` and
the engine ``actions`` behind each legal index. Rewards come once, at the game's end (``final_reward``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from engine.actions import Action
from engine.classic import ClassicGame
from engine.game import new_game
from engine.princes import PrincesGame
from engine.rules import Rules, rules_for
from training.actions import N_ACTIONS, Choices, choices
from training.observe import SIZE, observe

FORMATS = {"classic": (3, 5), "duel": (2, 2), "solo": (1, 1)}  # table sizes each format allows
COIN_WEIGHT = 0.05  # reward per coin above the other seats' mean


def final_reward(rank: int, coins: int, all_coins: tuple[int, ...]) -> float:
    """A seat's reward at the end: +1 for first down to -1 for last by rank (solo: +1 won, -1 lost), plus
    ``COIN_WEIGHT`` per coin above the mean of the other seats' coins (solo: none)."""
    n = len(all_coins)
    by_rank = 1.0 - 2.0 * (rank - 1) / (max(n, 2) - 1)
    if n == 1:
        return max(-1.0, by_rank)
    others = (sum(all_coins) - coins) / (n - 1)
    return by_rank + COIN_WEIGHT * (coins - others)


def table_rules(format: str, players: int | None) -> tuple[Rules, int]:
    """The rules and table size of ``format`` (``players``: None for the format's smallest table)."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    low, high = FORMATS[format]
    n = low if players is None else players
    if not low <= n <= high:
        raise ValueError(f"{format} is for {low}-{high} players, not {players!r}")
    return rules_for(format), n


class BohnanzaEnv(AECEnv[str, dict[str, Any], int]):
    """Bohnanza as an agent-environment-cycle game; ``reset(seed)`` deals the deck from ``seed``."""

    metadata = {"name": "bohnanza_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, format: str = "classic", players: int | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        self.format = format
        self.rules, self.players = table_rules(format, players)
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{i}" for i in range(self.players)]
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8)})
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.game: ClassicGame | PrincesGame | None = None
        self._choices: Choices | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = int(np.random.default_rng().integers(2**31))
        self.game = new_game(self.rules, self.players, seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._next()

    def _next(self) -> None:
        """Point ``agent_selection`` at the seat to move and fill its info."""
        game = self._game()
        decision = game.decision
        assert decision is not None, "the game is over"
        seat = decision.seat
        view = game.view(seat)
        self._choices = choices(self.rules, view, decision.kind, decision.options)
        for agent in self.agents:
            self.infos[agent] = {}
        self.agent_selection = self.possible_agents[seat]
        self.infos[self.agent_selection] = {"view": view, "kind": decision.kind, "actions": self._choices.actions}

    def _game(self) -> ClassicGame | PrincesGame:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def observe(self, agent: str) -> dict[str, Any]:
        game = self._game()
        seat = self.possible_agents.index(agent)
        decision = game.decision
        to_move = decision is not None and decision.seat == seat
        mask = np.zeros(N_ACTIONS, np.int8)
        if to_move and self._choices is not None:
            mask[list(self._choices.actions)] = 1
        kind = decision.kind if to_move and decision is not None else None
        return {"observation": np.asarray(observe(game.view(seat), kind), np.float32), "action_mask": mask}

    def action_of(self, index: int) -> Action:
        """The engine action that index ``index`` plays now (a ``ValueError`` when it is not legal)."""
        if self._choices is None or index not in self._choices.actions:
            raise ValueError(f"action {index!r} is not legal now (legal: {self._choices and self._choices.legal()})")
        return self._choices.actions[index]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is no action")
        game = self._game()
        game.apply(self.action_of(int(action)))
        self._cumulative_rewards[agent] = 0.0
        if game.over:
            result = game.result
            assert result is not None  # a game that is over has its result
            for i, a in enumerate(self.agents):
                self.rewards[a] = final_reward(result.ranks[i], result.coins[i], result.coins)
                self.terminations[a] = True
                self.infos[a] = {"coins": result.coins[i], "rank": result.ranks[i]}
            self._choices = None
        else:
            self._next()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        return str(self.game.public_state_json())

    def close(self) -> None:
        self.game = None


def env(format: str = "classic", players: int | None = None, render_mode: str | None = None) -> BohnanzaEnv:
    """A new environment (PettingZoo's usual constructor name)."""
    return BohnanzaEnv(format, players, render_mode)
