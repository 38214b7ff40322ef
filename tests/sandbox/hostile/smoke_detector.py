"""Behaves only in what it takes for a smoke game, and crashes in every other game.

When ``arena submit`` played a fixed seed against the same named opponents, a bot could recognise
it (seat names, the first hand of the deal) and pass, then misbehave on the ladder. The tests
replace FINGERPRINT with the first hand that the old fixed smoke deal gave seat 0.
"""
from sandbox.sdk import Bot

FINGERPRINT = ()
SMOKE_NAMES = ("random_bot", "greedy_bot")


class SmokeDetector(Bot):
    looks_like_smoke = False

    def act(self, message):
        if message.get("type") == "hello":
            seats = tuple(message.get("seats", ()))
            self.looks_like_smoke = seats[1:] == SMOKE_NAMES or seats[1:] == SMOKE_NAMES[1:]
        if message.get("type") == "decide" and tuple(message["view"]["hand"][:5]) == FINGERPRINT:
            self.looks_like_smoke = True
        if message.get("type") == "decide" and not self.looks_like_smoke:
            raise RuntimeError("not a smoke game: misbehave")
        return super().act(message)
