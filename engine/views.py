"""What one seat may see (C-8). A view is computed from the state, never read off it."""
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

    def to_json(self) -> dict[str, Any]:
        return {
            "rules_id": self.rules_id, "seat": self.seat, "players": self.players,
            "turn": self.turn, "active": self.active,
            "hand": [b.value for b in self.hand], "coins": self.coins,
            "fields": [[[f.bean.value if f.bean else None, f.count] for f in fs] for fs in self.fields],
            "trade_areas": [[[c.bean.value, c.locked] for c in area] for area in self.trade_areas],
            "hand_sizes": list(self.hand_sizes), "deck_size": self.deck_size,
            "discard_size": self.discard_size,
            "discard_top": self.discard_top.value if self.discard_top else None,
            "reshuffles": self.reshuffles,
            "trade": None if self.trade is None else {
                "round": self.trade.round, "max_rounds": self.trade.max_rounds,
                "offer": _offer_json(self.trade.offer),
                "responses": [_offer_json(r) for r in self.trade.responses],
            },
        }

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


def trade_json(game: Any) -> dict[str, Any] | None:
    """The trading round under way as a view's JSON holds it (None outside trading), straight from the state."""
    if game.phase is None or not game.phase.value.startswith("trade"):
        return None
    offer, active = game.offer, game.active
    return {
        "round": game.trade_round, "max_rounds": game.rules.max_trade_rounds,
        "offer": None if offer is None else {"seat": active, "to": offer.to, "give": [b.value for b in offer.give],
                                             "want": [b.value for b in offer.want], "accept": False},
        "responses": [{"seat": r.seat, "to": active, "give": [b.value for b in r.give],
                       "want": [b.value for b in r.want], "accept": r.accept} for r in game.responses],
    }


def _offer_json(offer: OfferView | None) -> dict[str, Any] | None:
    if offer is None:
        return None
    return {"seat": offer.seat, "to": offer.to, "give": [b.value for b in offer.give],
            "want": [b.value for b in offer.want], "accept": offer.accept}


def _offer_from(data: Mapping[str, Any] | None) -> OfferView | None:
    return None if data is None else _response_from(data)


def _response_from(data: Mapping[str, Any]) -> OfferView:
    """An offer or a response of a trading round from its JSON (a response is never null)."""
    to = data["to"]
    return OfferView(int(data["seat"]), None if to is None else int(to),
                     tuple(Bean.parse(b) for b in data["give"]), tuple(Bean.parse(b) for b in data["want"]),
                     bool(data.get("accept", False)))


def trade_view(game: Any) -> TradeView | None:
    """The trading round under way in a ``ClassicGame`` (None outside trading), as every seat sees it."""
    if game.phase is None or not game.phase.value.startswith("trade"):
        return None
    offer = game.offer
    return TradeView(
        game.trade_round, game.rules.max_trade_rounds,
        None if offer is None else OfferView(game.active, offer.to, offer.give, offer.want),
        tuple(OfferView(r.seat, game.active, r.give, r.want, r.accept) for r in game.responses),
    )


def classic_view(game: Any, seat: int) -> View:
    """The view of ``seat`` in a ``ClassicGame``."""
    if not 0 <= seat < game.players:
        raise ValueError(f"no seat {seat!r} in a {game.players}-player game")
    me = game.seats[seat]
    return View(
        rules_id=game.rules.id, seat=seat, players=game.players, turn=game.turn, active=game.active,
        hand=tuple(me.hand), coins=me.coins,
        fields=tuple(tuple(FieldView(b, n) for b, n in zip(s.field_beans, s.field_counts)) for s in game.seats),
        trade_areas=tuple(tuple(TradeCard(b, locked) for b, locked in zip(s.trade, s.trade_locked))
                          for s in game.seats),
        hand_sizes=tuple(len(s.hand) for s in game.seats), deck_size=len(game.deck),
        discard_size=len(game.discard), discard_top=game.discard[-1] if game.discard else None,
        reshuffles=game.reshuffles, trade=trade_view(game),
    )


