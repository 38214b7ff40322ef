"""The referee state machine of the base game (seed 002), rules ``classic-v3`` (and the retired ``classic-v2``
and ``classic-v1``).

The state is mutable and private to the referee; what a seat may see is computed by
``view(seat)``. Rule ids (``C-…``) refer to ``seeds/classic-rules.md``.
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from engine.actions import (
    Accept, Action, BuyField, Confirm, Decision, DecisionKind, EndTrading, Harvest, Offer, Pass,
    Plant, PlantTraded, new_decision,
)
from engine.cards import Bean, find_cards, same_cards
from engine.errors import IllegalAction
from engine.game import Game, TableSeat, _phase_name
from engine.hidden import Hidden, check_classic
from engine.interning import FIELD_TABLE, PLANT_TRADED_GRID, TRADE_DECISIONS, PLANTS, field_table, seat_queue, passed
from engine.interning import turn_started
from engine.events import Accepted, Offered, Traded, TradingEnded, TurnedUp
from engine.rules import Rules
from engine.observer import ClassicObserver
from engine.views import View

if TYPE_CHECKING:
    from engine.spectator import PublicState

_PASS = Pass()
_END_TRADING = EndTrading()
_BUY_FIELD = BuyField()
# The kinds as module constants: reading an enum member off its class costs a metaclass lookup each time.
_PLANT_FIRST, _PLANT_SECOND = DecisionKind.PLANT_FIRST, DecisionKind.PLANT_SECOND
_PLANT_TRADED, _TRADE_OFFER = DecisionKind.PLANT_TRADED, DecisionKind.TRADE_OFFER
_TRADE_RESPOND, _TRADE_CONFIRM = DecisionKind.TRADE_RESPOND, DecisionKind.TRADE_CONFIRM


@dataclass(slots=True)
class SeatState(TableSeat):
    """One player's cards. ``trade_locked[i]`` is true for a card received in a trade (C-6.3)."""

    trade: list[Bean] = field(default_factory=list)
    trade_locked: list[bool] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Response:
    """One answer to a trading round: an acceptance of the active offer, or a counter-offer."""

    seat: int
    accept: bool
    give_hand: tuple[int, ...]
    give: tuple[Bean, ...]
    want: tuple[Bean, ...]


@dataclass(frozen=True, slots=True)
class OpenOffer:
    """The active player's offer of the current round."""

    to: int | None
    give_hand: tuple[int, ...]
    give_trade: tuple[int, ...]
    give: tuple[Bean, ...]
    want: tuple[Bean, ...]


