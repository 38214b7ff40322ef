"""Answers one message kind with raw bytes on the protocol pipe, past the runner's encoder:
JSON nested 200,000 deep (which made the referee's decoder raise RecursionError and void games),
or another shape. Plays the SDK's defaults otherwise.

The tests rewrite the two constants below: TARGET is "hello", a decision kind ("plant_first",
"trade_offer", "trade_respond", "trade_confirm", "plant_traded", "plant_second") or "when-behind";
SHAPE is one of ``PAYLOADS``. "when-behind" spoils only a game it is losing, hoping to turn the loss
into a void game: any decision after the second reshuffle while the public harvests give another
seat more coins than it has.
"""
import os
import sys
import time
from types import FrameType

from sandbox.sdk import Bot, Pass

TARGET = "hello"
SHAPE = "deep"

PAYLOADS = {
    "deep": lambda rid: b"[" * 200_000 + b"]" * 200_000,
    "deep-in-action": lambda rid: (b'{"id":%d,"action":{"type":"offer","want":' % rid + b"[" * 5000 + b"]" * 5000
                                   + b"}}"),
    "deep-object": lambda rid: b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "wide": lambda rid: b'{"id":%d,"action":{"type":"offer","want":[' % rid + b'"red",' * 9000 + b'"red"]}}',
    "bignum": lambda rid: b'{"id":%d,"action":{"type":"plant","field":' % rid + b"9" * 4000 + b"}}",
    "bad-utf8": lambda rid: b'{"id":%d,"action":"\xff\xfe"}' % rid,
    "nan": lambda rid: b'{"id":NaN,"action":{"type":"pass"}}',
    "wrong-types": lambda rid: b'{"id":%d,"action":{"type":"plant","field":{"x":[1,2]}}}' % rid,
}


def protocol_fd() -> int:
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if "proto_out" in frame.f_locals:
            return frame.f_locals["proto_out"]
        frame = frame.f_back
    raise RuntimeError("runner frame not found")


class DeepJson(Bot):
    def on_start(self, hello):
        self.coins = [0] * hello.players  # from the public harvests

    def behind(self, message) -> bool:
        for event in message.get("events", ()):
            if event.get("type") == "harvested":
                self.coins[event["seat"]] += event["coins"]
        view = message["view"]
        others = [c for s, c in enumerate(self.coins) if s != view["seat"]]
        return view["reshuffles"] >= 2 and max(others) > view["coins"]

    def trade_offer(self, request):
        return Pass()  # hear the others: their counter-offers bring the trade_confirm decision

    def act(self, message):
        kind = message.get("kind") if message.get("type") == "decide" else message.get("type")
        if kind == TARGET or (TARGET == "when-behind" and message.get("type") == "decide" and self.behind(message)):
            data = memoryview(PAYLOADS[SHAPE](int(message.get("id", 0))) + b"\n")
            fd = protocol_fd()
            while data:
                data = data[os.write(fd, data):]
            time.sleep(30)  # the referee has what it needs; never write the runner's own reply
        return super().act(message)
