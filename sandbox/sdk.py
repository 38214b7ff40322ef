"""The Python bot SDK: write a Bohnanza bot as one file.

Subclass ``Bot`` and override the methods for the decisions you care about::

    from sandbox.sdk import Bot, Pass

    class MyBot(Bot):
        def plant_second(self, request):
            return Pass()

Every method gets a typed ``Request`` (the decision kind, your ``View`` of the table, the public
events since your last decision, the legal options, your time left) and returns an action.
The same file runs in-process and in the sandbox; the protocol underneath is in docs/protocol.md.
A bot may instead define a module-level ``act(message: dict) -> dict`` and speak the raw protocol.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Protocol, TypeVar, overload

from engine.actions import (
    Accept, Action, BuyField, ClaimTask, Confirm, DecisionKind, DiscardHand, DiscardMiddle, EndTrading, Harvest,
    Offer, Pass, PayTribute, Plant, PlantMiddle, PlantTraded, action_from_json, action_to_json,
)
from engine.cards import Bean, find_cards
from engine.events import (
    Accepted, Discarded, Drew, EndTriggered, Event, FieldBought, FigureMoved, GameEnded, Harvested, Offered, Passed,
    Planted, Reshuffled, TaskClaimed, TookDiscard, Traded, TradingEnded, TributePaid, TurnedUp, TurnStarted,
    VineRevealed, event_from_json,
)
from engine.rules import PrincesRules, Rules
from engine.views import FieldView, OfferView, PrincesView, TradeCard, TradeView, TurnRecord, View, view_from_json

from .protocol import PROTOCOL_VERSION, ActionReply, DecideMessage, EndMessage, HelloMessage, ReadyReply

__all__ = [
    "Accept", "Accepted", "Action", "Bean", "best_plant", "Bot", "BuyField", "ClaimTask", "Confirm",
    "DecisionKind", "Discarded", "DiscardHand", "DiscardMiddle", "Drew", "EndTrading", "EndTriggered", "Event",
    "field_coins", "FieldBought", "FieldView", "FigureMoved", "find_cards", "GameEnded", "Harvest", "Harvested",
    "Hello", "Offer", "Offered", "OfferView", "Pass", "Passed", "PayTribute", "Plant", "plant_loss", "Planted",
    "PlantMiddle", "PlantTraded", "PrincesView", "PROTOCOL_VERSION", "Request", "Reshuffled", "Rules",
    "TaskClaimed", "TookDiscard", "TradeCard", "Traded", "TradeView", "TradingEnded", "TributePaid", "TurnedUp",
    "TurnRecord", "TurnStarted", "View", "VineRevealed",
]


A = TypeVar("A", bound=Action)
B = TypeVar("B", bound=Action)


class MovesMaker(Protocol):
    """What makes a bot's ``princes_moves`` for one game: usually the helper's class."""

    def __call__(self, rules: Rules, rng: random.Random, /) -> object: ...


@dataclass(frozen=True)
class Hello:
    """The start of a game: who you are and under which rules and limits you play."""

    seat: int
    players: int
    rules: Rules
    bot_seed: int
    limits: Mapping[str, Any]
    seats: tuple[str, ...] = ()  # every seat's anonymous label (``seat0``...), in seat order
    protocol: int = PROTOCOL_VERSION

    @classmethod
    def from_json(cls, message: Mapping[str, Any]) -> Hello:
        hello = HelloMessage.from_json(message)
        return cls(hello.seat, hello.players, Rules.from_json(hello.rules), hello.bot_seed,
                   {} if hello.limits is None else hello.limits.to_json(), hello.seats, hello.protocol)


class Request:
    """One decision to make: ``id``, ``kind``, ``view`` (your view of the table), ``events`` (the public
    events since your previous decision), ``options`` (the legal actions that need no invention) and
    ``time_left_ms``. ``view``, ``events`` and ``options`` are decoded when first used, so a bot that does
    not look at them does not pay for them."""

    __slots__ = ("id", "kind", "time_left_ms", "_options", "_view", "_events", "_raw")

    def __init__(self, id: int, kind: DecisionKind, view: View | PrincesView | None,
                 events: tuple[Event, ...] | None, options: tuple[Action, ...] | None, time_left_ms: float) -> None:
        self.id, self.kind, self.time_left_ms = id, kind, time_left_ms
        self._options, self._view, self._events = options, view, events
        self._raw: DecideMessage | None = None

    @classmethod
    def from_json(cls, message: Mapping[str, Any]) -> Request:
        decide = DecideMessage.from_json(message)
        request = cls(decide.id, DecisionKind(decide.kind), None, None, None, float(decide.time_left_ms))
        request._raw = decide
        return request

    @property
    def options(self) -> tuple[Action, ...]:
        """The legal actions that need no invention (for the trade kinds: the fixed ones, e.g. ``Pass()``)."""
        if self._options is None:
            self._options = tuple(action_from_json(a) for a in (self._raw.options if self._raw else ()))
        return self._options

    @property
    def view(self) -> View | PrincesView:
        """A PrincesView in the duel and solo variants."""
        if self._view is None:
            assert self._raw is not None  # made by from_json, or given a view
            self._view = view_from_json(self._raw.view)
        return self._view

    @property
    def events(self) -> tuple[Event, ...]:
        if self._events is None:
            self._events = tuple(event_from_json(e) for e in (self._raw.events if self._raw else ()))
        return self._events

    def __repr__(self) -> str:
        return f"Request(id={self.id!r}, kind={self.kind!r}, options={self.options!r})"

    @property
    def classic_view(self) -> View:
        """``view`` in the classic game; a ``TypeError`` in the duel and solo games."""
        view = self.view
        if not isinstance(view, View):
            raise TypeError(f"request {self.id!r} ({self.kind.value}) is not of the classic game: {view.rules_id!r}")
        return view

    @property
    def princes_view(self) -> PrincesView:
        """``view`` in the duel and solo games; a ``TypeError`` in the classic game."""
        view = self.view
        if not isinstance(view, PrincesView):
            raise TypeError(f"request {self.id!r} ({self.kind.value}) is not of a Princes game: {view.rules_id!r}")
        return view

    @property
    def me(self) -> int:
        return self.view.seat

    @property
    def is_active(self) -> bool:
        return self.view.seat == self.view.active

    @overload
    def options_of(self, kind: type[A], /) -> list[A]: ...
    @overload
    def options_of(self, kind: type[A], other: type[B], /) -> list[A | B]: ...
    @overload
    def options_of(self, *types: type[Action]) -> list[Action]: ...

    def options_of(self, *types: type[Any]) -> list[Any]:
        return [a for a in self.options if isinstance(a, types)]


class Bot:
    """Base class of a bot: one method per decision kind, each with a sensible default.

    ``self.rules``, ``self.seat``, ``self.players`` and ``self.rng`` (seeded by the referee's per-game bot seed,
    so a bot is reproducible) are set when the game starts.
    """

    __bohnanza_bot__ = True
    #: Who answers the decisions of the duel and solo games instead of this bot's own methods: made once a game
    #: as ``princes_moves(rules, rng)``, with a method per decision kind (a kind it lacks stays the bot's).
    princes_moves: ClassVar[MovesMaker | None] = None

    def __init__(self) -> None:
        self._rules: Rules | None = None
        self._player: object = self  # whose method answers a decision: this bot or its ``princes_moves``
        self.seat = -1
        self.players = 0
        self.rng = random.Random(0)

    @property
    def rules(self) -> Rules:
        """The rules of this game, set by the hello."""
        if self._rules is None:
            raise RuntimeError(f"{type(self).__name__}.rules was read before the game started (the hello sets it)")
        return self._rules

    @rules.setter
    def rules(self, rules: Rules) -> None:
        self._rules = rules

    # -- the protocol, dispatched; override the methods below instead
    def act(self, message: Mapping[str, Any]) -> dict[str, Any] | None:
        kind = message.get("type")
        if kind == DecideMessage.TYPE:
            request = Request.from_json(message)
            name = request.kind.value
            action = (getattr(self._player, name, None) or getattr(self, name))(request)
            return ActionReply(request.id, action_to_json(action)).to_json()
        if kind == HelloMessage.TYPE:
            hello = Hello.from_json(message)
            self.rules, self.seat, self.players = hello.rules, hello.seat, hello.players
            self.rng = random.Random(hello.bot_seed)
            moves = type(self).princes_moves
            self._player = self if moves is None or hello.rules.princes is None else moves(hello.rules, self.rng)
            self.on_start(hello)
            return ReadyReply().to_json()
        if kind == EndMessage.TYPE:
            self.on_end(message)
        return None

    def on_start(self, hello: Hello) -> None:
        """Called once when the game starts."""

    def on_end(self, message: Mapping[str, Any]) -> None:
        """Called once with the final result."""

    # -- decisions
    def plant_first(self, request: Request) -> Action:
        """Plant the front card of the hand (mandatory)."""
        return best_plant(self.rules, request)

    def plant_second(self, request: Request) -> Action:
        """Plant the next card, or ``Pass()``. Default: plant it only where it grows a field."""
        bean = request.view.hand[0]
        for action in request.options_of(Plant):
            if request.view.fields[request.me][action.field].bean is bean:
                return action
        return Pass()

    def trade_offer(self, request: Request) -> Action:
        """Active player: an ``Offer``, ``Pass()`` (hear the others) or ``EndTrading()``."""
        return EndTrading()

    def trade_respond(self, request: Request) -> Action:
        """Other players: ``Accept``, an ``Offer`` to the active player, or ``Pass()``."""
        return Pass()

    def trade_confirm(self, request: Request) -> Action:
        """Active player: ``Confirm(i, ...)`` one of this round's responses, or ``Pass()``."""
        return Pass()

    def plant_traded(self, request: Request) -> Action:
        """Plant one card of your trading area."""
        return best_plant(self.rules, request)

    # -- decisions of the Princes variants (duel, solo); ``ClaimTask()``, ``PayTribute()``, ``Harvest``
    # -- and ``BuyField()`` may be answered at any of them, after which you decide again
    def take_middle(self, request: Request) -> Action:
        """Phase 0: ``PlantMiddle(bean, field)`` or ``DiscardMiddle(bean)`` for each kind the opponent left.
        Default: claim a task if possible, else plant a kind onto its own field, else discard it."""
        if ClaimTask() in request.options:
            return ClaimTask()
        mine = request.view.fields[request.me]
        for action in request.options_of(PlantMiddle):
            if mine[action.field].bean is action.bean:
                return action
        return request.options_of(DiscardMiddle)[0]

    def discard_hand(self, request: Request) -> Action:
        """Phase 1, after planting: ``DiscardHand(position)`` or ``Pass()``. Default: claim if possible, else pass."""
        return ClaimTask() if ClaimTask() in request.options else Pass()

    def keep_middle(self, request: Request) -> Action:
        """Phase 3: ``PlantMiddle(bean, field)`` whole kinds, then ``Pass()`` ends the turn. Default: claim
        every task it can; plant kinds onto their own field or into an empty one; before the Castle, cash in
        fields worth gold; then pass."""
        if ClaimTask() in request.options:
            return ClaimTask()
        mine = request.view.fields[request.me]
        plants = request.options_of(PlantMiddle)
        for wanted in ("same", "empty"):
            for action in plants:
                current = mine[action.field].bean
                if (current is action.bean) if wanted == "same" else current is None:
                    return action
        view = request.view
        if isinstance(view, PrincesView):
            if view.next_task == "castle":
                for harvest in request.options_of(Harvest):
                    field = mine[harvest.field]
                    if field_coins(self.rules, field.bean, field.count) > 0:
                        return harvest
            elif PayTribute() in request.options and self.rules.spare_tribute(view.coins):
                return PayTribute()  # gold beyond what the Castle needs buys progress
        return Pass()

    @property
    def princes(self) -> PrincesRules | None:
        """The Princes rules' own constants (tribute price, Castle gold, the vine's tasks) when this game is
        played by them (duel, solo), else None: how a bot with a strategy per game picks one."""
        return None if self._rules is None else self._rules.princes


