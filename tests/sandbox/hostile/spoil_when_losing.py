"""Plays the SDK's defaults, but when it is behind late in the game it sends a reply the referee's
decoder could not survive (nested 200,000 deep), hoping to turn its loss into a void game.

Behind: after the second reshuffle, the public harvests give some other seat more coins than it has.
"""
import os
import sys
import time

from sandbox.sdk import Bot


def protocol_fd() -> int:
    frame = sys._getframe(1)
    while frame is not None:
        if "proto_out" in frame.f_locals:
            return frame.f_locals["proto_out"]
        frame = frame.f_back
    raise RuntimeError("runner frame not found")


class Spoiler(Bot):
    def on_start(self, hello):
        self.coins = [0] * hello.players

    def act(self, message):
        if message.get("type") == "decide":
            for event in message.get("events", ()):
                if event.get("type") == "harvested":
                    self.coins[event["seat"]] += event["coins"]
            view = message["view"]
            me = view["seat"]
            if view["reshuffles"] >= 2 and max(c for s, c in enumerate(self.coins) if s != me) > view["coins"]:
                data = memoryview(b"[" * 200_000 + b"]" * 200_000 + b"\n")
                fd = protocol_fd()
                while data:
                    data = data[os.write(fd, data):]
                time.sleep(30)
        return super().act(message)
