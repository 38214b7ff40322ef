"""A seat's view as JSON text, made straight from the state, the parts that did not change reused.

``ViewText(players).text(game, seat)`` is exactly ``json.dumps(game.view_json(seat), separators=(",", ":"))``
(tests check it on every state of many games): the referee sends one per decision, so the text is
built without the view's dict, and each seat's fields, trading area and hand, and the trading round, are
written again only when they changed. A variant without a text builder here (Princes) has its view JSON encoded.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from engine.actions import DecisionKind
from engine.cards import Bean
from engine.classic import ClassicGame
from engine.game import Game

__all__ = ["ViewText"]

#: a bean's JSON text by its value: a dict keyed by strings, whose hashes are cached (an enum member's hash is
#: computed in Python); the values are plain names, written in quotes as they are
_BEAN = {b._value_: json.dumps(b.value) for b in Bean}
assert all(text == f'"{value}"' for value, text in _BEAN.items()), "a bean value that JSON would escape"
_BOOL = {False: "false", True: "true"}


_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
try:  # the C encoder behind _ENCODER.encode, made once
    from _json import encode_basestring_ascii, make_encoder

    _ENCODE: Any = make_encoder(None, _ENCODER.default, encode_basestring_ascii, None, ":", ",", False, False, False)
except ImportError:  # pragma: no cover - an interpreter without the accelerator
    _ENCODE = None
#: the phases whose view shows a trading round (``trade_json``), looked up by identity
_TRADING = tuple(kind for kind in DecisionKind if kind.value.startswith("trade"))


def _dumps(value: Any) -> str:
    if _ENCODE is None:  # pragma: no cover
        return _ENCODER.encode(value)
    return "".join(_ENCODE(value, 0))


def _beans(beans: Sequence[Bean]) -> str:
    """The JSON list of ``beans``' values."""
    return '["' + '","'.join([b._value_ for b in beans]) + '"]' if beans else "[]"


def _offer(seat: int, to: int | None, give: Sequence[Bean], want: Sequence[Bean], accept: bool) -> str:
    """An offer or a response of a trading round as ``trade_json`` holds it."""
    return (f'{{"seat":{seat},"to":{"null" if to is None else to},"give":{_beans(give)},"want":{_beans(want)},'
            f'"accept":{_BOOL[accept]}}}')


class _Part:
    """One seat's part of the view: its text and copies of the state it was made from."""

    __slots__ = ("a", "b", "text")

    def __init__(self) -> None:
        self.a: list[Any] | None = None
        self.b: list[Any] | None = None
        self.text = ""


class ViewText:
    """The JSON text of every seat's view of one game."""

    def __init__(self, players: int) -> None:
        self._fields = [_Part() for _ in range(players)]
        self._trade = [_Part() for _ in range(players)]
        self._hand = [_Part() for _ in range(players)]
        self._head: tuple[Any, str] = (None, "")  # the rules, and the text up to the seat
        self._table = ""  # the fields and trading areas of every seat, as last made
        # the trading round as last encoded: what it was made from (rules, round, active seat, the offer itself,
        # a copy of the responses: the offer and responses are frozen values) and its text
        self._round: tuple[Any, ...] = ()
        self._round_text = "null"

    def text(self, game: Game[Any], seat: int) -> str:
        """``seat``'s view of ``game`` (a game of this table: the same seats) as compact JSON."""
        if not isinstance(game, ClassicGame):
            return _dumps(game.view_json(seat))
        if not 0 <= seat < game.players:
            raise ValueError(f"no seat {seat!r} in a {game.players}-player game")
        seats = game.seats
        changed = False
        for s, fields, area in zip(seats, self._fields, self._trade):
            if fields.a != s.field_beans or fields.b != s.field_counts:  # lists compared in C: no key to build
                fields.a, fields.b, changed = list(s.field_beans), list(s.field_counts), True
                fields.text = "[" + ",".join([f'["{b._value_}",{n}]' if b is not None else f"[null,{n}]"
                                              for b, n in zip(fields.a, fields.b)]) + "]"
            if area.a != s.trade or area.b != s.trade_locked:
                area.a, area.b, changed = list(s.trade), list(s.trade_locked), True
                area.text = "[" + ",".join([f'["{b._value_}",{_BOOL[bool(locked)]}]'
                                            for b, locked in zip(area.a, area.b)]) + "]"
        if changed or not self._table:
            self._table = (f'"fields":[{",".join([f.text for f in self._fields])}],'
                           f'"trade_areas":[{",".join([a.text for a in self._trade])}]')
        me = seats[seat]
        hand = self._hand[seat]
        if hand.a != me.hand:
            hand.a = list(me.hand)
            hand.text = _beans(hand.a)
        discard = game.discard
        trade = "null" if game.phase not in _TRADING else self._trade_text(game)
        if self._head[0] is not game.rules:
            self._head = (game.rules, '{"rules_id":' + _dumps(game.rules.id) + ',"seat":')
        return (f'{self._head[1]}{seat},"players":{game.players},"turn":{game.turn},"active":{game.active},'
                f'"hand":{hand.text},"coins":{me.coins},{self._table},'
                f'"hand_sizes":[{",".join([str(len(s.hand)) for s in seats])}],"deck_size":{len(game.deck)},'
                f'"discard_size":{len(discard)},"discard_top":{_BEAN[discard[-1]._value_] if discard else "null"},'
                f'"reshuffles":{game.reshuffles},"trade":{trade}}}')

    def _trade_text(self, game: ClassicGame) -> str:
        """The trading round under way (``engine.views.trade_json``), written again only when it changed."""
        last = self._round
        if (not last or last[0] is not game.rules or last[1] != game.trade_round or last[2] != game.active
                or last[3] is not game.offer or last[4] != game.responses):
            self._round = (game.rules, game.trade_round, game.active, game.offer, list(game.responses))
            offer, active = game.offer, game.active
            responses = ",".join([_offer(r.seat, active, r.give, r.want, r.accept) for r in game.responses])
            self._round_text = (
                f'{{"round":{game.trade_round},"max_rounds":{game.rules.max_trade_rounds},"offer":'
                f'{"null" if offer is None else _offer(active, offer.to, offer.give, offer.want, False)},'
                f'"responses":[{responses}]}}')
        return self._round_text
