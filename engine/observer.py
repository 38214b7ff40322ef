"""What each seat and each spectator may see of a game, written as JSON: one observer per kind of game.

As OpenSpiel's observers do, an observer computes a view from the state and never reads it off: it is the
one writer of a seat's view (docs/protocol.md "The view") and of the public state (docs/protocol.md
"Steps", ``engine.spectator.PublicState``). The frozen values (``View``, ``PrincesView``, ``PublicState``)
are read back from this JSON, never written another way.

The classic observer writes a seat's view as compact text, since the referee sends one per decision: each
seat's fields, trading area and hand, and the trading round, are written again only when they changed.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from engine.actions import DecisionKind
from engine.cards import Bean

__all__ = ["ClassicObserver", "PrincesObserver", "compact"]

#: compact JSON, as ``json.dumps(value, separators=(",", ":"), allow_nan=False)`` writes it
compact = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode

#: a bean's JSON text by its wire name (a string key hashes in C; a ``Bean`` member's hash is a Python call)
_BEAN_TEXT = {b.wire: compact(b.wire) for b in Bean}
assert all(text == f'"{name}"' for name, text in _BEAN_TEXT.items()), "a bean name that JSON would escape"
_BOOL = {False: "false", True: "true"}
_NAMES: dict[Bean | None, str | None] = {**{b: b.wire for b in Bean}, None: None}
#: the phases whose view shows a trading round: a tuple, looked up by identity (a set would hash the member, a
#: Python call)
_TRADING = tuple(kind for kind in DecisionKind if kind.value.startswith("trade"))


def _beans(beans: Sequence[Bean]) -> str:
    """The JSON list of ``beans``' names."""
    return '["' + '","'.join([b.wire for b in beans]) + '"]' if beans else "[]"


def _offer(seat: int, to: int | None, give: Sequence[Bean], want: Sequence[Bean], accept: bool) -> str:
    """An offer or a response of a trading round: ``{"seat", "to", "give", "want", "accept"}``."""
    return (f'{{"seat":{seat},"to":{"null" if to is None else to},"give":{_beans(give)},"want":{_beans(want)},'
            f'"accept":{_BOOL[accept]}}}')


def _check_seat(game: Any, seat: int) -> None:
    if not 0 <= seat < game.players:
        raise ValueError(f"no seat {seat!r} in a {game.players}-player game")


class _Part:
    """One seat's part of the view: its text and copies of the state it was written from."""

    __slots__ = ("a", "b", "text")

    def __init__(self) -> None:
        self.a: list[Any] | None = None
        self.b: list[Any] | None = None
        self.text = ""


def _public_seats(game: Any, trade_areas: bool, figures: bool) -> list[dict[str, Any]]:
    revealed = game.final_hands if game.over else None
    names = _NAMES
    return [{"coins": len(s.treasury), "hand_size": len(s.hand),
             "fields": [[names[b], n] for b, n in zip(s.field_beans, s.field_counts)],
             "trade_area": [[names[b], locked] for b, locked in zip(s.trade, s.trade_locked)] if trade_areas else [],
             "figure": s.position if figures else None,
             "hand": None if revealed is None else [names[b] for b in revealed[i]]}
            for i, s in enumerate(game.seats)]


def _public_state(game: Any, seats: list[dict[str, Any]], trade: Any, princes: dict[str, Any] | None) -> dict[str, Any]:
    over, result = game.over, game.result
    return {
        "rules_id": game.rules.id, "step": len(game.history), "turn": game.turn, "active": game.active,
        "over": over, "to_move": None if over else game.to_move,
        "decision": None if over or game.phase is None else game.phase.value,
        "deck": len(game.deck), "discard": len(game.discard),
        "top": _NAMES[game.discard[-1]] if game.discard else None, "reshuffles": game.reshuffles,
        "seats": seats, "trade": trade, "princes": princes, "ranks": None if result is None else list(result.ranks),
    }


