"""Errors the engine raises."""
from __future__ import annotations

import json
from typing import Any


class IllegalAction(ValueError):
    """An action the rules do not allow; names the rule and quotes the action as the protocol writes
    it (JSON: a bot in any language reads the message about its own reply)."""

    def __init__(self, rule: str, action: Any, reason: str) -> None:
        super().__init__(f"illegal action {_quoted(action)}: {reason} (rule {rule})")
        self.rule = rule
        self.action = action
        self.reason = reason


class GameOverError(RuntimeError):
    """An action was sent to a game that has ended."""


class ReplayMismatch(ValueError):
    """A recorded game that the engine does not play as recorded. The message names the step (step k: after the
    k-th action; step 0: the deal) and quotes the action of that step as the protocol writes it."""

    def __init__(self, step: int, reason: str, seat: int | None = None, action: Any = None) -> None:
        where = (f"step {step} (seat {seat}: {_quoted(action)})" if action is not None
                 else "step 0 (the deal)" if step == 0 else f"step {step}")
        super().__init__(f"{where}: {reason}")
        self.step = step
        self.seat = seat
        self.action = action
        self.reason = reason


def _quoted(action: Any) -> str:
    from . import wire  # the wire form of actions imports this module

    try:
        return json.dumps(wire.to_json(action), separators=(",", ":"))
    except (TypeError, ValueError, AttributeError):  # not an action (a test's stand-in): as Python shows it
        return repr(action)