class ClassicGame(Game[SeatState]):
    """A game of the base game in progress. Drive it with ``decision`` and ``apply``."""

    @classmethod
    def plays(cls, rules: Rules) -> bool:
        """Rules without the Princes constants: classic, or a format built on its rules."""
        return rules.princes is None

    RULE_NO_FIELD, RULE_LONE_BEAN, RULE_HARVEST, RULE_BUY_FIELD = "C-3.1", "C-4.2", "C-4.3", "C-3.2"
    UNKNOWN_ACTION_RULE = "C-0"
    OBSERVER = ClassicObserver

    def __init__(self, rules: Rules, players: int, seed: int, deck: Sequence[Bean] | None = None) -> None:
        """A new game dealt from ``seed``, or from ``deck`` in draw order (``Game._open_table``)."""
        self._open_table(rules, players, seed, SeatState, deck)  # C-2.2
        self.trade_round = 0
        self.offer: OpenOffer | None = None
        self.responses: list[Response] = []
        self._respond_queue: list[int] = []
        self._round_quiet = True
        self._dealless = 0  # rounds in a row that closed no deal (C-6.7, classic-v3)
        self._round_dealt = False
        self._plant_queue: list[int] = []
        self._deal_hands()  # C-2.1, C-2.3
        self._start_turn()

    @classmethod
    def from_view(cls, rules: Rules, view: View, hidden: Hidden, kind: DecisionKind, seed: int = 0) -> ClassicGame:
        """The game whose state is ``view`` completed by ``hidden``, waiting for decision ``kind``: one seat's
        information state resampled, as OpenSpiel's ``ResampleFromInfostate`` (engine/hidden.py).

        ``game.view(view.seat) == view`` and ``game.card_count() == rules.deck_size``; its events and history start
        empty; future reshuffles use ``random.Random(seed)``. Raises ``ValueError`` for a guess that does not
        fit the view or a ``kind`` outside ``CLASSIC_KINDS``.
        """
        check_classic(rules, view, hidden, kind)
        # Every attribute ``__init__`` sets is set here (a test compares the two), without paying for its
        # shuffle and deal: search bots build thousands of these per decision.
        game = cls.__new__(cls)
        game.rules = rules
        game.players = n = view.players
        game.seed = seed
        game._rng = random.Random(seed)
        game.seats = [SeatState(hand=list(hidden.hands[seat]),
                                field_beans=[f.bean for f in view.fields[seat]],
                                field_counts=[f.count for f in view.fields[seat]],
                                treasury=list(hidden.treasuries[seat]),
                                trade=[c.bean for c in view.trade_areas[seat]],
                                trade_locked=[c.locked for c in view.trade_areas[seat]])
                      for seat in range(n)]
        game.deck = list(hidden.deck)
        game.discard = list(hidden.discard)
        game.reshuffles, game.turn, game.active = view.reshuffles, view.turn, view.active
        game.events, game.history = [], []
        game.over, game.result, game.final_hands = False, None, None  # a game being decided has not ended
        game.offer, game.responses, game._respond_queue = None, [], []
        game._round_quiet, game._round_dealt = True, False
        game._dealless = 0  # not in the view: a guess assumes the round may still run its full course
        game._plant_queue = []
        game._decision = None
        game._observer = None
        game.trade_round = view.trade.round if view.trade is not None else 0
        game.phase = kind
        game.to_move = view.active
        if kind is _PLANT_TRADED:  # the first seat around the table from the active one with traded cards
            order = [(view.active + k) % n for k in range(n)]
            first = next(k for k, seat in enumerate(order) if view.trade_areas[seat])
            game.to_move = order[first]
            game._plant_queue = [order[k] for k in range(n - 1, first, -1)]
        return game

    def clone(self, shuffle: random.Random | None = None) -> ClassicGame:
        """An independent copy for look-ahead; its events and history start empty. With ``shuffle`` the
        copy's deck is reshuffled, so that looking ahead through it reveals nothing."""
        g = copy.copy(self)
        g._observer = None
        g.seats = [SeatState(list(s.hand), list(s.field_beans), list(s.field_counts), list(s.treasury), list(s.trade),
                             list(s.trade_locked)) for s in self.seats]
        g.deck, g.discard = list(self.deck), list(self.discard)
        g.responses, g._respond_queue, g._plant_queue = list(self.responses), list(self._respond_queue), \
            list(self._plant_queue)
        g.events, g.history = [], []
        g._rng = random.Random()
        g._rng.setstate(self._rng.getstate())
        if shuffle is not None:
            shuffle.shuffle(g.deck)
        return g

    # ----------------------------------------------------------------- queries
    def view(self, seat: int) -> View:
        """What ``seat`` may see now (C-8)."""
        return View.from_json(self.view_json(seat))

    def public_state(self) -> PublicState:
        """What a spectator sees now: the public table, no hand until the game is over."""
        from engine.spectator import PublicState  # not imported to play: a spectator's modules

        return PublicState.from_json(self.public_state_json())

    def card_count(self) -> int:
        """Every card in the game, wherever it lies (a conservation check)."""
        total = len(self.deck) + len(self.discard)
        for s in self.seats:
            total += len(s.hand) + len(s.treasury) + len(s.trade) + sum(s.field_counts)
        return total

    def set_position(
        self,
        *,
        hands: Sequence[Sequence[Bean]] | None = None,
        fields: Sequence[Sequence[tuple[Bean, int] | None]] | None = None,
        deck: Sequence[Bean] = (),
        discard: Sequence[Bean] = (),
        treasury: Sequence[int | Sequence[Bean]] | None = None,
        trade: Sequence[Sequence[Bean]] | None = None,
        locked: Sequence[Sequence[bool]] | None = None,
        active: int = 0,
        phase: DecisionKind = DecisionKind.PLANT_FIRST,
        reshuffles: int = 0,
        turn: int = 0,
    ) -> ClassicGame:
        """Put this game into a hand-built position (tests, and bots' authors exploring a situation); returns it.

        ``deck`` is given in draw order (its first card is taken first); ``discard`` bottom to top.
        ``fields[seat]`` lists ``(bean, count)`` or ``None`` per field. ``treasury[seat]`` is a number of
        coins (blue cards) or a list of coin cards, oldest first. ``phase`` is where the game stands:
        PLANT_FIRST / PLANT_SECOND (active to move), TRADE_OFFER (round 0 opens), PLANT_TRADED
        (trading has just ended; planting starts with the active seat).
        """
        self._set_table(hands, fields, treasury, deck, discard, active, reshuffles, turn)
        trade = trade if trade is not None else [[] for _ in range(self.players)]
        for seat, s in enumerate(self.seats):
            s.trade = list(trade[seat])
            s.trade_locked = list(locked[seat]) if locked is not None else [False] * len(s.trade)
        self.trade_round = 0
        self.offer = None
        self.responses = []
        self._respond_queue = []
        self._plant_queue = []
        self._round_quiet = True
        self._dealless = 0
        if phase in (_PLANT_FIRST, _PLANT_SECOND):
            self.phase = phase
        elif phase is _TRADE_OFFER:
            self._start_round()
        elif phase is _PLANT_TRADED:
            self._end_trading()  # events: TradingEnded, then whatever planting/drawing followed
        else:
            raise ValueError(f"set_position cannot start at {phase}")
        self._decision = None
        return self

    # ----------------------------------------------------------------- actions
    def _do_plant(self, seat: int, action: Plant) -> None:
        phase = self.phase
        if phase is not _PLANT_FIRST and phase is not _PLANT_SECOND:
            raise IllegalAction("C-5.1", action, f"no hand card is to be planted now ({_phase_name(phase)})")
        hand = self.seats[seat].hand
        self._plant_beans(seat, hand[0], 1, action.field, action, "hand")  # C-3.1, C-3.3
        del hand[0]
        if phase is _PLANT_FIRST and hand:
            self.phase = _PLANT_SECOND
        else:
            self._turn_up()

    def _do_pass(self, seat: int, action: Pass) -> None:
        phase = self.phase
        if phase is _TRADE_RESPOND:
            self.events.append(passed(seat, "trade_respond"))
            self._next_responder()
        elif phase is _PLANT_SECOND:
            self.events.append(passed(seat, "plant_second"))
            self._turn_up()
        elif phase is _TRADE_OFFER:
            self.offer = None
            self.events.append(passed(seat, "trade_offer"))
            self._open_responses()
        elif phase is _TRADE_CONFIRM:
            self.events.append(passed(seat, "trade_confirm"))
            self._next_round()
        else:
            rule = "C-5.1" if phase is _PLANT_FIRST else "C-5.5"
            raise IllegalAction(rule, action, f"planting is mandatory now ({_phase_name(phase)})")

    def _do_end_trading(self, seat: int, action: EndTrading) -> None:
        if self.phase is not _TRADE_OFFER:
            raise IllegalAction("C-6.7", action, "only the active player ends trading, when it is their turn to offer")
        self._end_trading()

    def _do_offer(self, seat: int, action: Offer) -> None:
        phase = self.phase
        s = self.seats[seat]
        active = seat == self.active
        if phase is _TRADE_OFFER:
            to = action.to
            if to is not None and (not 0 <= to < self.players or to == seat):
                raise IllegalAction("C-6.1", action, f"no other seat {to!r} to trade with")
        elif phase is _TRADE_RESPOND:
            to = self.active if action.to is None else action.to
            if to != self.active:
                raise IllegalAction("C-6.1", action, f"trades are only with the active player (seat {self.active})")
        else:
            raise IllegalAction("C-6.8", action, f"no offer can be made now ({_phase_name(phase)})")
        if action.give_trade and not active:
            raise IllegalAction("C-6.2", action, "only the active player trades from the trading area")
        self._check_positions(action, action.give_hand, len(s.hand), "hand")
        self._check_positions(action, action.give_trade, len(s.trade), "trading area")
        for i in action.give_trade:
            if s.trade_locked[i]:
                raise IllegalAction("C-6.3", action, f"card {i} of the trading area was received in a trade")
        for bean in action.want:
            if not isinstance(bean, Bean) or bean.wire not in self.rules._coins:  # by name: a Bean hashes slowly
                raise IllegalAction("C-1.1", action, f"{bean!r} is not a bean of this game")
        if not action.give_hand and not action.give_trade and not action.want:
            raise IllegalAction("C-6.8", action, "an offer must give or want at least one card")
        forced_gift = not action.want and not self.rules.gifts_by_consent  # classic-v1's C-6.5
        if forced_gift and to is None:
            raise IllegalAction("C-6.5", action, "a gift needs a named receiver")
        if self.rules.bounded_offers:
            payable = self.payable(seat, to)
            if len(action.want) > payable:
                raise IllegalAction("C-6.9", action, f"it wants {len(action.want)} cards; "
                                                     f"no partner could pay more than {payable} now")
        give = (*map(s.hand.__getitem__, action.give_hand), *map(s.trade.__getitem__, action.give_trade))
        self._round_quiet = False
        if forced_gift:
            assert to is not None  # a gift without a receiver was refused above (C-6.5)
            self.events.append(Offered(seat, to, give, (), self.trade_round))
            self._deal(seat, action.give_hand, action.give_trade, to, ())
        else:  # an offer, a gift included (C-6.5): nothing moves until both sides agree (C-6.6)
            self.events.append(Offered(seat, to, give, action.want, self.trade_round))
            if active:
                self.offer = OpenOffer(action.to, action.give_hand, action.give_trade, give, action.want)
            else:
                self.responses.append(Response(seat, False, action.give_hand, give, action.want))
        if active:
            if forced_gift:
                self.offer = None
            self._open_responses()
        else:
            self._next_responder()

    def _do_accept(self, seat: int, action: Accept) -> None:
        if self.phase is not _TRADE_RESPOND:
            raise IllegalAction("C-6.6", action, "there is no offer to accept now")
        offer = self.offer
        if offer is None or (offer.to is not None and offer.to != seat):
            raise IllegalAction("C-6.6", action, f"no offer of this round is open to seat {seat}")
        s = self.seats[seat]
        self._check_positions(action, action.give_hand, len(s.hand), "hand")
        paid = tuple(map(s.hand.__getitem__, action.give_hand))
        if not same_cards(paid, offer.want):
            raise IllegalAction("C-6.6", action,
                                f"the offer wants {_names(offer.want)}, these cards are {_names(paid)}")
        self._round_quiet = False
        self.responses.append(Response(seat, True, action.give_hand, paid, offer.give))
        self.events.append(Accepted(seat, self.trade_round))
        self._next_responder()

    def _do_confirm(self, seat: int, action: Confirm) -> None:
        if self.phase is not _TRADE_CONFIRM:
            raise IllegalAction("C-6.6", action, "there is no deal to confirm now")
        if not 0 <= action.response < len(self.responses):
            raise IllegalAction("C-6.6", action, f"no response number {action.response!r} this round")
        response = self.responses[action.response]
        if response.accept:
            if action.give_hand or action.give_trade:
                raise IllegalAction("C-6.6", action, "an accepted offer is paid with the cards offered")
            offer = self.offer
            assert offer is not None
            self._deal(seat, offer.give_hand, offer.give_trade, response.seat, response.give_hand)
        else:
            s = self.seats[seat]
            self._check_positions(action, action.give_hand, len(s.hand), "hand")
            self._check_positions(action, action.give_trade, len(s.trade), "trading area")
            for i in action.give_trade:
                if s.trade_locked[i]:
                    raise IllegalAction("C-6.3", action, f"card {i} of the trading area was received in a trade")
            paid = (*map(s.hand.__getitem__, action.give_hand), *map(s.trade.__getitem__, action.give_trade))
            if not same_cards(paid, response.want):
                raise IllegalAction("C-6.6", action,
                                    f"seat {response.seat} wants {_names(response.want)}, "
                                    f"these cards are {_names(paid)}")
            self._deal(seat, action.give_hand, action.give_trade, response.seat, response.give_hand)
        self._next_round()

    def _do_plant_traded(self, seat: int, action: PlantTraded) -> None:
        if self.phase is not _PLANT_TRADED:
            raise IllegalAction("C-5.5", action, "trading-area cards are planted only after trading")
        s = self.seats[seat]
        if not 0 <= action.card < len(s.trade):
            raise IllegalAction("C-5.5", action, f"no card {action.card!r} in the trading area of seat {seat}")
        card = action.card
        trade = s.trade
        self._plant_beans(seat, trade[card], 1, action.field, action, "trade")  # C-3.1, C-3.3
        del trade[card]
        del s.trade_locked[card]
        if not trade:
            self._next_planter()

    # ----------------------------------------------------------------- mechanics
    def payable(self, seat: int, to: int | None) -> int:
        """C-6.9: the most cards an offer of ``seat`` to ``to`` (None: everybody) could be paid with now."""
        if seat != self.active:  # a counter-offer is paid by the active player: hand and untraded turn-ups
            s = self.seats[self.active]
            return len(s.hand) + s.trade_locked.count(False)
        partners = [to] if to is not None else [k for k in range(self.players) if k != seat]
        return max(len(self.seats[k].hand) for k in partners)

    def _check_positions(self, action: Action, positions: Sequence[int], size: int, where: str) -> None:
        if not positions:
            return
        if len(set(positions)) != len(positions):
            raise IllegalAction("C-6.2", action, f"a {where} position is named twice")
        for i in positions:
            if not 0 <= i < size:
                raise IllegalAction("C-6.2", action, f"no card at {where} position {i!r} (it holds {size})")

    def _deal(self, a: int, a_hand: Sequence[int], a_trade: Sequence[int], b: int, b_hand: Sequence[int]) -> None:
        """Move cards between seats ``a`` and ``b``; received cards land locked in the trading area (C-6.3)."""
        sa, sb = self.seats[a], self.seats[b]
        a_gave = [*map(sa.hand.__getitem__, a_hand), *map(sa.trade.__getitem__, a_trade)]  # map: no generator frames
        b_gave = list(map(sb.hand.__getitem__, b_hand))
        for i in sorted(a_hand, reverse=True):
            del sa.hand[i]
        for i in sorted(a_trade, reverse=True):
            del sa.trade[i]
            del sa.trade_locked[i]
        for i in sorted(b_hand, reverse=True):
            del sb.hand[i]
        sb.trade.extend(a_gave)
        sb.trade_locked.extend([True] * len(a_gave))
        sa.trade.extend(b_gave)
        sa.trade_locked.extend([True] * len(b_gave))
        self._round_dealt = True
        self.events.append(Traded(a, b, tuple(a_gave), tuple(b_gave)))

    # ----------------------------------------------------------------- flow
    def _start_turn(self) -> None:
        self.events.append(turn_started(self.active, self.turn))
        self.to_move = self.active
        if self.seats[self.active].hand:
            self.phase = _PLANT_FIRST
        else:
            self._turn_up()

    def _turn_up(self) -> None:
        """C-5.3: turn up cards into the active player's trading area."""
        s = self.seats[self.active]
        turned = self._take_cards(self.rules.turn_up)
        s.trade.extend(turned)
        s.trade_locked.extend([False] * len(turned))
        if len(turned) < self.rules.turn_up:
            if turned:
                self.events.append(TurnedUp(self.active, tuple(turned)))
            self._finish()
            return
        self.events.append(TurnedUp(self.active, tuple(turned)))
        self.trade_round = 0
        self._dealless = 0
        self._start_round()

    def _start_round(self) -> None:
        self.offer = None
        self.responses = []
        self._round_quiet = True
        self._round_dealt = False
        self.phase = _TRADE_OFFER
        self.to_move = self.active

    def _open_responses(self) -> None:
        self._respond_queue = list(seat_queue(self.players, self.active)[:-1])
        self.phase = _TRADE_RESPOND
        self._next_responder()

    def _next_responder(self) -> None:
        if self._respond_queue:
            self.to_move = self._respond_queue.pop()
            return
        self.to_move = self.active
        if self.responses:
            self.phase = _TRADE_CONFIRM
        else:
            self._next_round()

    def _next_round(self) -> None:
        self.trade_round += 1
        self._dealless = 0 if self._round_dealt else self._dealless + 1
        bound = self.rules.dealless_rounds
        if (self._round_quiet or self.trade_round >= self.rules.max_trade_rounds  # C-6.7
                or (bound and self._dealless >= bound)):
            self._end_trading()
        else:
            self._start_round()

    def _end_trading(self) -> None:
        self.offer = None
        self.responses = []
        self.events.append(TradingEnded(self.active, self.trade_round))
        self._plant_queue = list(seat_queue(self.players, self.active))
        self.phase = _PLANT_TRADED
        self._next_planter()

    def _next_planter(self) -> None:
        while self._plant_queue:
            seat = self._plant_queue.pop()
            if self.seats[seat].trade:
                self.to_move = seat
                return
        self._draw_cards()

    def _draw_cards(self) -> None:
        """C-5.6, C-5.7: the active player draws, then the next turn starts (or the game ends, C-7.1)."""
        if not self._draw_and_pass_turn():
            self._finish()

    def _finish(self) -> None:
        """C-7.3: discard every card outside the fields, cash in every field, rank by coins."""
        self._keep_final_hands()
        for seat, s in enumerate(self.seats):
            self.discard.extend(s.hand)
            self.discard.extend(s.trade)
            s.hand.clear()
            s.trade.clear()
            s.trade_locked.clear()
            for index, count in enumerate(s.field_counts):
                if count:
                    self._cash_in(seat, index)
        self._end_game()  # C-7.4

    # ----------------------------------------------------------------- options
    def _decide(self) -> Decision:
        seat = self.to_move
        s = self.seats[seat]
        phase = self.phase
        beans = s.field_beans
        rules = self.rules
        can_buy = len(beans) < rules.max_fields and len(s.treasury) >= rules.field_price  # C-3.2
        if phase is _TRADE_OFFER or phase is _TRADE_RESPOND:
            offer = self.offer
            paid = None
            if phase is _TRADE_RESPOND and offer is not None and (offer.to is None or offer.to == seat):
                paid = find_cards(s.hand, offer.want)
            if paid is None:  # only pass (or end trading) and the field options: the same few decisions again and again
                key = (seat, phase is _TRADE_OFFER, can_buy, *s.field_counts)
                decision = TRADE_DECISIONS.get(key)
                if decision is None:
                    head = (_END_TRADING, _PASS) if phase is _TRADE_OFFER else (_PASS,)
                    decision = new_decision(seat, phase, (*head, *field_table(s.field_counts, can_buy)[1]))
                    if len(TRADE_DECISIONS) < 100_000:
                        TRADE_DECISIONS[key] = decision
                return decision
        table = FIELD_TABLE.get((can_buy, *s.field_counts))
        cashable, field_options = table if table is not None else field_table(s.field_counts, can_buy)  # C-4.2
        options: tuple[Action, ...]
        if phase is _PLANT_TRADED:
            plants: list[Action] = []
            for c, bean in enumerate(s.trade):
                for i, current in enumerate(beans):
                    if current is None or current is bean or cashable[i]:
                        plants.append(PLANT_TRADED_GRID[c][i] if c < 16 and i < 8 else PlantTraded(c, i))
            options = (*plants, *field_options)
        elif phase is _TRADE_RESPOND:
            assert paid is not None
            options = (_PASS, Accept(paid), *field_options)
        elif phase is _PLANT_FIRST or phase is _PLANT_SECOND:
            bean = s.hand[0]
            plants = []
            for i, current in enumerate(beans):  # a loop, not a comprehension: no function call for two or three fields
                if current is None or current is bean or cashable[i]:
                    plants.append(PLANTS[i] if i < 8 else Plant(i))
            if phase is _PLANT_SECOND:
                plants.append(_PASS)
            options = (*plants, *field_options)
        elif phase is _TRADE_CONFIRM:
            options = (*self._confirm_options(s), *field_options)
        else:  # a game in progress is always in some phase
            raise AssertionError(f"no decision in phase {phase!r}")
        return new_decision(seat, phase, options)

    def _confirm_options(self, s: SeatState) -> list[Action]:
        """TRADE_CONFIRM: pass, or close one of this round's deals that ``s`` (the active seat) can pay for."""
        options: list[Action] = [_PASS]
        tradable = [b if not locked else None for b, locked in zip(s.trade, s.trade_locked)]
        for i, response in enumerate(self.responses):
            if response.accept:
                options.append(Confirm(i))
                continue
            from_trade = find_cards(tradable, response.want, partial=True)
            rest = list(response.want)
            for j in from_trade or ():
                rest.remove(s.trade[j])
            from_hand = find_cards(s.hand, tuple(rest))
            if from_hand is not None:
                options.append(Confirm(i, from_hand, tuple(from_trade or ())))
        return options


def _names(beans: Sequence[Bean]) -> str:
    return "[" + ", ".join(b.value for b in beans) + "]" if beans else "nothing"


ClassicGame.HANDLERS = {
    Plant: ClassicGame._do_plant,
    PlantTraded: ClassicGame._do_plant_traded,
    Pass: ClassicGame._do_pass,
    BuyField: ClassicGame._do_buy_field,
    Harvest: ClassicGame._do_harvest,
    Offer: ClassicGame._do_offer,
    EndTrading: ClassicGame._do_end_trading,
    Accept: ClassicGame._do_accept,
    Confirm: ClassicGame._do_confirm,
}
