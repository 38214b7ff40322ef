"""An outside reference: OpenSpiel's information-set MCTS (IS-MCTS) against our greedy and search bots, in the
duel and the classic game.

    python3 bench/outside_reference.py [--format duel|classic] [--games 40] [--budget-ms 60] [--opponents greedy,search]

The reference is ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (Cowling, Powley and Whitehouse 2011, as
OpenSpiel implements it) on the game as OpenSpiel plays it (``training.spiel``, ``training.spiel_classic``): each
simulation draws a world the seat cannot tell from the real one (the game's ``resample_from_infostate``), walks the
tree by UCT (c = 2) over information-state nodes, and evaluates a new leaf by one random playout to the game's end
(done on the engine's state: the same random policy as OpenSpiel's ``RandomRolloutEvaluator``, without going
through the Python wrapper at each step). The one change to OpenSpiel's code: the search stops on a clock
(``--budget-ms`` per decision, at least the two simulations that give the root a visit) rather than after a number
of simulations. The final move is the most visited child. A decision with one legal action is not searched. Think
time is this process's CPU time (``time.process_time``), not the wall clock: on a shared machine the wall clock
would also count other people's work.

Equal think time: the default budget is the search bot's own per-decision budget (``BUDGET_MS`` = 60 ms in
bots/search_bot.py). In the duel the search bot plays the greedy policy (it does not search there), so the
think time each opponent really used is measured and printed beside it.

Every deal is played once with IS-MCTS in each seat; the other seats are the opponent's bot file run in this
process through ``training.seats`` (the messages the referee sends). In the classic game (3 seats: IS-MCTS
and two copies of the opponent) their actions are played as they are, offers beyond the action space
included (``ClassicState.apply_engine_action``); IS-MCTS's own moves stay within it. A game scores IS-MCTS's
place, 1 for the first and 0 for the last, seats that share a rank sharing the mean of their places (the duel:
1 a win, 1/2 a tie); the interval is a 95 % bootstrap over deals. Seated at random, a player scores 1/2 on
average; in the classic game the share of games it wins outright is printed too (1/3 at random).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from common import machine  # noqa: E402
from strategy.policies import random_action  # noqa: E402
from training.actions import index_of  # noqa: E402
from training.seats import BotSeat  # noqa: E402
from training.spiel import SHORT_NAME, zero_sum_returns  # noqa: E402
from training.spiel_classic import SHORT_NAME as CLASSIC_NAME  # noqa: E402
from training.spiel_classic import ClassicState  # noqa: E402

DEALS_FROM = 5_000
GAMES = {"duel": (SHORT_NAME, 2), "classic": (CLASSIC_NAME, 3)}  # OpenSpiel's name and the table size


class EngineRolloutEvaluator(mcts.Evaluator):
    """OpenSpiel's random-rollout evaluation, played on a copy of the engine's game: a uniformly random option
    at every decision until the game ends; the value is the final returns."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def evaluate(self, state: Any) -> np.ndarray:
        base = state.engine_game
        assert base is not None
        game = base.clone()
        while not game.over:
            game.apply(random_action(game, self.rng))
        assert game.result is not None
        return np.array(zero_sum_returns(game.result.ranks))

    def prior(self, state: Any) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class TimedISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's IS-MCTS with its simulation loop bounded by a clock instead of a count."""

    def __init__(self, game: Any, evaluator: mcts.Evaluator, budget_s: float, seed: int) -> None:
        super().__init__(game, evaluator, 2.0, 1, random_state=np.random.RandomState(seed),
                         final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
        self.budget_s = budget_s
        self.simulations = 0
        self.searches = 0

    def run_search(self, state: Any) -> list[tuple[int, float]]:
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        root_key = self.get_state_key(state)
        started = time.process_time()
        while True:  # OpenSpiel's loop, on a clock
            sampled = self.sample_root_state(state)
            assert root_key == self.get_state_key(sampled)
            self.run_simulation(sampled)
            self.simulations += 1
            if time.process_time() - started >= self.budget_s and self._root_node.total_visits > 0:
                break  # the first simulation only expands the root
        self.searches += 1
        return self.get_final_policy(state, self._root_node)


def play(form: str, seed: int, ismcts_seat: int, opponent: str, budget_ms: float) -> dict[str, Any]:
    """One game of ``form``: IS-MCTS at ``ismcts_seat``, the bot ``opponent`` in every other seat."""
    name, players = GAMES[form]
    game = pyspiel.load_game(name, {"players": players} if form == "classic" else {})
    state = game.new_initial_state()
    rng = random.Random(seed)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(outcomes, probs)[0])
    engine = state.engine_game
    assert engine is not None
    others = {seat: BotSeat(opponent) for seat in range(players) if seat != ismcts_seat}
    for seat, other in others.items():
        other.start(engine, seat, rng.randrange(2**31))
    bot = TimedISMCTS(game, EngineRolloutEvaluator(random.Random(seed)), budget_ms / 1000, seed)
    think = {"ismcts": 0.0, "opponent": 0.0}
    decisions = {"ismcts": 0, "opponent": 0}
    unmapped = 0
    while not state.is_terminal():
        started = time.process_time()
        player = state.current_player()
        if player == ismcts_seat:
            state.apply_action(int(bot.step(state)))
            who = "ismcts"
        else:
            action = others[player].decide(engine)
            if isinstance(state, ClassicState):
                try:
                    state.apply_engine_action(action)
                except ValueError:  # an illegal action: its forfeit, the first legal index plays instead
                    unmapped += 1
                    state.apply_action(state.legal_actions()[0])
            else:
                index = index_of(action)
                if index is None or index not in state.legal_actions():
                    unmapped += 1
                    index = state.legal_actions()[0]
                state.apply_action(index)
            who = "opponent"
        think[who] += time.process_time() - started
        decisions[who] += 1
    for other in others.values():
        other.end(engine)
    assert engine.result is not None
    return {"score": (state.returns()[ismcts_seat] + 1) / 2, "won": engine.result.ranks[ismcts_seat] == 1,
            "think": think, "decisions": decisions, "unmapped": unmapped,
            "simulations": bot.simulations, "searches": bot.searches,
            "failed": any(other.failed for other in others.values())}


