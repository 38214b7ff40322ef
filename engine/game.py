"""What every variant's referee state machine shares: the decision cache, action dispatch, the record."""
from __future__ import annotations

from typing import Any, Callable, ClassVar

from engine.actions import Action, Decision, DecisionKind
from engine.errors import GameOverError, IllegalAction
from engine.events import Event, Harvested


class Game:
    """Base of ``ClassicGame`` and ``PrincesGame``. Subclasses set ``HANDLERS`` (action type ->
    method), ``UNKNOWN_ACTION_RULE``, and implement ``_options``."""

    HANDLERS: ClassVar[dict[type, Callable[[Any, int, Any], None]]] = {}
    UNKNOWN_ACTION_RULE: ClassVar[str] = "?"

    over: bool
    to_move: int
    phase: DecisionKind | None
    events: list[Event]
    history: list[tuple[int, Action]]
    seats: list[Any]
    _decision: Decision | None

    @property
    def decision(self) -> Decision | None:
        """Who must decide what now; ``None`` once the game is over."""
        if self.over:
            return None
        if self._decision is None:
            self._decision = Decision(self.to_move, self.phase, tuple(self._options()))  # type: ignore[arg-type]
        return self._decision

    def legal_actions(self) -> tuple[Action, ...]:
        decision = self.decision
        return decision.options if decision else ()

    def events_since(self, index: int) -> list[Event]:
        return self.events[index:]

    def view(self, seat: int) -> Any:
        raise NotImplementedError

    def view_json(self, seat: int) -> dict[str, Any]:
        """The JSON of ``view(seat)``; a variant may make it faster straight from its state."""
        return self.view(seat).to_json()  # type: ignore[no-any-return]

    def coins(self) -> tuple[int, ...]:
        return tuple(s.coins for s in self.seats)

    def apply(self, action: Action) -> list[Event]:
        """Check and play ``action`` for the seat that must decide; returns the new events."""
        if self.over:
            raise GameOverError(f"the game is over; cannot play {action!r}")
        start = len(self.events)
        seat = self.to_move
        handler = self.HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(self.UNKNOWN_ACTION_RULE, action, f"not an action of {self.rules.id}")  # type: ignore[attr-defined]
        handler(self, seat, action)
        self.history.append((seat, action))
        self._decision = None
        return self.events[start:]

    def _cash_in(self, seat: int, index: int) -> int:
        """Cash in a field by its beanometer: coin cards to the treasury, the rest onto the discard
        pile (C-4.1); returns the coins earned."""
        s = self.seats[seat]
        bean = s.field_beans[index]
        count = s.field_counts[index]
        assert bean is not None
        coins = self.rules.coins_for(bean, count)  # type: ignore[attr-defined]
        s.treasury.extend([bean] * coins)
        self.discard.extend([bean] * (count - coins))  # type: ignore[attr-defined]
        s.field_beans[index] = None
        s.field_counts[index] = 0
        self.events.append(Harvested(seat, index, bean, count, coins))
        return coins

    def _options(self) -> list[Action]:
        raise NotImplementedError
