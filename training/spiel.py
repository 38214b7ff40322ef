"""The duel as an OpenSpiel Python game, registered with ``pyspiel`` as ``python_bohnanza_duel``.

    import pyspiel
    import training.spiel  # registers the game
    game = pyspiel.load_game("python_bohnanza_duel")

Chance deals: the game opens with one chance node per card of the supply, in draw order (outcome: the bean's
index in the rules' beans, with probability by the cards of that bean still to place), then one per vine card
(outcome: the index of its task among the tasks still to place, uniform). Later reshuffles of the discard pile
are no chance nodes: the engine reshuffles from its own stream, the same in every game (a known gap: a player
that memorised the pile could know the new order; the resampler below never uses it).

Player actions are the indices of ``training.actions`` (no offers: the duel does not trade). Returns are +1
for the winner, -1 for the loser, 0 each for a tie. The observation is ``training.observe``'s vector and the
seat's view as JSON; the information state adds the seat's own actions so far. ``resample_from_infostate``
deals what the seat cannot see at random (``strategy.determinize.build_princes_game``, the discard pile as the
public events show it), so OpenSpiel's information-set MCTS can search the game.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any, Generic, TypeVar

import numpy as np
import pyspiel

from engine.actions import DecisionKind
from engine.cards import Bean
from engine.classic import ClassicGame
from engine.princes import PrincesGame
from engine.rules import Rules, duel_rules
from strategy.determinize import build_princes_game
from training.actions import N_ACTIONS, describe, index_of
from training.observe import SIZE, observe

SHORT_NAME = "python_bohnanza_duel"
MAX_LENGTH = 6000  # far beyond any game seen (random play: about 130 chance nodes and 600 moves)
RULES = duel_rules()
TASKS: tuple[str, ...] = tuple(sorted(RULES.princes.tasks)) if RULES.princes else ()

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Bohnanza duel (the ladder's duel rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={},
)
_GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=N_ACTIONS,
    max_chance_outcomes=max(len(RULES.beans), len(TASKS)),
    num_players=2,
    min_utility=-1.0,
    max_utility=1.0,
    utility_sum=0.0,
    max_game_length=MAX_LENGTH,
)


def dealt_game(rules: Rules, draws: list[Bean], vine: list[str]) -> PrincesGame:
    """A duel dealt from ``draws`` (the supply in draw order) and ``vine`` (card 1's task first); its random
    stream (the reshuffles) is that of seed 0."""
    return PrincesGame(rules, 2, 0, deck=draws, vine=vine)


def player_to_move(game: PrincesGame | ClassicGame | None) -> int:
    """OpenSpiel's player of a state whose engine game is ``game`` (None: still dealing, a chance node)."""
    if game is None:
        return int(pyspiel.PlayerId.CHANCE)
    if game.over or game.decision is None:
        return int(pyspiel.PlayerId.TERMINAL)
    return game.decision.seat


def zero_sum_returns(ranks: tuple[int, ...]) -> list[float]:
    """+1 for the first place down to -1 for the last; seats that share a rank share the mean of their places."""
    n = len(ranks)
    if n < 2:
        raise ValueError(f"returns by rank need two seats or more, not {n}")

    def place_value(place: int) -> float:
        return 1.0 - 2.0 * (place - 1) / (n - 1)
    shared = Counter(ranks)
    return [sum(place_value(r + k) for k in range(shared[r])) / shared[r] for r in ranks]


G = TypeVar("G", PrincesGame, ClassicGame)


class Table(Generic[G]):
    """The engine game inside a state; OpenSpiel copies a state's attributes deeply, and this copies the game
    with the engine's own ``clone`` (events and history are not carried: nothing here reads them)."""

    def __init__(self, game: G) -> None:
        self.game: G = game

    def __deepcopy__(self, memo: dict[int, Any]) -> Table[G]:
        return Table(self.game.clone())


class DuelGame(pyspiel.Game):
    """The game: its constants only."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(_GAME_TYPE, _GAME_INFO, params or {})
        self.rules = RULES

    def new_initial_state(self) -> DuelState:
        return DuelState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(iig_obs_type is not None and iig_obs_type.perfect_recall)


class DuelState(pyspiel.State):
    """A duel in progress: the chance deal, then the engine game."""

    def __init__(self, game: DuelGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self._left = {t.bean: t.count for t in self.rules.bean_types}  # supply cards still to deal, by bean
        self._draws: list[Bean] = []
        self._vine: list[str] = []
        self._table: Table[PrincesGame] | None = None
        self.mine: list[list[int]] = [[], []]  # each seat's own actions so far (its information state)

    @property
    def engine_game(self) -> PrincesGame | None:
        """The engine's game once the deal is done."""
        return None if self._table is None else self._table.game

    @property
    def dealt(self) -> int:
        """Chance outcomes so far."""
        return len(self._draws) + len(self._vine)

    def _game(self) -> PrincesGame:
        game = self.engine_game
        if game is None:
            raise RuntimeError("the deal is not done")
        return game

    def current_player(self) -> int:
        return player_to_move(self.engine_game)

    def _legal_actions(self, player: int) -> list[int]:
        decision = self._game().decision
        if decision is None or decision.seat != player:
            return []
        return sorted({i for i in map(index_of, decision.options) if i is not None})

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._table is not None:
            return []
        total = sum(self._left.values())
        if total:
            return [(i, self._left[b] / total) for i, b in enumerate(self.rules.beans) if self._left[b]]
        left = [i for i, t in enumerate(TASKS) if t not in self._vine]
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        if self._table is None:
            if sum(self._left.values()):
                bean = self.rules.beans[action]
                if not self._left[bean]:
                    raise ValueError(f"no {bean.value} card is left to deal: {action!r}")
                self._left[bean] -= 1
                self._draws.append(bean)
            else:
                if TASKS[action] in self._vine:
                    raise ValueError(f"task {TASKS[action]!r} is dealt already")
                self._vine.append(TASKS[action])
                if len(self._vine) == len(TASKS):
                    self._table = Table(dealt_game(self.rules, self._draws, self._vine))
            return
        game = self._game()
        decision = game.decision
        assert decision is not None, "the game is over"
        for option in decision.options:
            if index_of(option) == action:
                self.mine[decision.seat].append(action)
                game.apply(option)
                return
        raise ValueError(f"action {action!r} is not legal at {decision.kind.value}")

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {self.rules.beans[action].value}" if sum(self._left.values()) else f"vine {TASKS[action]}"
        return describe(action)

    def is_terminal(self) -> bool:
        return self._table is not None and self._table.game.over

    def returns(self) -> list[float]:
        game = self.engine_game
        if game is None or game.result is None:
            return [0.0, 0.0]
        return zero_sum_returns(game.result.ranks)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> DuelState:
        """A state ``player_id`` cannot tell from this one, what it cannot see dealt at random (its turn only)."""
        game = self._game()
        if game.decision is None or game.decision.seat != player_id:
            raise ValueError(f"seat {player_id!r} is not to move: only a seat's own decision is resampled")
        rng = random.Random(int(probability_sampler() * 2**52))
        sampled = build_princes_game(self.rules, game.view(player_id), rng, list(game.discard))
        state: DuelState = self.get_game().new_initial_state()
        state._left, state._draws, state._vine = dict(self._left), list(self._draws), list(self._vine)
        state._table = Table(sampled)
        state.mine = [list(m) for m in self.mine]
        return state  # its OpenSpiel history is empty: the deal it would record is unknown to the seat

    def __str__(self) -> str:
        game = self.engine_game
        if game is None:
            return f"dealing: {len(self._draws)} supply cards, {len(self._vine)} vine cards"
        return Observer.table_text(game)


class Observer:
    """What a seat observes, in the duel and the classic game alike: ``training.observe``'s vector and its view's
    JSON (with ``perfect_recall``, also its own actions so far)."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    @staticmethod
    def table_text(game: PrincesGame | ClassicGame) -> str:
        """The whole table as JSON, every hand included (a state's ``__str__``)."""
        table = game.public_state_json()
        table.pop("step", None)  # the engine's count of actions: a clone's record starts empty
        table["hands"] = [[b.value for b in seat.hand] for seat in game.seats]
        return json.dumps(table, sort_keys=True)

    def set_from(self, state: Any, player: int) -> None:
        game = state.engine_game
        if game is None:
            self.tensor.fill(0.0)
            return
        decision = game.decision
        kind: DecisionKind | None = decision.kind if decision is not None and decision.seat == player else None
        self.tensor[:] = observe(game.view(player), kind)

    def string_from(self, state: Any, player: int) -> str:
        game = state.engine_game
        if game is None:
            return f"dealing {state.dealt}"
        text = json.dumps(game.view_json(player), sort_keys=True)
        return f"{text} mine={state.mine[player]}" if self.perfect_recall else text


pyspiel.register_game(_GAME_TYPE, DuelGame)
