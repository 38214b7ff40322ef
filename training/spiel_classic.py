"""The classic game (3-5 seats, with trading) as an OpenSpiel Python game, registered as ``python_bohnanza_classic``.

    import pyspiel
    import training.spiel_classic  # registers the game
    game = pyspiel.load_game("python_bohnanza_classic", {"players": 4})

Chance deals: the game opens with one chance node per card of the deck, in draw order (outcome: the bean's
index in the rules' beans, with probability by the cards of that bean still to place); the first cards drawn
are the hands, dealt one at a time around the table as the engine deals. Later reshuffles of the discard pile
are no chance nodes, as in the duel (training/spiel.py says why).

Player actions are the indices of ``training.actions``: the fixed action space with its capped offers (the
active player's offers at a round's opening, built from its trading area). ``apply_engine_action`` plays any
engine action instead, for a seat played by a ladder bot whose offers go beyond the caps. Returns are by
rank, +1 for the first down to -1 for the last, seats that share a rank sharing the mean of their places: the
sum is always 0.

``resample_from_infostate`` deals what the seat cannot see at random (``strategy.determinize.sample_hidden``,
the discard pile and the treasuries as the public events show them). Mid-round (a response or a confirmation
is due) it deals the round's opening instead, every card another seat showed this round in that seat's hand,
and replays the round's actions on it: a view never shows where in a hand an offered or paid card lies.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Any

import pyspiel

from engine.actions import Accept, Action, BuyField, Confirm, DecisionKind, Harvest, Offer
from engine.cards import Bean
from engine.classic import ClassicGame
from engine.rules import Rules, classic_rules
from engine.views import TradeView, View
from strategy.determinize import build_game, sample_hidden
from training.actions import N_ACTIONS, Choices, choices, describe
from training.spiel import Observer, Table, player_to_move, zero_sum_returns

SHORT_NAME = "python_bohnanza_classic"
MAX_LENGTH = 20_000  # far beyond any game seen
RULES = classic_rules()
TRADING = (DecisionKind.TRADE_OFFER, DecisionKind.TRADE_RESPOND, DecisionKind.TRADE_CONFIRM)
FREE = (Harvest, BuyField)  # actions a seat may take at any time, mid-round too
RESAMPLE_TRIES = 20  # sampled openings of a round tried before a resample gives up


def _game_type() -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Bohnanza, the base game (the ladder's classic rules)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=RULES.max_players,
        min_num_players=RULES.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": RULES.min_players},
    )


_GAME_TYPE = _game_type()


class ClassicSpielGame(pyspiel.Game):
    """The game: its constants and table size (parameter ``players``, 3-5)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        players = int((params or {}).get("players", RULES.min_players))
        if not RULES.min_players <= players <= RULES.max_players:
            raise ValueError(f"the classic game is for {RULES.min_players}-{RULES.max_players} players, "
                             f"not {players!r}")
        info = pyspiel.GameInfo(num_distinct_actions=N_ACTIONS, max_chance_outcomes=len(RULES.beans),
                                num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                max_game_length=MAX_LENGTH)
        super().__init__(_GAME_TYPE, info, {"players": players})
        self.rules = RULES
        self.players = players

    def new_initial_state(self) -> ClassicState:
        return ClassicState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(iig_obs_type is not None and iig_obs_type.perfect_recall)


@dataclasses.dataclass(frozen=True)
class RoundAction:
    """An action of the trading round in progress, with the beans of the hand positions it names (``give_hand``):
    how it is replayed on a resampled opening of the round, where those beans lie elsewhere."""

    seat: int
    action: Action
    hand_beans: tuple[Bean, ...]


def with_hand(action: Action, places: tuple[int, ...]) -> Action:
    """``action`` paying with the hand cards at ``places`` instead (the actions that name hand cards)."""
    if isinstance(action, Offer):
        return dataclasses.replace(action, give_hand=places)
    if isinstance(action, Accept):
        return dataclasses.replace(action, give_hand=places)
    if isinstance(action, Confirm):
        return dataclasses.replace(action, give_hand=places)
    raise ValueError(f"{action!r} names no hand card")


