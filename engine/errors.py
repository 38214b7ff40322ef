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


def _quoted(action: Any) -> str:
    from . import wire  # the wire form of actions imports this module

    try:
        return json.dumps(wire.to_json(action), separators=(",", ":"))
    except (TypeError, ValueError, AttributeError):  # not an action (a test's stand-in): as Python shows it
        return repr(action)
