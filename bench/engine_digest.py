"""A digest of everything the engine says in random games of every rules id, to compare two checkouts.

    PYTHONPATH=$PWD python3 bench/engine_digest.py [--games N]

For each rules id (the current variants and the retired classic rules) and table size, random games (the
random policy of ``strategy.policies``, offers included) are played; at every step the digest takes the
decision (seat, kind, options in order), every seat's view (``view`` and ``view_json``), the public state,
the message of each of a fixed set of illegal actions tried first, and the events each move made; at the end
the result, the history and the replay's JSON. Prints one SHA-256 per rules id and one for all: a change to
the engine that keeps every rule must print the same lines before and after (run it on both trees).
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import new_game, rules_for  # noqa: E402
from engine.actions import (  # noqa: E402
    Accept, Action, BuyField, ClaimTask, Confirm, DiscardHand, DiscardMiddle, EndTrading, Harvest, Offer, Pass,
    PayTribute, Plant, PlantMiddle, PlantTraded,
)
from engine.cards import Bean  # noqa: E402
from engine.errors import GameOverError, IllegalAction  # noqa: E402
from engine.replay import Replay  # noqa: E402
from strategy.policies import random_action  # noqa: E402

import common  # noqa: E402

TABLES = {"classic": (3, 4, 5), "classic-v2": (4,), "classic-v1": (4,), "duel": (2,), "solo": (1,)}


def probes(game: Any) -> list[Action]:
    """Actions to try before the move: enumerable kinds that are not among the options (so illegal, if the
    options are complete), malformed trades, a kind of the other game."""
    decision = game.decision
    seat = decision.seat
    enumerable: list[Action] = [Plant(0), Plant(2), Plant(9), Harvest(0), Harvest(1), Harvest(9), BuyField(), Pass(),
                                EndTrading(), PlantTraded(0, 0), PlantTraded(1, 2), PlantTraded(9, 0), ClaimTask(),
                                PayTribute(), DiscardHand(0), DiscardHand(9), DiscardMiddle(Bean.BLUE),
                                PlantMiddle(Bean.RED, 0), PlantMiddle(Bean.BLUE, 9)]
    tried = [a for a in enumerable if a not in decision.options]
    tried += [Offer(give_hand=(0, 0)), Offer(give_hand=(99,)), Offer(), Offer(want=(Bean.BLUE,), to=seat),
              Offer(give_trade=(0,), want=(Bean.RED,), to=(seat + 1) % game.players),
              Accept((99,)), Accept(), Confirm(99), Confirm(0, (99,)), Confirm(0, (), (0,))]
    return tried


def text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def digest_game(rules_id: str, players: int, seed: int, h: Any) -> int:
    rules = rules_for(rules_id)
    game = new_game(rules, players, seed)
    rng = random.Random(seed * 31 + players)
    steps = 0
    h.update(text([repr(e) for e in game.events]).encode())
    while not game.over:
        decision = game.decision
        h.update(repr(decision).encode())
        for seat in range(players):
            h.update(repr(game.view(seat)).encode())
            h.update(text(game.view_json(seat)).encode())
        h.update(text(game.public_state_json()).encode())
        h.update(repr(game.public_state()).encode())
        if steps % 3 == 0:
            for action in probes(game):
                before = len(game.events)
                try:
                    game.apply(action)
                except IllegalAction as exc:
                    h.update(f"{exc} {exc.rule}".encode())
                else:  # a probe the rules allow (or options that miss it): recorded, and the game goes on
                    h.update(f"LEGAL {action!r} {game.events[before:]!r}".encode())
                if game.over:
                    break
            if game.over:
                break
        action = random_action(game, rng)
        events = game.apply(action)
        h.update(repr((action, events)).encode())
        steps += 1
    try:
        game.apply(Pass())
    except GameOverError as exc:
        h.update(str(exc).encode())
    h.update(repr((game.result, game.history, game.final_hands)).encode())
    h.update(text(Replay.of(game, [f"s{i}" for i in range(players)]).to_json()).encode())
    h.update(text(game.public_state_json()).encode())
    return steps


def main() -> None:
    parser = common.parser(__doc__, 30)
    args = parser.parse_args()
    everything = hashlib.sha256()
    for rules_id, tables in TABLES.items():
        h = hashlib.sha256()
        steps = 0
        for players in tables:
            for seed in range(args.games):
                steps += digest_game(rules_id, players, seed, h)
        print(f"{rules_id:10s} {steps:7d} steps  {h.hexdigest()}")
        everything.update(h.digest())
    print(f"{'all':10s} {'':13s} {everything.hexdigest()}")


if __name__ == "__main__":
    main()
