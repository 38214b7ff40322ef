"""The referee's ``decide`` messages, made from parts encoded once (docs/protocol.md "decide").

Per decision only what changed is encoded: the seat's view (``engine.view_text``: each seat's fields,
trading area and hand again only when they changed), the events since the seat's last decision (each
event once for the whole table) and the options (each distinct list of options once). The line is
exactly ``sandbox.framing.encode`` of the message's dict; a player that only sends lines (``wire_only``) gets
a message whose dict holds the header alone, so neither the view's dict nor the events' are made for it.
A reply that names one of the options just offered, written as the message wrote it, is looked up
(``offered``) instead of decoded.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from engine import Action, Decision, event_to_json
from engine.actions import action_to_json
from engine.events import Event
from engine.view_text import ViewText
from engine.wire import to_text
from sandbox.framing import Encoded, dumps

__all__ = ["DecideWire", "number_text"]


def number_text(value: float) -> str:
    """``value`` as the JSON encoder writes it (a non-finite number raises as it does)."""
    if (type(value) is float and math.isfinite(value)) or type(value) is int:
        return repr(value)
    return dumps(value)


class _Options:
    """One list of options as a decide message holds it: their JSON, its text, and each option by its text."""

    __slots__ = ("json", "text", "by_text")

    def __init__(self, options: Sequence[Action]) -> None:
        self.json = [action_to_json(action) for action in options]
        texts = [dumps(data) for data in self.json]
        self.text = "[" + ",".join(texts) + "]"
        self.by_text = dict(zip(texts, options))


#: Every distinct list of options seen by this process, made once (options are values: a game's do not depend
#: on its table); emptied when it grows past ``MAX_SHAPES``, so a long season's memory stays bounded. An entry
#: holds ~2 KB: the live soak's worker grew by 32 MB over 10,000 games of three formats as 20,000 of them
#: filled; 5,000 bound it at ~10 MB, and the lists made again cost no measurable CPU (900 in-process games of
#: the three formats: 21 % of lists made at 2,000 against 5 % at 20,000, 72.9 against 74.3 CPU s; docs/benchmarks.md)
_SHAPES: dict[tuple[Action, ...], _Options] = {}
MAX_SHAPES = 5_000


class DecideWire:
    """The decide messages of one game, and its events' JSON, each event encoded once for every seat."""

    def __init__(self, players: int) -> None:
        self.views = ViewText(players)
        self.events_text: list[str] = []
        self._events_json: list[dict[str, Any]] = []  # made only for a player that reads the message's dict
        self._offered: dict[str, Action] = {}
        self._kinds: dict[str, str] = {}

    def event_texts(self, events: Sequence[Event]) -> list[str]:
        """The JSON text of every event of ``events`` (the game's, growing), each encoded once."""
        texts = self.events_text
        for event in events[len(texts):]:
            texts.append(to_text(event))
        return texts

    def events(self, events: Sequence[Event], since: int) -> tuple[list[dict[str, Any]], list[str]]:
        """The JSON of ``events[since:]`` (``events``: the game's, growing) and their texts."""
        texts = self.event_texts(events)
        data = self._events_json
        for event in events[len(data):]:
            data.append(event_to_json(event))
        return data[since:], texts[since:]

    def options(self, options: tuple[Action, ...]) -> tuple[list[dict[str, Any]], str]:
        """The options' JSON (shared: not to be changed) and the text of their list, made once for each distinct
        list; they are what ``offered`` looks replies up in."""
        shape = _SHAPES.get(options)
        if shape is None:
            if len(_SHAPES) >= MAX_SHAPES:
                _SHAPES.clear()
            shape = _SHAPES[options] = _Options(options)
        self._offered = shape.by_text
        return shape.json, shape.text

    def offered(self, data: object) -> Action | None:
        """The option of the last message whose JSON ``data`` (a reply's action, as a line decodes) is, written
        with the same keys in the same order: exactly what ``action_from_json(data)`` gives then; None for
        anything else (which the caller decodes in full, with its errors)."""
        if type(data) is not dict:
            return None
        try:
            text = dumps(data)
        except Exception:  # noqa: BLE001 - whatever a bot's value provokes: the full decoder says what is wrong
            return None
        return self._offered.get(text)

    def message(self, game: Any, request_id: int, decision: Decision, since: int, time_left_ms: float,
                wire_only: bool) -> Encoded:
        """The ``decide`` message of ``decision`` with the events from ``since`` on: its dict (the header
        alone when ``wire_only``) and its line."""
        kind = decision.kind._value_  # the enum's value attribute: read in C, not through its property
        kind_text = self._kinds.get(kind)
        if kind_text is None:
            kind_text = self._kinds[kind] = dumps(kind)
        texts = self.event_texts(game.events)
        options, options_text = self.options(decision.options)
        view_text = self.views.text(game, decision.seat)
        line = (f'{{"type":"decide","id":{request_id},"kind":{kind_text},"view":{view_text},'
                f'"events":[{",".join(texts[since:])}],"options":{options_text},'
                f'"time_left_ms":{number_text(time_left_ms)}}}\n')
        message = Encoded(type="decide", id=request_id, kind=kind)
        if not wire_only:
            message.update(view=game.view_json(decision.seat), events=self.events(game.events, since)[0],
                           options=options, time_left_ms=time_left_ms)
        message.line = line.encode("utf-8")
        return message
