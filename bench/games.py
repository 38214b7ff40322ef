"""Classic games played in this process: example bots, optionally with a random streak, through their SDK methods.

A benchmark script imports this as ``games`` (as it imports ``common``). The requests are typed
``sandbox.sdk.Request`` objects built straight from the engine state: no JSON, no sandbox.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Sequence

from engine import new_game
from engine.defaults import default_action
from engine.errors import IllegalAction
from sandbox.sdk import Request

import common

if TYPE_CHECKING:
    from engine import ClassicGame, PrincesGame
    from engine.events import Event
    from engine.rules import Rules


class Player:
    """A bot in this process that takes a uniformly random legal option with probability ``eps``."""

    def __init__(self, bot_class: type, eps: float, rules: Rules, seat: int, players: int, seed: int) -> None:
        self.eps = eps
        self.bot = bot_class()
        self.bot.rules, self.bot.seat, self.bot.players = rules, seat, players
        self.bot.rng = random.Random(seed)
        self.rng = random.Random(seed ^ 0x5EED)
        moves = getattr(bot_class, "princes_moves", None)  # as the SDK does: a duel or solo game's own moves
        self.player: Any = moves(rules, self.bot.rng) if moves is not None and rules.princes is not None else self.bot

    def decide(self, request: Request) -> Any:
        if self.eps and self.rng.random() < self.eps:
            return self.rng.choice(request.options)
        return (getattr(self.player, request.kind.value, None) or getattr(self.bot, request.kind.value))(request)


def play_out(rules: Rules, bots: Sequence[tuple[type, float]], seed: int,
             events: bool = False) -> tuple[ClassicGame | PrincesGame, int]:
    """A game of ``rules`` dealt from ``seed``, played to its end by ``bots`` (a bot class and its epsilon by seat),
    and how many actions it refused. A seat whose action is refused plays the forfeit policy from then on. With
    ``events``, a request carries the public events since that seat's previous decision; without, none."""
    n = len(bots)
    game = new_game(rules, n, seed)
    players = [Player(cls, eps, rules, seat, n, (seed * 7919 + seat * 104729) & (2**63 - 1))
               for seat, (cls, eps) in enumerate(bots)]
    seen = [0] * n
    forfeited: set[int] = set()
    refused = 0
    number = 0
    while not game.over:
        d = common.decision_of(game)
        if d.seat in forfeited:
            game.apply(default_action(game))
            continue
        since: tuple[Event, ...] = ()
        if events:
            since, seen[d.seat] = tuple(game.events[seen[d.seat]:]), len(game.events)
        request = Request(number, d.kind, game.view(d.seat), since, d.options, 1000.0)
        number += 1
        try:
            game.apply(players[d.seat].decide(request))
        except IllegalAction:  # counted for the caller to report
            refused += 1
            forfeited.add(d.seat)
            game.apply(default_action(game))
    return game, refused
