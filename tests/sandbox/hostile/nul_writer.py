"""Hostile: writes NUL, invalid UTF-8 and terminal control bytes on stderr, then crashes in about half
of its games (those whose first hand starts with one of four beans: 52 of the 104 cards), so that a smoke game
may pass. PostgreSQL's text columns cannot hold NUL: a failure log stored as written stopped the season."""
import os

from sandbox.sdk import Bot

POISON = b"before\x00after \xff\xfe\xed\xa0\x80 \x1b]0;owned\x07\x1b[2J\rclear\x00\n"


class NulWriter(Bot):
    doomed = None

    def act(self, message):
        if message.get("type") == "decide":
            if self.doomed is None:
                hand = message["view"]["hand"]
                self.doomed = bool(hand) and hand[0] in ("blue", "chili", "red", "garden")
            os.write(2, POISON)
            if self.doomed:
                raise RuntimeError("crash \x00 after the poison")
        return super().act(message)
