"""What one seat may see (C-8, P-8), as values read from the JSON that ``engine.observer`` writes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from engine.cards import Bean


@dataclass(frozen=True, slots=True)
class FieldView:
    bean: Bean | None
    count: int


@dataclass(frozen=True, slots=True)
class TradeCard:
    bean: Bean
    locked: bool  # received in a trade: must be planted, cannot be traded again (C-6.3)


@dataclass(frozen=True, slots=True)
class OfferView:
    """An offer of the current round as everybody sees it (cards as beans, no hand positions)."""

    seat: int
    to: int | None
    give: tuple[Bean, ...]
    want: tuple[Bean, ...]
    accept: bool = False  # true for an acceptance of the active player's offer


@dataclass(frozen=True, slots=True)
class TradeView:
    round: int
    max_rounds: int
    offer: OfferView | None
    responses: tuple[OfferView, ...]


@dataclass(frozen=True, slots=True)
class View:
    """Everything seat ``seat`` may know: its own hand and coins, the public table."""

    rules_id: str
    seat: int
    players: int
    turn: int
    active: int
    hand: tuple[Bean, ...]
    coins: int
    fields: tuple[tuple[FieldView, ...], ...]
    trade_areas: tuple[tuple[TradeCard, ...], ...]
    hand_sizes: tuple[int, ...]
    deck_size: int
    discard_size: int
    discard_top: Bean | None
    reshuffles: int
    trade: TradeView | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> View:
        try:
            trade = data["trade"]
            return cls(
                rules_id=str(data["rules_id"]), seat=int(data["seat"]), players=int(data["players"]),
                turn=int(data["turn"]), active=int(data["active"]),
                hand=tuple(Bean.parse(b) for b in data["hand"]), coins=int(data["coins"]),
                fields=tuple(tuple(FieldView(None if b is None else Bean.parse(b), int(n)) for b, n in fs)
                             for fs in data["fields"]),
                trade_areas=tuple(tuple(TradeCard(Bean.parse(b), bool(locked)) for b, locked in area)
                                  for area in data["trade_areas"]),
                hand_sizes=tuple(int(n) for n in data["hand_sizes"]), deck_size=int(data["deck_size"]),
                discard_size=int(data["discard_size"]),
                discard_top=None if data["discard_top"] is None else Bean.parse(data["discard_top"]),
                reshuffles=int(data["reshuffles"]),
                trade=None if trade is None else TradeView(
                    int(trade["round"]), int(trade["max_rounds"]), _offer_from(trade["offer"]),
                    tuple(_response_from(r) for r in trade["responses"])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed view {str(data)[:200]!r}: {exc}") from None


def _offer_from(data: Mapping[str, Any] | None) -> OfferView | None:
    return None if data is None else _response_from(data)


def _response_from(data: Mapping[str, Any]) -> OfferView:
    """An offer or a response of a trading round from its JSON (a response is never null)."""
    to = data["to"]
    return OfferView(int(data["seat"]), None if to is None else int(to),
                     tuple(Bean.parse(b) for b in data["give"]), tuple(Bean.parse(b) for b in data["want"]),
                     bool(data.get("accept", False)))


# ----------------------------------------------------------------- Princes variants (duel, solo)
@dataclass(frozen=True, slots=True)
class TurnRecord:
    """What the active player did so far this turn: the facts the "In Phase N ..." tasks check (P-6.2).

    ``phase1_plants`` lists ``(bean, how)`` with ``how`` one of ``grew`` (onto beans of its kind),
    ``new`` (into an empty field), ``replaced`` (a field of another kind was cashed in first).
    ``harvests`` are the coins of every cash-in of this turn, forced or not; ``started`` counts the
    plantings (any phase) into an empty field or one cashed in for them.
    """

    phase: int = 0
    phase1_plants: tuple[tuple[Bean, str], ...] = ()
    phase1_discards: int = 0
    phase1_over: bool = False
    phase2_turned: tuple[Bean, ...] = ()
    phase2_from_discard: tuple[Bean, ...] = ()
    phase3_planted: tuple[tuple[Bean, int], ...] = ()
    harvests: tuple[int, ...] = ()
    started: int = 0
    claimed: int = 0
    tributes: int = 0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TurnRecord:
        return cls(
            phase=int(data["phase"]),
            phase1_plants=tuple((Bean.parse(b), str(how)) for b, how in data["phase1_plants"]),
            phase1_discards=int(data["phase1_discards"]), phase1_over=bool(data["phase1_over"]),
            phase2_turned=tuple(Bean.parse(b) for b in data["phase2_turned"]),
            phase2_from_discard=tuple(Bean.parse(b) for b in data["phase2_from_discard"]),
            phase3_planted=tuple((Bean.parse(b), int(n)) for b, n in data["phase3_planted"]),
            harvests=tuple(int(c) for c in data["harvests"]), started=int(data["started"]),
            claimed=int(data["claimed"]), tributes=int(data["tributes"]),
        )


@dataclass(frozen=True, slots=True)
class PrincesView:
    """What seat ``seat`` may know in a duel or solo game (P-8): own hand and gold, the public table.

    Positions on the vine: 0 is the start (in front of card 1), ``k`` stands on card ``k``, ``castle``
    (= cards + 1) is the Castle. ``vine[k-1]`` is the task id of card ``k``, ``None`` while face down.
    ``neutral`` holds the solo game's neutral figures as ``(name, position)``.
    """

    rules_id: str
    variant: str
    seat: int
    players: int
    turn: int
    active: int
    phase: str | None
    hand: tuple[Bean, ...]
    coins: int
    fields: tuple[tuple[FieldView, ...], ...]
    hand_sizes: tuple[int, ...]
    deck_size: int
    discard_size: int
    discard_top: Bean | None
    reshuffles: int
    box: int
    middle: tuple[tuple[Bean, int], ...]
    vine: tuple[str | None, ...]
    figures: tuple[int, ...]
    neutral: tuple[tuple[str, int], ...]
    castle: int
    this_turn: TurnRecord

    @property
    def position(self) -> int:
        return self.figures[self.seat]

    @property
    def next_task(self) -> str | None:
        """The task id of the card in front of this seat's figure, ``"castle"``, or ``None`` (face down / done)."""
        target = self.position + 1
        if target == self.castle:
            return "castle"
        return self.vine[target - 1] if target < self.castle else None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PrincesView:
        try:
            return cls(
                rules_id=str(data["rules_id"]), variant=str(data["variant"]), seat=int(data["seat"]),
                players=int(data["players"]), turn=int(data["turn"]), active=int(data["active"]),
                phase=None if data["phase"] is None else str(data["phase"]),
                hand=tuple(Bean.parse(b) for b in data["hand"]), coins=int(data["coins"]),
                fields=tuple(tuple(FieldView(None if b is None else Bean.parse(b), int(n)) for b, n in fs)
                             for fs in data["fields"]),
                hand_sizes=tuple(int(n) for n in data["hand_sizes"]), deck_size=int(data["deck_size"]),
                discard_size=int(data["discard_size"]),
                discard_top=None if data["discard_top"] is None else Bean.parse(data["discard_top"]),
                reshuffles=int(data["reshuffles"]), box=int(data["box"]),
                middle=tuple((Bean.parse(b), int(n)) for b, n in data["middle"]),
                vine=tuple(None if t is None else str(t) for t in data["vine"]),
                figures=tuple(int(p) for p in data["figures"]),
                neutral=tuple((str(name), int(pos)) for name, pos in data["neutral"]),
                castle=int(data["castle"]), this_turn=TurnRecord.from_json(data["this_turn"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed view {str(data)[:200]!r}: {exc}") from None


def view_from_json(data: Mapping[str, Any]) -> View | PrincesView:
    """Decode either kind of view: a Princes view carries ``variant``, a classic view does not."""
    if isinstance(data, Mapping) and "variant" in data:
        return PrincesView.from_json(data)
    return View.from_json(data)