def bootstrap(values: list[float], rng: random.Random, rounds: int = 2000) -> tuple[float, float]:
    means = sorted(statistics.fmean(rng.choices(values, k=len(values))) for _ in range(rounds))
    return means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=sorted(GAMES), default="duel")
    parser.add_argument("--games", type=int, default=40,
                        help="games per opponent (a multiple of the table size: each deal in every seat)")
    parser.add_argument("--budget-ms", type=float, default=60.0)
    parser.add_argument("--opponents", default="greedy,search")
    args = parser.parse_args()
    players = GAMES[args.format][1]
    print(machine(), f"; {args.format}: IS-MCTS budget {args.budget_ms:g} ms a decision")
    for opponent in args.opponents.split(","):
        started = time.perf_counter()
        per_deal, games = [], []
        for k in range(max(1, args.games // players)):
            deal = [play(args.format, DEALS_FROM + k, seat, opponent, args.budget_ms) for seat in range(players)]
            games += deal
            per_deal.append(statistics.fmean(g["score"] for g in deal))
        low, high = bootstrap(per_deal, random.Random(0))
        wins = sum(g["won"] for g in games)
        won_low, won_high = bootstrap([statistics.fmean(g["won"] for g in games[k:k + players])
                                       for k in range(0, len(games), players)], random.Random(1))
        ms = {w: 1000 * sum(g["think"][w] for g in games) / max(1, sum(g["decisions"][w] for g in games))
              for w in ("ismcts", "opponent")}
        sims = sum(g["simulations"] for g in games) / max(1, sum(g["searches"] for g in games))
        print(f"IS-MCTS vs {opponent}, {args.format}: {len(games)} games on {len(per_deal)} deals "
              f"(seeds {DEALS_FROM}..{DEALS_FROM + len(per_deal) - 1}, each in every seat): "
              f"score {statistics.fmean(g['score'] for g in games):.3f}, 95% CI [{low:.3f}, {high:.3f}]; "
              f"first place {wins}/{len(games)}, 95% CI [{won_low:.3f}, {won_high:.3f}]")
        print(f"  think time a decision: IS-MCTS {ms['ismcts']:.1f} ms ({sims:.0f} simulations a searched "
              f"decision), {opponent} {ms['opponent']:.1f} ms; opponent actions outside the action space: "
              f"{sum(g['unmapped'] for g in games)}; opponent failures: {sum(bool(g['failed']) for g in games)}; "
              f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