class ClassicState(pyspiel.State):
    """A classic game in progress: the chance deal, then the engine game."""

    def __init__(self, game: ClassicSpielGame) -> None:
        super().__init__(game)
        self.rules: Rules = game.rules
        self.players = game.players
        self._left = {t.bean: t.count for t in self.rules.bean_types}  # deck cards still to deal, by bean
        self._draws: list[Bean] = []
        self._table: Table[ClassicGame] | None = None
        self._choices: Choices | None = None  # the legal indices of the decision now (None: not worked out yet)
        self.round: list[RoundAction] = []  # the actions of the trading round in progress
        self.mine: list[list[int]] = [[] for _ in range(self.players)]  # each seat's own actions (information state)

    @property
    def engine_game(self) -> ClassicGame | None:
        """The engine's game once the deal is done."""
        return None if self._table is None else self._table.game

    @property
    def dealt(self) -> int:
        """Chance outcomes so far."""
        return len(self._draws)

    def _game(self) -> ClassicGame:
        game = self.engine_game
        if game is None:
            raise RuntimeError("the deal is not done")
        return game

    def current_player(self) -> int:
        return player_to_move(self.engine_game)

    def choices(self) -> Choices:
        """The indexed choices of the decision now (``training.actions.choices``)."""
        if self._choices is None:
            game = self._game()
            decision = game.decision
            assert decision is not None, "the game is over"
            self._choices = choices(self.rules, game.view(decision.seat), decision.kind, decision.options)
        return self._choices

    def _legal_actions(self, player: int) -> list[int]:
        game = self._game()
        if game.decision is None or game.decision.seat != player:
            return []
        return self.choices().legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._table is not None:
            return []
        total = sum(self._left.values())
        return [(i, self._left[b] / total) for i, b in enumerate(self.rules.beans) if self._left[b]]

    def _apply_action(self, action: int) -> None:
        if self._table is None:
            bean = self.rules.beans[action]
            if not self._left[bean]:
                raise ValueError(f"no {bean.value} card is left to deal: {action!r}")
            self._left[bean] -= 1
            self._draws.append(bean)
            if not sum(self._left.values()):
                self._table = Table(ClassicGame(self.rules, self.players, 0, deck=self._draws))
            return
        legal = self.choices().actions
        if action not in legal:
            raise ValueError(f"action {action!r} is not legal now (legal: {sorted(legal)})")
        seat = self._game().to_move
        self.mine[seat].append(action)
        self._play(legal[action])

    def apply_engine_action(self, action: Action) -> None:
        """Play an engine action the action space may not hold (a ladder bot's own offer). It joins no
        OpenSpiel history: states reached this way are for playing on, not for replaying."""
        self._game()
        self._play(action)

    def _play(self, action: Action) -> None:
        game = self._game()
        decision = game.decision
        assert decision is not None, "the game is over"
        if decision.kind is DecisionKind.TRADE_OFFER and game.offer is None and not game.responses:
            self.round = []
        if isinstance(action, FREE):
            pass  # a harvest or a field bought mid-round shows in the view the round's opening is made from
        elif decision.kind in TRADING:
            hand = game.seats[decision.seat].hand
            paid = tuple(hand[i] for i in getattr(action, "give_hand", ()) if 0 <= i < len(hand))
            self.round.append(RoundAction(decision.seat, action, paid))
        else:
            self.round = []
        game.apply(action)
        self._choices = None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {self.rules.beans[action].value}"
        return describe(action)

    def is_terminal(self) -> bool:
        game = self.engine_game
        return game is not None and game.over

    def returns(self) -> list[float]:
        game = self.engine_game
        if game is None or game.result is None:
            return [0.0] * self.players
        return zero_sum_returns(game.result.ranks)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ClassicState:
        """A state ``player_id`` cannot tell from this one, what it cannot see dealt at random (its turn only)."""
        game = self._game()
        decision = game.decision
        if decision is None or decision.seat != player_id:
            raise ValueError(f"seat {player_id!r} is not to move: only a seat's own decision is resampled")
        rng = random.Random(int(probability_sampler() * 2**52))
        view = game.view(player_id)
        treasuries = [seat.treasury for seat in game.seats]
        mid_round = decision.kind in TRADING and bool(self.round) and \
            not (decision.kind is DecisionKind.TRADE_OFFER and game.offer is None and not game.responses)
        sampled: ClassicGame | None = None
        if not mid_round:
            hidden = sample_hidden(self.rules, view, game.discard, treasuries, rng)
            sampled = build_game(self.rules, view, hidden, decision.kind, rng.getrandbits(32))
        else:
            for _ in range(RESAMPLE_TRIES):
                sampled = self._replayed_round(view, treasuries, rng)
                if sampled is not None:
                    break
            if sampled is None:
                raise ValueError(f"no opening of this trading round fits what seat {player_id} saw "
                                 f"({RESAMPLE_TRIES} tried)")
        state: ClassicState = self.get_game().new_initial_state()
        state._left, state._draws = dict(self._left), list(self._draws)
        state._table = Table(sampled)
        state.round = list(self.round)
        state.mine = [list(m) for m in self.mine]
        return state  # its OpenSpiel history is empty: the deal it would record is unknown to the seat

    def _replayed_round(self, view: View, treasuries: list[list[Bean]], rng: random.Random) -> ClassicGame | None:
        """The round's opening dealt at random, every card another seat showed this round in its hand, and the
        round's actions replayed on it (None when a replayed action does not fit the deal)."""
        game = self._game()
        trade = view.trade
        assert trade is not None
        opening = dataclasses.replace(view, trade=TradeView(trade.round, trade.max_rounds, None, ()))
        known: dict[int, list[Bean]] = {}
        for done in self.round:
            if done.seat != view.seat:
                known.setdefault(done.seat, []).extend(done.hand_beans)
        hidden = sample_hidden(self.rules, opening, game.discard, treasuries, rng, known)
        sampled = build_game(self.rules, opening, hidden, DecisionKind.TRADE_OFFER, rng.getrandbits(32))
        for done in self.round:
            action = done.action
            if done.seat != view.seat and done.hand_beans:
                hand = sampled.seats[done.seat].hand
                places: list[int] = []
                for bean in done.hand_beans:
                    place = next((i for i, b in enumerate(hand) if b is bean and i not in places), None)
                    if place is None:
                        return None
                    places.append(place)
                action = with_hand(action, tuple(places))
            try:
                sampled.apply(action)
            except ValueError:
                return None
        return sampled

    def __str__(self) -> str:
        game = self.engine_game
        if game is None:
            return f"dealing: {len(self._draws)} deck cards"
        return Observer.table_text(game)


pyspiel.register_game(_GAME_TYPE, ClassicSpielGame)
