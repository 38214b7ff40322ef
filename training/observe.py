"""The observation vector of one seat: a fixed-length encoding of its view (docs/training.md lists the parts).

Seats are numbered from the observer: block 0 is the observer's own, then the others in seat order after it
(empty blocks pad a table of fewer than five). Counts are scaled to about [0, 1] and clipped there.
"""
from __future__ import annotations

from engine.actions import DecisionKind
from engine.cards import Bean
from engine.views import FieldView, PrincesView, View
from training.actions import BEANS, FIELDS, TRADE_CAP

SEATS = 5
HAND_OBS = 6  # hand positions encoded bean by bean (the rest only by the hand's size)
KINDS: tuple[DecisionKind, ...] = tuple(DecisionKind)
_B = len(BEANS)
_FIELD = _B + 2  # bean one-hot, count, owned
_SEAT = FIELDS * _FIELD + 3  # fields, coins, hand size, figure position
SIZE = (SEATS * _SEAT + HAND_OBS * _B + 1 + TRADE_CAP * (_B + 1) + len(KINDS) + 1 + 3 + _B + 2 * _B + _B + 2)
_BEAN_INDEX = {b: i for i, b in enumerate(BEANS)}


def _clip(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x


def _one_hot(bean: Bean | None) -> list[float]:
    out = [0.0] * _B
    if bean is not None:
        out[_BEAN_INDEX[bean]] = 1.0
    return out


def _fields(fields: tuple[FieldView, ...]) -> list[float]:
    out: list[float] = []
    for f in range(FIELDS):
        if f < len(fields):
            out += _one_hot(fields[f].bean) + [_clip(fields[f].count / 12), 1.0]
        else:
            out += [0.0] * _FIELD
    return out


def observe(view: View | PrincesView, kind: DecisionKind | None) -> list[float]:
    """The observation of ``view``'s seat (``kind``: the decision it faces, None when it faces none)."""
    n, me = view.players, view.seat
    princes = isinstance(view, PrincesView)
    out: list[float] = []
    for k in range(SEATS):
        if k >= n:
            out += [0.0] * _SEAT
            continue
        seat = (me + k) % n
        coins = view.coins if seat == me else 0.0
        position = view.figures[seat] / view.castle if isinstance(view, PrincesView) else 0.0
        out += _fields(view.fields[seat]) + [_clip(coins / 20), _clip(view.hand_sizes[seat] / 20), _clip(position)]
    for i in range(HAND_OBS):
        out += _one_hot(view.hand[i] if i < len(view.hand) else None)
    out.append(_clip(len(view.hand) / 20))
    area = view.trade_areas[view.active] if isinstance(view, View) else ()
    for i in range(TRADE_CAP):
        card = area[i] if i < len(area) else None
        out += _one_hot(None if card is None else card.bean) + [1.0 if card is not None and card.locked else 0.0]
    out += [1.0 if kind is k else 0.0 for k in KINDS]
    out.append(1.0 if view.active == me else 0.0)
    out += [_clip(view.deck_size / 100), _clip(view.discard_size / 100), _clip(view.reshuffles / 3)]
    out += _one_hot(view.discard_top)
    give, want = [0.0] * _B, [0.0] * _B
    trade = view.trade if isinstance(view, View) else None
    if trade is not None and trade.offer is not None:
        for b in trade.offer.give:
            give[_BEAN_INDEX[b]] += 0.25
        for b in trade.offer.want:
            want[_BEAN_INDEX[b]] += 0.25
    out += [_clip(x) for x in give + want]
    middle, castle_next = [0.0] * _B, 0.0
    if isinstance(view, PrincesView):
        for bean, count in view.middle:
            middle[_BEAN_INDEX[bean]] = _clip(count / 6)
        castle_next = 1.0 if view.next_task == "castle" else 0.0
    out += middle
    out += [1.0 if princes else 0.0, castle_next]
    assert len(out) == SIZE, (len(out), SIZE)
    return out
