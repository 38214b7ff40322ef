"""Hostile (legal play): a duel thrower and its partner, two authors, no card passing (issue 41 item 7).

Both play the example policy (``PrincesExampleMoves``, as the greedy bot does in the duel). The
``partner`` signs on its first turn: right after its first planting it harvests that one-bean field for
nothing and does not plant into it at once (a ``Harvested`` event of 1 bean and 0 coins in the
opponent's first turn that no ``Planted`` into the same field follows: a forced cash-in, which the
example bots make, is always followed by one). The ``thrower`` watches the public events; once it has
seen that signature it plays to lose: a random option that never claims a task, pays tribute,
harvests or buys a field, so the partner reaches the Castle and the thrower's gold goes back as
tribute. Against anyone else it plays the example policy. ``twin`` (the bench's control) recognises
the partner but plays normally.

``bench/thrower.py`` sets ``ROLE`` by class; the sandbox entry point is ``DuelThrower``.
"""
from __future__ import annotations

from typing import Sequence

from engine.actions import Action, BuyField, ClaimTask, Harvest, PayTribute
from engine.events import Harvested, Planted, TurnStarted
from sandbox.sdk import Bot
from strategy.policies import PrincesExampleMoves, PrincesRequest

ROLE = "thrower"  # or "partner", "twin"


class PartnerMoves(PrincesExampleMoves):
    """The example policy, after a signature: the first planting's one-bean field harvested for nothing."""

    signed: int | None = None  # the field harvested to sign, until the next action
    done = False

    def move(self, request: PrincesRequest) -> Action:
        action = super().move(request)
        if self.signed is not None:  # the action right after the signature must not plant into that field
            signed, self.signed, self.done = self.signed, None, True
            if getattr(action, "field", None) == signed and not isinstance(action, Harvest):
                return next((o for o in request.options if getattr(o, "field", signed) != signed), action)
        elif not self.done:
            field = next((i for i, f in enumerate(request.view.fields[request.view.seat]) if f.count == 1), None)
            if field is not None and Harvest(field) in request.options:
                self.signed = field
                return Harvest(field)
        return action

    plant_first = plant_second = take_middle = discard_hand = keep_middle = move


class ThrowerMoves(PrincesExampleMoves):
    """The example policy until the opponent signs in its first turn; then a losing random option."""

    throws = True
    recognised = False
    opponent_turns = 0

    def watch(self, events: Sequence[object], me: int) -> None:
        for event, after in zip(events, [*events[1:], None]):
            if isinstance(event, TurnStarted) and event.seat != me:
                self.opponent_turns += 1
            elif (isinstance(event, Harvested) and event.seat != me and self.opponent_turns <= 1
                  and event.beans == 1 and event.coins == 0
                  and not (isinstance(after, Planted) and after.seat == event.seat and after.field == event.field)):
                self.recognised = True

    def move(self, request: PrincesRequest) -> Action:
        self.watch(request.events, request.view.seat)
        action = super().move(request)  # follows the discard pile either way
        if not (self.recognised and self.throws):
            return action
        losing = [o for o in request.options if not isinstance(o, (ClaimTask, PayTribute, Harvest, BuyField))]
        return self.rng.choice(losing or list(request.options))

    plant_first = plant_second = take_middle = discard_hand = keep_middle = move


class TwinMoves(ThrowerMoves):
    """The control: recognises the partner as the thrower does, and plays on normally."""

    throws = False


class DuelThrower(Bot):
    princes_moves = {"thrower": ThrowerMoves, "partner": PartnerMoves, "twin": TwinMoves}[ROLE]