# ------------------------------------------------------------------ helpers
def field_coins(rules: Rules, bean: Bean | None, count: int) -> int:
    """Coins a field of ``count`` beans of ``bean`` is worth now."""
    return 0 if bean is None or count == 0 else rules.coins_for(bean, count)


def plant_loss(rules: Rules, view: View | PrincesView, field: int, bean: Bean) -> float:
    """How bad planting ``bean`` into own ``field`` is: negative grows a field, 0 starts an empty one,
    positive destroys beans (the field's cards that would not become coins)."""
    current = view.fields[view.seat][field]
    if current.bean is bean:
        return -1.0 - current.count
    if current.bean is None:
        return 0.0
    return 1.0 + current.count - field_coins(rules, current.bean, current.count)


def best_plant(rules: Rules, request: Request) -> Action:
    """The plant option that loses least (see ``plant_loss``); for ``plant_traded``, over all cards."""
    view = request.view
    plants = request.options_of(Plant, PlantTraded)
    if not plants:
        return request.options[0]

    def loss(action: Plant | PlantTraded) -> float:
        if isinstance(action, Plant):
            return plant_loss(rules, view, action.field, view.hand[0])
        assert isinstance(view, View)  # only the classic game has trading areas
        return plant_loss(rules, view, action.field, view.trade_areas[view.seat][action.card].bean)

    return min(plants, key=loss)
