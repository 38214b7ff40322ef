"""The referee's ``decide`` messages, made from parts encoded once (docs/protocol.md "decide").

Per decision only what changed is encoded: the seat's view (``engine.view_text``: each seat's fields,
trading area and hand again only when they changed), the events since the seat's last decision (each
event once for the whole table) and the options (each distinct action once a game). The line is exactly
``sandbox.framing.encode`` of the message's dict; a player that only sends lines (``wire_only``) gets a
message whose dict holds the header alone, so the view's dict is never made for it.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from engine import Action, Decision, event_to_json
from engine.actions import action_to_json
from engine.events import Event
from engine.view_text import ViewText
from sandbox.framing import Encoded, dumps

__all__ = ["DecideWire", "number_text"]


def number_text(value: float) -> str:
    """``value`` as the JSON encoder writes it (a non-finite number raises as it does)."""
    if (type(value) is float and math.isfinite(value)) or type(value) is int:
        return repr(value)
    return dumps(value)


class DecideWire:
    """The decide messages of one game, and its events' JSON, each event encoded once for every seat."""

    def __init__(self, players: int) -> None:
        self.views = ViewText(players)
        self.events_json: list[dict[str, Any]] = []
        self.events_text: list[str] = []
        self._actions: dict[Action, tuple[dict[str, Any], str]] = {}
        self._kinds: dict[str, str] = {}

    def events(self, events: Sequence[Event], since: int) -> tuple[list[dict[str, Any]], list[str]]:
        """The JSON of ``events[since:]`` (``events``: the game's, growing) and their texts."""
        for event in events[len(self.events_json):]:
            data = event_to_json(event)
            self.events_json.append(data)
            self.events_text.append(dumps(data))
        return self.events_json[since:], self.events_text[since:]

    def options(self, options: Sequence[Action]) -> tuple[list[dict[str, Any]], str]:
        """The options' JSON and the text of their list (each action's text made once a game)."""
        known = self._actions
        parts = []
        for action in options:
            part = known.get(action)
            if part is None:
                data = action_to_json(action)
                part = known[action] = (data, dumps(data))
            parts.append(part)
        return [data for data, _ in parts], "[" + ",".join([text for _, text in parts]) + "]"

    def message(self, game: Any, request_id: int, decision: Decision, since: int, time_left_ms: float,
                wire_only: bool) -> Encoded:
        """The ``decide`` message of ``decision`` with the events from ``since`` on: its dict (the header
        alone when ``wire_only``) and its line."""
        kind = decision.kind.value
        kind_text = self._kinds.get(kind)
        if kind_text is None:
            kind_text = self._kinds[kind] = dumps(kind)
        events, texts = self.events(game.events, since)
        options, options_text = self.options(decision.options)
        view_text = self.views.text(game, decision.seat)
        line = (f'{{"type":"decide","id":{request_id},"kind":{kind_text},"view":{view_text},'
                f'"events":[{",".join(texts)}],"options":{options_text},'
                f'"time_left_ms":{number_text(time_left_ms)}}}\n')
        message = Encoded(type="decide", id=request_id, kind=kind)
        if not wire_only:
            message.update(view=game.view_json(decision.seat), events=events, options=options,
                           time_left_ms=time_left_ms)
        message.line = line.encode("utf-8")
        return message
