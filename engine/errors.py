"""Errors the engine raises."""
from __future__ import annotations

from typing import Any


class IllegalAction(ValueError):
    """An action the rules do not allow; names the rule and quotes the action."""

    def __init__(self, rule: str, action: Any, reason: str) -> None:
        super().__init__(f"illegal action {action!r}: {reason} (rule {rule})")
        self.rule = rule
        self.action = action
        self.reason = reason


class GameOverError(RuntimeError):
    """An action was sent to a game that has ended."""
