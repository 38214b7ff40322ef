"""Hostile (slow): thinks 85 % of the default decision limit (1000 ms) at every decision, so no seat fails
but a classic game takes over a minute; it would hold a single upload worker for minutes."""
import time

from sandbox.sdk import Action, Bot, Request


class SlowBot(Bot):
    def choose(self, request: Request) -> Action:
        time.sleep(0.85)
        return request.options[0]

    plant_first = plant_second = trade_offer = trade_respond = trade_confirm = plant_traded = choose
    take_middle = discard_hand = keep_middle = choose
