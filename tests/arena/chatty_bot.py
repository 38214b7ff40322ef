"""A bot that plays the SDK's defaults (legal moves, never a failure) and writes a marker line on its standard
error at every decision: its author's debugging output, which only its author may read (arena/ladder/seat_logs.py)."""
from __future__ import annotations

import sys
from typing import Any, Mapping

from sandbox.sdk import Bot

MARKER = "CHATTY-MARK-7f3a"  # what no page, board or other author may ever show


class Chatty(Bot):
    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    def act(self, message: Mapping[str, Any]) -> dict[str, Any] | None:
        if message.get("type") == "decide":
            self.decisions += 1
            print(f"{MARKER} decision {self.decisions}", file=sys.stderr)
        return super().act(message)
