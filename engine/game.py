"""What every variant's referee state machine shares: the decision cache, action dispatch, the record."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Generic, Self, Sequence, TypeVar

from engine.actions import Action, BuyField, Decision, DecisionKind, Harvest, new_decision
from engine.cards import Bean
from engine.errors import GameOverError, IllegalAction
from engine.events import Drew, Event, FieldBought, GameEnded, Harvested, Planted, Reshuffled
from engine.results import GameResult, rank_by_coins
from engine.rules import Rules
from engine.interning import DREW, HARVESTED, PLANTED, field_table, shuffle

if TYPE_CHECKING:  # through the package: these modules import this one (tests/test_imports.py, no circles)
    from engine import ClassicGame, PrincesGame, PublicState
    from engine.observer import ClassicObserver, PrincesObserver
    from engine.views import PrincesView, View
    Observer = ClassicObserver | PrincesObserver


@dataclass(slots=True)
class TableSeat:
    """What every seat has: a hand (front card first), fields and a treasury of coin cards."""

    hand: list[Bean] = field(default_factory=list)
    field_beans: list[Bean | None] = field(default_factory=list)
    field_counts: list[int] = field(default_factory=list)
    treasury: list[Bean] = field(default_factory=list)

    @property
    def coins(self) -> int:
        return len(self.treasury)


SeatT_co = TypeVar("SeatT_co", bound=TableSeat, covariant=True)


def _phase_name(phase: DecisionKind | None) -> str:
    """How an error message names ``phase`` (a game without one is over)."""
    return phase.value if phase else "game over"


class Game(Generic[SeatT_co]):
    """Base of ``ClassicGame`` and ``PrincesGame``: the bean table both share (seats with fields and
    treasuries, a deck that reshuffles, planting, cashing in, buying a field) and the decision cache,
    action dispatch and record. Subclasses set ``HANDLERS`` (action type -> method), the rule ids
    below (each game's rules number the same rules their own way), and implement ``_options``.
    ``SeatT_co`` is the game's kind of seat; code that takes any game takes a ``Game[TableSeat]``."""

    HANDLERS: ClassVar[dict[type, Callable[[Any, int, Any], None]]] = {}
    UNKNOWN_ACTION_RULE: ClassVar[str] = "?"
    RULE_NO_FIELD: ClassVar[str] = "?"  # planting into a field the seat does not have
    RULE_LONE_BEAN: ClassVar[str] = "?"  # cashing in a lone bean while another field holds more
    RULE_HARVEST: ClassVar[str] = "?"  # harvesting a field that is not there or empty
    RULE_BUY_FIELD: ClassVar[str] = "?"  # buying a field beyond the last, or without the money
    MONEY: ClassVar[str] = "coins"  # what the rules call a treasury's cards
    OBSERVER: ClassVar[type[ClassicObserver] | type[PrincesObserver]]  # made with the number of seats

    over: bool
    result: GameResult | None
    to_move: int
    phase: DecisionKind | None  # None only before the first turn and once the game is over
    events: list[Event]
    history: list[tuple[int, Action]]
    seats: list[SeatT_co]
    players: int
    seed: int
    turn: int
    active: int
    rules: Rules
    deck: list[Bean]
    discard: list[Bean]
    reshuffles: int
    _rng: random.Random
    _decision: Decision | None
    final_hands: tuple[tuple[Bean, ...], ...] | None  # every hand as the game ended, before it was discarded
    _observer: Observer | None = None  # made on first use (``observer``); a clone makes its own

    def __init__(self, rules: Rules, players: int, seed: int) -> None:  # each game deals its own way
        raise NotImplementedError

    @classmethod
    def plays(cls, rules: Rules) -> bool:
        """Whether this kind of game plays ``rules`` (``new_game`` asks each kind)."""
        raise NotImplementedError

    def _open_table(self, rules: Rules, players: int, seed: int, seat_type: Callable[[], SeatT_co],
                    deck: Sequence[Bean] | None = None) -> None:
        """The start every game shares: check the table size, shuffle the deck from ``seed`` (the
        first use of the game's random stream), empty seats and an empty record. ``deck``, the rules' cards in
        draw order, replaces the shuffled deck (a chance player's deal, training/spiel*.py)."""
        if not rules.min_players <= players <= rules.max_players:
            raise ValueError(f"{rules.id} is for {rules.min_players}-{rules.max_players} players, not {players!r}")
        self.rules, self.players, self.seed = rules, players, seed
        self._rng = random.Random(seed)
        self.seats = [seat_type() for _ in range(players)]
        given, deck = deck, list(rules._deck)
        shuffle(self._rng, deck)
        if given is not None and sorted(b.value for b in given) != sorted(b.value for b in deck):
            raise ValueError(f"a deck of {len(given)} cards that is not the {rules.id} deck of {len(deck)}")
        self.deck = deck if given is None else list(reversed(given))  # the top of the deck is the end of the list
        self.discard = []  # the top of the pile is the end of the list
        self.reshuffles = self.turn = self.active = self.to_move = 0
        self.events, self.history = [], []
        self.over, self.result = False, None
        self.phase = None
        self._decision = None
        self._observer = None
        self.final_hands = None

    def _deal_hands(self) -> None:
        """Every seat gets its starting fields, then ``hand_size`` cards dealt one at a time around the table."""
        for seat in self.seats:
            seat.field_beans = [None] * self.rules.start_fields
            seat.field_counts = [0] * self.rules.start_fields
        for _ in range(self.rules.hand_size):
            for seat in self.seats:
                seat.hand.append(self.deck.pop())

    def _draw_and_pass_turn(self) -> bool:
        """The active player draws the rules' number of cards one at a time to the back of the hand,
        then the next player's turn starts. False (and no next turn) when the deck ran out."""
        n = self.rules.draw
        drawn = self._take_cards(n)
        self.seats[self.active].hand.extend(drawn)
        if len(drawn) < n:
            if drawn:
                self.events.append(Drew(self.active, len(drawn)))
            return False
        self.events.append(DREW[self.active][n] if self.active < 8 and n < 8 else Drew(self.active, n))
        self.active = (self.active + 1) % self.players
        self.turn += 1
        self._start_turn()
        return True

    def _start_turn(self) -> None:
        raise NotImplementedError

    def _keep_final_hands(self) -> None:
        """Remember every hand as the game ends: public from then on (a spectator sees them revealed)."""
        self.final_hands = tuple(tuple(s.hand) for s in self.seats)

    def _end_game(self, ranks: tuple[int, ...] | None = None) -> None:
        """Record the result: every seat's coins and ``ranks`` (by default ranked by coins)."""
        coins = self.coins()
        ranks = rank_by_coins(coins) if ranks is None else ranks
        self.result = GameResult(coins, ranks)
        self.events.append(GameEnded(coins, ranks))
        self.over = True
        self.phase = None
        self._decision = None

    def _cashable(self, s: TableSeat) -> tuple[bool, ...]:
        """Per field: may it be cashed in now (a lone bean not while another field holds more)."""
        return field_table(s.field_counts, False)[0]

    def _can_buy(self, s: TableSeat) -> bool:
        """Whether ``s`` may buy its next field now."""
        rules = self.rules
        return len(s.field_beans) < rules.max_fields and len(s.treasury) >= rules.field_price

    def _add_field_options(self, options: list[Action], s: TableSeat, cashable: Sequence[bool]) -> None:
        """The options every decision has, appended to ``options``: buy the next field, cash in a field."""
        options.extend(field_table(s.field_counts, self._can_buy(s))[1])

    @classmethod
    def from_position(cls, rules: Rules, players: int, seed: int = 0, **position: Any) -> Self:
        """A game of ``rules`` in a hand-built position (the fields of ``set_position``): for tests,
        and for a bot's author who wants to see what the bot does in one situation."""
        return cls(rules, players, seed).set_position(**position)

    def set_position(self, *args: Any, **position: Any) -> Self:
        """Put this game into a hand-built position (keywords only); returns it. Each game names its own
        fields: a type checker lets a game override this signature (``*args, **kwargs``) with any other."""
        raise NotImplementedError

    @property
    def decision(self) -> Decision | None:
        """Who must decide what now; ``None`` once the game is over."""
        if self.over:
            return None
        decision = self._decision
        if decision is None:
            decision = self._decision = self._decide()
        return decision

    def _decide(self) -> Decision:
        """The decision of the moment (``decision`` keeps it until the next action)."""
        phase = self.phase
        assert phase is not None  # a game in progress is always in some phase
        return new_decision(self.to_move, phase, tuple(self._options()))

    def legal_actions(self) -> tuple[Action, ...]:
        decision = self.decision
        return decision.options if decision else ()

    def view(self, seat: int) -> View | PrincesView:
        raise NotImplementedError

    def observer(self) -> Observer:
        """This game's observer (engine/observer.py): the one writer of its views' and public state's JSON."""
        if self._observer is None:
            self._observer = self.OBSERVER(self.players)
        return self._observer

    def view_json(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see now, as JSON (docs/protocol.md "The view"); ``view`` reads it back."""
        return self.observer().view_json(self, seat)

    def view_text(self, seat: int) -> str:
        """``view_json(seat)`` as compact JSON text, as the referee sends it."""
        return self.observer().view_text(self, seat)

    def public_state_json(self) -> dict[str, Any]:
        """What a spectator sees now, as JSON (engine/spectator.py ``PublicState``)."""
        return self.observer().public_state_json(self)

    def public_state(self) -> PublicState:
        """What a spectator sees now (engine/spectator.py ``PublicState``): ``public_state_json`` read back."""
        raise NotImplementedError  # each kind imports the spectator itself: engine.spectator imports this module

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
            raise IllegalAction(self.UNKNOWN_ACTION_RULE, action, f"not an action of {self.rules.id}")
        handler(self, seat, action)
        self.history.append((seat, action))
        self._decision = None
        return self.events[start:]

    # ----------------------------------------------------------------- the bean table
    def _set_table(self, hands: Sequence[Sequence[Bean]] | None,
                   fields: Sequence[Sequence[tuple[Bean, int] | None]] | None,
                   treasury: Sequence[int | Sequence[Bean]] | None, deck: Sequence[Bean], discard: Sequence[Bean],
                   active: int, reshuffles: int, turn: int) -> None:
        """What a hand-built position sets in every game (``set_position``): hands, fields and
        treasuries (a number of coins is that many blue cards), the deck in draw order, the discard
        pile bottom to top, whose turn it is; the record starts empty."""
        n = len(self.seats)
        hands = hands if hands is not None else [[] for _ in range(n)]
        fields = fields if fields is not None else [[None, None] for _ in range(n)]
        treasury = treasury if treasury is not None else [0] * n
        for seat, s in enumerate(self.seats):
            s.hand = list(hands[seat])
            s.field_beans = [f[0] if f else None for f in fields[seat]]
            s.field_counts = [f[1] if f else 0 for f in fields[seat]]
            coins = treasury[seat]
            s.treasury = [Bean.BLUE] * coins if isinstance(coins, int) else list(coins)
        self.deck = list(reversed(deck))
        self.discard = list(discard)
        self.reshuffles, self.turn, self.active, self.to_move = reshuffles, turn, active, active
        self.over, self.result = False, None
        self.events, self.history = [], []
        self._decision = None
        self.final_hands = None

    def _do_harvest(self, seat: int, action: Harvest) -> None:
        s = self.seats[seat]
        if not 0 <= action.field < len(s.field_beans) or s.field_counts[action.field] == 0:
            raise IllegalAction(self.RULE_HARVEST, action, f"seat {seat} has no planted field {action.field!r}")
        if not self._may_cash_in(s, action.field):
            raise IllegalAction(self.RULE_LONE_BEAN, action,
                                "a field of one bean may not be cashed in while another field holds more")
        self._cash_in(seat, action.field)

    def _do_buy_field(self, seat: int, action: BuyField) -> None:
        s = self.seats[seat]
        price = self.rules.field_price
        if len(s.field_beans) >= self.rules.max_fields:
            raise IllegalAction(self.RULE_BUY_FIELD, action, f"seat {seat} already has {len(s.field_beans)} fields")
        if s.coins < price:
            raise IllegalAction(self.RULE_BUY_FIELD, action,
                                f"seat {seat} has {s.coins} {self.MONEY}, a field costs {price}")
        paid = tuple(s.treasury[-price:])
        del s.treasury[-price:]
        self._paid_pile().extend(paid)
        s.field_beans.append(None)
        s.field_counts.append(0)
        self.events.append(FieldBought(seat, paid))

    def _paid_pile(self) -> list[Bean]:
        """Where the cards paid for a field go."""
        return self.discard

    @staticmethod
    def _may_cash_in(s: TableSeat, index: int) -> bool:
        """A lone bean may not be cashed in while another field holds more than one."""
        counts = s.field_counts
        return counts[index] != 1 or max(counts) <= 1

    def _plant_beans(self, seat: int, bean: Bean, count: int, index: int, action: Action, source: str) -> str:
        """Plant ``count`` beans into field ``index`` of ``seat``, cashing in another kind first; returns
        how: ``grew`` (onto beans of its kind), ``new`` (an empty field) or ``replaced``."""
        s = self.seats[seat]
        beans = s.field_beans
        if not isinstance(index, int) or not 0 <= index < len(beans):
            raise IllegalAction(self.RULE_NO_FIELD, action, f"seat {seat} has no field {index!r}")
        current = beans[index]
        if current is bean:
            how = "grew"
        elif current is None:
            how = "new"
        else:
            if s.field_counts[index] == 1 and max(s.field_counts) > 1:  # ``_may_cash_in``, inlined
                raise IllegalAction(self.RULE_LONE_BEAN, action,
                                    "planting there would cash in a lone bean while another field holds more")
            self._cash_in(seat, index)
            how = "replaced"
        beans[index] = bean
        s.field_counts[index] += count
        key = (bean.wire, seat, index, source)  # a bean's name: hashing the member is a Python call
        planted = PLANTED.get(key)
        if planted is None:
            planted = Planted(seat, bean, index, source)
            if len(PLANTED) < 10_000:
                PLANTED[key] = planted
        if count == 1:
            self.events.append(planted)
        else:
            self.events.extend([planted] * count)
        return how

    def _reshuffle(self) -> bool:
        """The discard pile becomes the new deck, unless the rules' reshuffles are used up."""
        if self.reshuffles >= self.rules.reshuffles:
            return False
        self.deck, self.discard = self.discard, []
        shuffle(self._rng, self.deck)
        self.reshuffles += 1
        self.events.append(Reshuffled(len(self.deck), self.reshuffles))
        return True

    def _take_card(self) -> Bean | None:
        """The top card of the deck, reshuffling as needed; ``None`` when the deck is exhausted."""
        while not self.deck:
            if not self._reshuffle():
                return None
        return self.deck.pop()

    def _take_cards(self, n: int) -> list[Bean]:
        """Up to ``n`` cards, one ``_take_card`` after another (fewer when the deck is exhausted)."""
        deck = self.deck
        rest = len(deck) - n
        if rest >= 0:  # the common case, no reshuffle on the way: the top n cards, top first
            taken = deck[:rest - 1:-1] if rest else deck[::-1]
            del deck[rest:]
            return taken
        taken = []
        for _ in range(n):
            card = self._take_card()
            if card is None:
                break
            taken.append(card)
        return taken

    def _cash_in(self, seat: int, index: int) -> int:
        """Cash in a field by its beanometer: coin cards to the treasury, the rest onto the discard
        pile (C-4.1); returns the coins earned."""
        s = self.seats[seat]
        bean = s.field_beans[index]
        count = s.field_counts[index]
        assert bean is not None
        table = self.rules._coins.get(bean.wire, ())  # ``coins_for``'s table, read here: every step cashes in
        coins = table[count] if count < len(table) else self.rules.coins_for(bean, count)
        if coins:
            s.treasury.extend([bean] * coins)
        self.discard.extend([bean] * (count - coins))
        s.field_beans[index] = None
        s.field_counts[index] = 0
        key = (bean.wire, seat, index, count, coins)
        harvested = HARVESTED.get(key)
        if harvested is None:
            harvested = Harvested(seat, index, bean, count, coins)
            if len(HARVESTED) < 10_000:
                HARVESTED[key] = harvested
        self.events.append(harvested)
        return coins

    def _options(self) -> list[Action]:
        raise NotImplementedError


def new_game(rules: Rules, players: int, seed: int) -> ClassicGame | PrincesGame:
    """A new game of ``rules`` for ``players`` seats, dealt from ``seed``, by the kind of game that plays them."""
    from engine import ClassicGame, PrincesGame  # the kinds subclass ``Game``: the package loads them when asked

    for kind in (ClassicGame, PrincesGame):
        if kind.plays(rules):
            return kind(rules, players, seed)
    raise ValueError(f"no game of the engine plays the rules {rules.id!r}")
