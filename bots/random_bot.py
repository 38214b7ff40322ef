"""Random bot: every decision is a uniformly random pick among the legal options.

This is the smallest useful bot and the baseline every other bot should beat. It shows the
shape of an SDK bot: subclass ``Bot`` and answer decisions. Here one method, ``choose``, serves
every decision kind; ``request.options`` always lists the legal choices that need no invention
(plantings, passes, ending trading, accepting or confirming a deal with the cards the referee
suggests, buying a field, harvesting). Offers are open-ended and never in that list, so this
bot never makes one. ``self.rng`` is seeded by the referee, so a game replays exactly.
"""
from __future__ import annotations

from sandbox.sdk import Action, Bot, Request


class RandomBot(Bot):
    def choose(self, request: Request) -> Action:
        return self.rng.choice(request.options)

    plant_first = plant_second = trade_offer = trade_respond = trade_confirm = plant_traded = choose
    take_middle = discard_hand = keep_middle = choose  # the Princes variants (duel, solo)
