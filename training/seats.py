"""Ladder bots seated in this process: an SDK bot file answers decisions of a game the environment holds.

The bot gets exactly the messages the referee would send (hello, decide with its view, the public events
since its last decision and the options, end), as plain JSON values; a bot that raises or answers an
illegal action forfeits its seat here as on the ladder: the engine's default action plays for it.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from arena.play.players import load_entry_point
from engine.actions import Action, action_from_json, action_to_json
from engine.defaults import default_action
from engine.errors import IllegalAction
from engine.events import event_to_json
from engine.game import Game, TableSeat

log = logging.getLogger(__name__)
BOTS = Path(__file__).resolve().parent.parent / "bots"
TIME_LEFT_MS = 10_000.0  # what a seated bot is told it has left (no clock runs here)


def bot_file(name: str) -> Path:
    """A built-in bot by name (``greedy``) or a bot file by path (ends with ``.py``)."""
    return Path(name) if name.endswith(".py") else BOTS / f"{name}_bot.py"


class BotSeat:
    """One seat played by a bot file through its ``act``; a new bot object per game, as in the sandbox."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._make: Callable[[], Callable[[Any], Any]] = load_entry_point(bot_file(name))
        self._act: Callable[[Any], Any] | None = None
        self.seat, self._seen, self._id = 0, 0, 0
        self.failed: str | None = None

    def start(self, game: Game[TableSeat], seat: int, bot_seed: int) -> None:
        """Tell a fresh bot object the game starts (its hello)."""
        self._act, self.seat, self._seen, self._id, self.failed = self._make(), seat, 0, 0, None
        n = game.players
        self._call({"type": "hello", "protocol": 1, "seat": seat, "players": n,
                    "seats": [f"seat{k}" for k in range(n)], "rules": game.rules.to_json(), "bot_seed": bot_seed,
                    "limits": {"decision_ms": TIME_LEFT_MS, "bank_ms": 0.0}})

    def decide(self, game: Game[TableSeat]) -> Action:
        """The bot's action at the game's decision (the engine's default once the bot failed)."""
        decision = game.decision
        assert decision is not None and decision.seat == self.seat, "not this seat's decision"
        if self.failed is None:
            self._id += 1
            events = [event_to_json(e) for e in game.events[self._seen:]]
            self._seen = len(game.events)
            reply = self._call({"type": "decide", "id": self._id, "kind": decision.kind.value,
                                "view": game.view_json(self.seat), "events": events,
                                "options": [action_to_json(o) for o in decision.options],
                                "time_left_ms": TIME_LEFT_MS})
            try:
                action = action_from_json(reply["action"]) if isinstance(reply, dict) else None
            except (KeyError, ValueError) as exc:
                self.failed, action = f"unreadable action: {exc}", None
            if action is not None:
                return action
            log.info("seat %d (%s) forfeits: %s", self.seat, self.name, self.failed)
        return default_action(game)

    def play(self, game: Game[TableSeat]) -> None:
        """Apply the bot's action to ``game``; an illegal one is its forfeit, and the default plays instead."""
        action = self.decide(game)
        try:
            game.apply(action)
        except IllegalAction as exc:
            self.failed = f"illegal action {action!r}: {exc}"
            log.info("seat %d (%s) forfeits: %s", self.seat, self.name, self.failed)
            game.apply(default_action(game))

    def end(self, game: Game[TableSeat]) -> None:
        """Tell the bot the result (no reply)."""
        result = game.result
        if result is not None and self.failed is None:
            self._call({"type": "end", "seat": self.seat, "coins": list(result.coins), "ranks": list(result.ranks),
                        "statuses": ["ok"] * game.players})

    def _call(self, message: dict[str, Any]) -> Any:
        assert self._act is not None, "start the game first"
        try:
            return self._act(message)
        except Exception as exc:  # noqa: BLE001 - a bot's failure is its forfeit, never the environment's
            self.failed = f"it raised {type(exc).__name__}: {exc}"
            return None
