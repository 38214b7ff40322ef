"""A seat's view as JSON text, made straight from the state, the parts that did not change reused.

``ViewText(players).text(game, seat)`` is exactly ``json.dumps(game.view_json(seat), separators=(",", ":"))``
(tests check it on every state of many games): the referee sends one per decision, so the text is
built without the view's dict, and each seat's fields, trading area and hand are encoded again only
when they changed. A variant without a text builder here (Princes) has its view JSON encoded.
"""
from __future__ import annotations

import json
from typing import Any

from engine.cards import Bean
from engine.classic import ClassicGame
from engine.game import Game
from engine.views import trade_json

__all__ = ["ViewText"]

_BEAN = {b: json.dumps(b.value) for b in Bean}
_BEAN_OR_NULL: dict[Bean | None, str] = {None: "null", **{b: text for b, text in _BEAN.items()}}
_BOOL = {False: "false", True: "true"}


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


class _Part:
    """One seat's part of the view: its text and the state it was made from."""

    __slots__ = ("key", "text")

    def __init__(self) -> None:
        self.key: tuple[Any, ...] | None = None
        self.text = ""


class ViewText:
    """The JSON text of every seat's view of one game."""

    def __init__(self, players: int) -> None:
        self._fields = [_Part() for _ in range(players)]
        self._trade = [_Part() for _ in range(players)]
        self._hand = [_Part() for _ in range(players)]
        self._head: tuple[str, str] = ("", "")

    def text(self, game: Game[Any], seat: int) -> str:
        """``seat``'s view of ``game`` (a game of this table: the same seats) as compact JSON."""
        if not isinstance(game, ClassicGame):
            return _dumps(game.view_json(seat))
        if not 0 <= seat < game.players:
            raise ValueError(f"no seat {seat!r} in a {game.players}-player game")
        seats = game.seats
        me = seats[seat]
        fields = ",".join([self._fields_text(k, s) for k, s in enumerate(seats)])
        areas = ",".join([self._trade_text(k, s) for k, s in enumerate(seats)])
        hand = self._hand[seat]
        key = tuple(me.hand)
        if hand.key != key:
            hand.key, hand.text = key, "[" + ",".join([_BEAN[b] for b in key]) + "]"
        discard = game.discard
        trade = trade_json(game)
        if self._head[0] != game.rules.id:
            self._head = (game.rules.id, '{"rules_id":' + _dumps(game.rules.id) + ',"seat":')
        return (f'{self._head[1]}{seat},"players":{game.players},"turn":{game.turn},"active":{game.active},'
                f'"hand":{hand.text},"coins":{me.coins},"fields":[{fields}],"trade_areas":[{areas}],'
                f'"hand_sizes":[{",".join([str(len(s.hand)) for s in seats])}],"deck_size":{len(game.deck)},'
                f'"discard_size":{len(discard)},"discard_top":{_BEAN[discard[-1]] if discard else "null"},'
                f'"reshuffles":{game.reshuffles},"trade":{"null" if trade is None else _dumps(trade)}}}')

    def _fields_text(self, k: int, s: Any) -> str:
        part = self._fields[k]
        key = (*s.field_beans, *s.field_counts)
        if part.key != key:
            part.key = key
            part.text = "[" + ",".join([f"[{_BEAN_OR_NULL[b]},{n}]" for b, n in zip(s.field_beans, s.field_counts)]) \
                + "]"
        return part.text

    def _trade_text(self, k: int, s: Any) -> str:
        part = self._trade[k]
        key = (*s.trade, *s.trade_locked)
        if part.key != key:
            part.key = key
            part.text = "[" + ",".join([f"[{_BEAN[b]},{_BOOL[bool(locked)]}]"
                                        for b, locked in zip(s.trade, s.trade_locked)]) + "]"
        return part.text