class ClassicObserver:
    """The views and the public state of one classic game (a table's: the same seats throughout)."""

    def __init__(self, players: int) -> None:
        self._fields = [_Part() for _ in range(players)]
        self._trade = [_Part() for _ in range(players)]
        self._hand = [_Part() for _ in range(players)]
        self._head: tuple[Any, str] = (None, "")  # the rules, and the text up to the seat
        self._table = ""  # the fields and trading areas of every seat, as last written
        # the trading round as last written: what it was written from (rules, round, active seat, the offer itself,
        # a copy of the responses: the offer and responses are frozen values) and its text
        self._round: tuple[Any, ...] = ()
        self._round_text = "null"

    def view_text(self, game: Any, seat: int) -> str:
        """``seat``'s view of ``game`` as compact JSON text (docs/protocol.md "The view")."""
        _check_seat(game, seat)
        seats = game.seats
        changed = False
        for s, fields, area in zip(seats, self._fields, self._trade):
            if fields.a != s.field_beans or fields.b != s.field_counts:  # lists compared in C: no key to build
                fields.a, fields.b, changed = list(s.field_beans), list(s.field_counts), True
                fields.text = "[" + ",".join([f'["{b.wire}",{n}]' if b is not None else f"[null,{n}]"
                                              for b, n in zip(fields.a, fields.b)]) + "]"
            if area.a != s.trade or area.b != s.trade_locked:
                area.a, area.b, changed = list(s.trade), list(s.trade_locked), True
                area.text = "[" + ",".join([f'["{b.wire}",{_BOOL[bool(locked)]}]'
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
        trade = self._trade_text(game) if game.phase in _TRADING else "null"
        if self._head[0] is not game.rules:
            self._head = (game.rules, '{"rules_id":' + compact(game.rules.id) + ',"seat":')
        return (f'{self._head[1]}{seat},"players":{game.players},"turn":{game.turn},"active":{game.active},'
                f'"hand":{hand.text},"coins":{me.coins},{self._table},'
                f'"hand_sizes":[{",".join([str(len(s.hand)) for s in seats])}],"deck_size":{len(game.deck)},'
                f'"discard_size":{len(discard)},"discard_top":{_BEAN_TEXT[discard[-1].wire] if discard else "null"},'
                f'"reshuffles":{game.reshuffles},"trade":{trade}}}')

    def view_json(self, game: Any, seat: int) -> dict[str, Any]:
        """``seat``'s view as a JSON object: the text read back (a bot reads it so)."""
        data: dict[str, Any] = json.loads(self.view_text(game, seat))
        return data

    def public_state_json(self, game: Any) -> dict[str, Any]:
        """The public table (``engine.spectator.PublicState``'s JSON): trading areas and the trading round."""
        trade = json.loads(self._trade_text(game)) if game.phase in _TRADING else None
        return _public_state(game, _public_seats(game, trade_areas=True, figures=False), trade, None)

    def _trade_text(self, game: Any) -> str:
        """The trading round under way, written again only when it changed."""
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


class PrincesObserver:
    """The views and the public state of one duel or solo game (P-8)."""

    def __init__(self, players: int) -> None:
        self.players = players

    def view_json(self, game: Any, seat: int) -> dict[str, Any]:
        """``seat``'s view as a JSON object (docs/protocol.md "The Princes view")."""
        _check_seat(game, seat)
        me, seats, names, revealed = game.seats[seat], game.seats, _NAMES, game.revealed
        turn = game.log
        return {
            "rules_id": game.rules.id, "variant": game.rules.variant, "seat": seat, "players": game.players,
            "turn": game.turn, "active": game.active, "phase": None if game.phase is None else game.phase.value,
            "hand": [b.wire for b in me.hand], "coins": me.coins,
            "fields": [[[names[b], n] for b, n in zip(s.field_beans, s.field_counts)] for s in seats],
            "hand_sizes": [len(s.hand) for s in seats], "deck_size": len(game.deck),
            "discard_size": len(game.discard), "discard_top": names[game.discard[-1]] if game.discard else None,
            "reshuffles": game.reshuffles, "box": len(game.box),
            "middle": [[b.wire, n] for b, n in game.middle.items()],
            "vine": [t if k < revealed else None for k, t in enumerate(game.vine)],
            "figures": [s.position for s in seats],
            "neutral": [[name, pos] for name, pos in game.neutral_positions()], "castle": game.castle,
            "this_turn": {
                "phase": turn.phase, "phase1_plants": [[b.wire, how] for b, how in turn.p1_plants],
                "phase1_discards": turn.p1_discards, "phase1_over": turn.p1_over,
                "phase2_turned": [b.wire for b in turn.p2_turned],
                "phase2_from_discard": [b.wire for b in turn.p2_from_discard],
                "phase3_planted": [[b.wire, n] for b, n in turn.p3_planted],
                "harvests": list(turn.harvests), "started": turn.started, "claimed": turn.claimed,
                "tributes": turn.tributes},
        }

    def view_text(self, game: Any, seat: int) -> str:
        return compact(self.view_json(game, seat))

    def public_state_json(self, game: Any) -> dict[str, Any]:
        """The public table: figures, the box, the middle, the vine (face-down cards as null), the neutral figures."""
        revealed = game.revealed
        table = {"box": len(game.box), "middle": [[b.wire, n] for b, n in game.middle.items()],
                 "vine": [t if k < revealed else None for k, t in enumerate(game.vine)],
                 "neutral": [[name, pos] for name, pos in game.neutral_positions()], "castle": game.castle}
        return _public_state(game, _public_seats(game, trade_areas=False, figures=True), None, table)