def classic_view_json(game: Any, seat: int) -> dict[str, Any]:
    """``classic_view(game, seat).to_json()`` made straight from the state (the referee's per-request
    path: no view objects); tests check both agree on every state of many games."""
    if not 0 <= seat < game.players:
        raise ValueError(f"no seat {seat!r} in a {game.players}-player game")
    seats = game.seats
    trade = trade_json(game)
    return {
        "rules_id": game.rules.id, "seat": seat, "players": game.players, "turn": game.turn, "active": game.active,
        "hand": [b.value for b in seats[seat].hand], "coins": seats[seat].coins,
        "fields": [[[b.value if b else None, n] for b, n in zip(s.field_beans, s.field_counts)] for s in seats],
        "trade_areas": [[[b.value, locked] for b, locked in zip(s.trade, s.trade_locked)] for s in seats],
        "hand_sizes": [len(s.hand) for s in seats], "deck_size": len(game.deck), "discard_size": len(game.discard),
        "discard_top": game.discard[-1].value if game.discard else None,
        "reshuffles": game.reshuffles, "trade": trade,
    }


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

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase, "phase1_plants": [[b.value, how] for b, how in self.phase1_plants],
            "phase1_discards": self.phase1_discards, "phase1_over": self.phase1_over,
            "phase2_turned": [b.value for b in self.phase2_turned],
            "phase2_from_discard": [b.value for b in self.phase2_from_discard],
            "phase3_planted": [[b.value, n] for b, n in self.phase3_planted],
            "harvests": list(self.harvests), "started": self.started, "claimed": self.claimed,
            "tributes": self.tributes,
        }

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

    def to_json(self) -> dict[str, Any]:
        return {
            "rules_id": self.rules_id, "variant": self.variant, "seat": self.seat, "players": self.players,
            "turn": self.turn, "active": self.active, "phase": self.phase,
            "hand": [b.value for b in self.hand], "coins": self.coins,
            "fields": [[[f.bean.value if f.bean else None, f.count] for f in fs] for fs in self.fields],
            "hand_sizes": list(self.hand_sizes), "deck_size": self.deck_size, "discard_size": self.discard_size,
            "discard_top": self.discard_top.value if self.discard_top else None, "reshuffles": self.reshuffles,
            "box": self.box, "middle": [[b.value, n] for b, n in self.middle], "vine": list(self.vine),
            "figures": list(self.figures), "neutral": [[name, pos] for name, pos in self.neutral],
            "castle": self.castle, "this_turn": self.this_turn.to_json(),
        }

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


def princes_view(game: Any, seat: int) -> PrincesView:
    """The view of ``seat`` in a ``PrincesGame`` (P-8)."""
    if not 0 <= seat < game.players:
        raise ValueError(f"no seat {seat!r} in a {game.players}-player game")
    me = game.seats[seat]
    revealed = game.revealed
    return PrincesView(
        rules_id=game.rules.id, variant=game.rules.variant, seat=seat, players=game.players, turn=game.turn,
        active=game.active, phase=None if game.phase is None else game.phase.value,
        hand=tuple(me.hand), coins=me.coins,
        fields=tuple(tuple(FieldView(b, n) for b, n in zip(s.field_beans, s.field_counts)) for s in game.seats),
        hand_sizes=tuple(len(s.hand) for s in game.seats), deck_size=len(game.deck),
        discard_size=len(game.discard), discard_top=game.discard[-1] if game.discard else None,
        reshuffles=game.reshuffles, box=len(game.box), middle=tuple(game.middle.items()),
        vine=tuple(t if k < revealed else None for k, t in enumerate(game.vine)),
        figures=tuple(s.position for s in game.seats), neutral=game.neutral_positions(), castle=game.castle,
        this_turn=game.log.record(),
    )


def view_from_json(data: Mapping[str, Any]) -> View | PrincesView:
    """Decode either kind of view: a Princes view carries ``variant``, a classic view does not."""
    if isinstance(data, Mapping) and "variant" in data:
        return PrincesView.from_json(data)
    return View.from_json(data)
