"""The referee state machine of the Princes variants (seed 000): ``duel-v1`` (2 players) and ``solo-v1``.

Same interface as ``ClassicGame``: ``decision``, ``apply``, ``view(seat)``, ``events``, ``history``,
``over``, ``result``, ``card_count()``. Only the active player ever decides (P-4.8). Rule ids
(``P-…``, ``S-…``, assumptions ``A-…``) refer to ``seeds/princes-rules.md``.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from engine.actions import (
    Action, BuyField, ClaimTask, DecisionKind, DiscardHand, DiscardMiddle, Harvest, Pass, PayTribute,
    Plant, PlantMiddle,
)
from engine.cards import Bean
from engine.errors import IllegalAction
from engine.game import Game, TableSeat, _phase_name
from engine.hidden import Hidden, check_princes
from engine.interning import turn_started
from engine.events import (
    Discarded, EndTriggered, FigureMoved, Passed, TaskClaimed, TookDiscard,
    TributePaid, TurnedUp, VineRevealed,
)
from engine.rules import Rules
from engine.vine import CASTLE, TASKS
from engine.observer import PrincesObserver
from engine.views import PrincesView, TurnRecord

if TYPE_CHECKING:
    from engine.spectator import PublicState

K = DecisionKind
_PASS = Pass()
_CLAIM = ClaimTask()
_TRIBUTE = PayTribute()
_BUY_FIELD = BuyField()
_PHASE1 = (K.PLANT_FIRST, K.PLANT_SECOND, K.DISCARD_HAND)


@dataclass(slots=True)
class PrincesSeat(TableSeat):
    """One player's cards and figure (``position`` on the vine: 0 start, k on card k, cards + 1 the Castle)."""

    position: int = 0


@dataclass(slots=True)
class TurnLog:
    """The mutable record of the active player's turn; ``TurnRecord`` is its public, frozen form."""

    phase: int = 0
    p1_plants: list[tuple[Bean, str]] = field(default_factory=list)
    p1_discards: int = 0
    p1_over: bool = False
    p2_turned: list[Bean] = field(default_factory=list)
    p2_from_discard: list[Bean] = field(default_factory=list)
    p3_planted: list[tuple[Bean, int]] = field(default_factory=list)
    harvests: list[int] = field(default_factory=list)
    started: int = 0
    claimed: int = 0
    tributes: int = 0

    def record(self) -> TurnRecord:
        return TurnRecord(self.phase, tuple(self.p1_plants), self.p1_discards, self.p1_over, tuple(self.p2_turned),
                          tuple(self.p2_from_discard), tuple(self.p3_planted), tuple(self.harvests), self.started,
                          self.claimed, self.tributes)


# ----------------------------------------------------------------- the task checks
def _planted(s: PrincesSeat, bean: Bean) -> int:
    return sum(n for b, n in zip(s.field_beans, s.field_counts) if b is bean)


def _anyone(bean: Bean, n: int) -> Callable[[PrincesGame, PrincesSeat], bool]:
    return lambda g, s: any(_planted(o, bean) >= n for o in g.seats)


def _in_fields(bean: Bean) -> Callable[[PrincesGame, PrincesSeat], bool]:
    return lambda g, s: bean in s.field_beans


def _others_ahead(g: PrincesGame, s: PrincesSeat) -> bool:
    others = [o.position for o in g.seats if o is not s] + [pos for _, pos in g.neutral_positions()]
    return bool(others) and all(p > s.position for p in others)


CHECKS: dict[str, Callable[[PrincesGame, PrincesSeat], bool]] = {
    "V01": lambda g, s: sum(how == "grew" for _, how in g.log.p1_plants) >= 2,
    "V02": _others_ahead,
    "V03": lambda g, s: len(g.log.p1_plants) == 2 and g.log.p1_plants[0][0] is g.log.p1_plants[1][0],
    "V04": _in_fields(Bean.BLUE),
    "V05": _anyone(Bean.RED, 2),
    "V06": _in_fields(Bean.CHILI),
    "V07": _in_fields(Bean.STINK),
    "V08": _in_fields(Bean.GREEN),
    "V09": _in_fields(Bean.SOY),
    "V10": _in_fields(Bean.BLACK_EYED),
    "V11": lambda g, s: g.log.p1_over and len(g.log.p1_plants) == 1,
    "V12": lambda g, s: g.log.p1_discards >= 1,
    "V13": lambda g, s: g.log.started > 0,
    "V14": lambda g, s: bool(g.log.p2_from_discard),
    "V15": lambda g, s: len(g.log.p2_turned) == 3 and len(set(g.log.p2_turned)) == 3,
    "V16": lambda g, s: len(set(g.log.p2_turned)) < len(g.log.p2_turned),
    "V17": lambda g, s: len({b for b, _ in g.log.p3_planted}) >= 2,
    "V18": lambda g, s: sum(n for _, n in g.log.p3_planted) >= 3,
    "V19": lambda g, s: any(b in s.field_beans for b in g.log.p2_turned),
    "V20": lambda g, s: bool(g.log.harvests),
    "V21": lambda g, s: s.coins >= 2,
    "V22": lambda g, s: sum(n >= 2 for n in s.field_counts) >= 2,
    "V23": lambda g, s: max(s.field_counts) >= 4,
    "V24": lambda g, s: all(n > 0 for n in s.field_counts),
    "V25": lambda g, s: sum(s.field_counts) >= 6,
    "V26": lambda g, s: len(s.hand) <= 3,
    "V27": lambda g, s: any(n >= 2 for n in Counter(s.hand).values()),
    "V28": lambda g, s: bool(g.discard) and g.discard[-1] in s.field_beans,
}
assert set(CHECKS) == set(TASKS)


class PrincesGame(Game[PrincesSeat]):
    """A duel or solo game in progress. Drive it with ``decision`` and ``apply``."""

    @classmethod
    def plays(cls, rules: Rules) -> bool:
        """Rules with the Princes constants: duel, solo, or a format built on them."""
        return rules.princes is not None

    UNKNOWN_ACTION_RULE = "P-0"
    RULE_NO_FIELD, RULE_LONE_BEAN, RULE_HARVEST, RULE_BUY_FIELD = "P-3.1", "P-3.2", "P-3.3", "P-3.4"
    MONEY = "gold"
    OBSERVER = PrincesObserver
    log: TurnLog  # what the active player did so far this turn (the task checks read it)

    def __init__(self, rules: Rules, players: int, seed: int, deck: Sequence[Bean] | None = None,
                 vine: Sequence[str] | None = None) -> None:
        """A new game dealt from ``seed``, or from ``deck`` in draw order and ``vine`` (card 1's task first)."""
        self._lay_out(rules, players, seed, deck, vine)
        self._deal_hands()  # P-2.1
        self._reveal()
        self._start_turn()

    def _lay_out(self, rules: Rules, players: int, seed: int, deck: Sequence[Bean] | None = None,
                 vine_order: Sequence[str] | None = None) -> None:
        """The table before the deal: the deck and the vine shuffled from ``seed`` (or as given), the figures at
        the start."""
        princes = rules.princes
        if princes is None:
            raise ValueError(f"{rules.id} is not a Princes variant")
        self._open_table(rules, players, seed, PrincesSeat, deck)
        self.princes = princes
        self.solo = princes.solo
        vine = list(princes.tasks)
        self._rng.shuffle(vine)  # P-1.3: the vine is dealt from the same seed, after the deck
        if vine_order is not None:
            if sorted(vine_order) != sorted(vine):
                raise ValueError(f"a vine of {list(vine_order)!r} that is not the {rules.id} vine")
            vine = list(vine_order)
        self.box: list[Bean] = []  # gold paid for tribute and fields: out of the game (P-3.5)
        self.middle: dict[Bean, int] = {}  # stacks by bean, in the order they were started
        self.vine: list[str] = vine  # vine[k-1] is the task of card k
        self.castle = len(vine) + 1
        self.violet = 0 if self.solo else -1  # S-2
        self.red = princes.red_start if self.solo else -1  # S-3
        self.revealed = 0  # cards 1..revealed are face up
        self.end_reason: str | None = None  # "castle", "neutral" or "supply" once over
        self.log = TurnLog()

    # ----------------------------------------------------------------- queries
    def view(self, seat: int) -> PrincesView:
        """What ``seat`` may see now (P-8)."""
        return PrincesView.from_json(self.view_json(seat))

    def public_state(self) -> PublicState:
        """What a spectator sees now: the public table, no hand until the game is over."""
        from engine.spectator import PublicState  # not imported to play: a spectator's modules

        return PublicState.from_json(self.public_state_json())

    def neutral_positions(self) -> tuple[tuple[str, int], ...]:
        return (("violet", self.violet), ("red", self.red)) if self.solo else ()

    def card_count(self) -> int:
        """Every bean card, wherever it lies, the box included (a conservation check)."""
        total = len(self.deck) + len(self.discard) + len(self.box) + sum(self.middle.values())
        for s in self.seats:
            total += len(s.hand) + len(s.treasury) + sum(s.field_counts)
        return total

    def can_claim(self, seat: int | None = None) -> bool:
        """Whether the task in front of ``seat``'s figure (the active one by default) is fulfilled now."""
        s = self.seats[self.active if seat is None else seat]
        target = s.position + 1
        if target == self.castle:
            return s.coins >= self.princes.castle_gold
        return target < self.castle and CHECKS[self.vine[target - 1]](self, s)

    def clone(self, shuffle: random.Random | None = None) -> PrincesGame:
        """An independent copy for look-ahead; its events and history start empty. With ``shuffle`` the
        copy's supply is reshuffled, so that looking ahead through it reveals nothing."""
        g = copy.copy(self)
        g._observer = None
        g.seats = [PrincesSeat(list(s.hand), list(s.field_beans), list(s.field_counts), list(s.treasury), s.position)
                   for s in self.seats]
        g.deck, g.discard, g.box, g.middle = list(self.deck), list(self.discard), list(self.box), dict(self.middle)
        g.events, g.history = [], []
        g.log = TurnLog(self.log.phase, list(self.log.p1_plants), self.log.p1_discards, self.log.p1_over,
                        list(self.log.p2_turned), list(self.log.p2_from_discard), list(self.log.p3_planted),
                        list(self.log.harvests), self.log.started, self.log.claimed, self.log.tributes)
        g._rng = random.Random()
        g._rng.setstate(self._rng.getstate())
        if shuffle is not None:
            shuffle.shuffle(g.deck)
        return g

    @classmethod
    def from_view(cls, rules: Rules, view: PrincesView, hidden: Hidden, seed: int) -> PrincesGame:
        """The game whose state is ``view`` completed by ``hidden`` (its hands, treasuries, supply, discard pile,
        box and vine), waiting for the viewer's decision ``view.phase``: one seat's information state resampled,
        as OpenSpiel's ``ResampleFromInfostate`` (engine/hidden.py). Its random stream is that of a game dealt
        from ``seed``; its events and history start empty. Raises ``ValueError`` for a guess of the wrong shape."""
        check_princes(rules, view, hidden)
        game = cls.__new__(cls)
        game._lay_out(rules, view.players, seed)  # its shuffles give the random stream; the deal would be replaced
        for seat, s in enumerate(game.seats):
            s.hand = list(hidden.hands[seat])
            s.field_beans = [f.bean for f in view.fields[seat]]
            s.field_counts = [f.count for f in view.fields[seat]]
            s.treasury = list(hidden.treasuries[seat])
            s.position = view.figures[seat]
        game.deck, game.discard, game.box = list(hidden.deck), list(hidden.discard), list(hidden.box)
        game.middle = dict(view.middle)
        game.vine = list(hidden.vine)
        game.castle = view.castle
        game.revealed = sum(t is not None for t in view.vine)
        neutral = dict(view.neutral)
        game.violet, game.red = neutral.get("violet", game.violet), neutral.get("red", game.red)
        game.reshuffles, game.turn, game.active, game.to_move = view.reshuffles, view.turn, view.active, view.seat
        assert view.phase is not None  # checked above
        game.phase = DecisionKind(view.phase)
        t = view.this_turn
        game.log = TurnLog(t.phase, list(t.phase1_plants), t.phase1_discards, t.phase1_over, list(t.phase2_turned),
                           list(t.phase2_from_discard), list(t.phase3_planted), list(t.harvests), t.started, t.claimed,
                           t.tributes)
        return game

    def set_position(
        self,
        *,
        hands: Sequence[Sequence[Bean]] | None = None,
        fields: Sequence[Sequence[tuple[Bean, int] | None]] | None = None,
        deck: Sequence[Bean] = (),
        discard: Sequence[Bean] = (),
        treasury: Sequence[int | Sequence[Bean]] | None = None,
        positions: Sequence[int] | None = None,
        middle: dict[Bean, int] | None = None,
        vine: Sequence[str] | None = None,
        active: int = 0,
        phase: DecisionKind = DecisionKind.PLANT_FIRST,
        log: TurnLog | None = None,
        violet: int | None = None,
        red: int | None = None,
        reshuffles: int = 0,
        turn: int = 0,
    ) -> PrincesGame:
        """Put this game into a hand-built position with ``active`` to decide ``phase`` (tests, and bots'
        authors exploring a situation); returns it.

        ``deck`` is in draw order (first card drawn first); ``discard`` bottom to top. ``treasury[seat]``
        is a number of gold (blue coin cards) or a list of coin cards, oldest first. ``vine`` lists task ids
        of cards 1..28 (default: as dealt). The box is emptied; events and history are cleared. Card
        conservation is not kept: tests that count cards build complete positions themselves.
        """
        self._set_table(hands, fields, treasury, deck, discard, active, reshuffles, turn)
        positions = positions if positions is not None else [0] * self.players
        for seat, s in enumerate(self.seats):
            s.position = positions[seat]
        self.box = []
        self.middle = dict(middle or {})
        self.vine = list(vine if vine is not None else self.vine)
        self.revealed = len(self.vine)
        if violet is not None:
            self.violet = violet
        if red is not None:
            self.red = red
        self.phase = phase
        self.log = log or TurnLog(phase={DecisionKind.TAKE_MIDDLE: 0, DecisionKind.KEEP_MIDDLE: 3}.get(phase, 1))
        self.end_reason = None
        return self

    # ----------------------------------------------------------------- actions
    def _do_plant(self, seat: int, action: Plant) -> None:
        phase = self.phase
        if phase is not K.PLANT_FIRST and phase is not K.PLANT_SECOND:
            raise IllegalAction("P-4.2", action, f"no hand card is to be planted now ({_phase_name(phase)})")
        s = self.seats[seat]
        bean = s.hand[0]
        how = self._plant(seat, bean, 1, action.field, action, "hand")
        s.hand.pop(0)
        self.log.p1_plants.append((bean, how))
        if phase is K.PLANT_FIRST and s.hand:
            self.phase = K.PLANT_SECOND
        else:
            self._end_planting()

    def _do_pass(self, seat: int, action: Pass) -> None:
        phase = self.phase
        if phase is K.PLANT_SECOND:
            self.events.append(Passed(seat, phase.value))
            self._end_planting()
        elif phase is K.DISCARD_HAND:
            self.events.append(Passed(seat, phase.value))
            self._phase2()
        elif phase is K.KEEP_MIDDLE:
            self.events.append(Passed(seat, phase.value))
            self._end_phase3()
        elif phase is K.PLANT_FIRST:
            raise IllegalAction("P-4.2", action, "the front card of the hand must be planted")
        else:
            raise IllegalAction("P-4.1", action, "every kind left in the middle must be planted or discarded")

    def _do_discard_hand(self, seat: int, action: DiscardHand) -> None:
        phase = self.phase
        if phase not in _PHASE1:
            raise IllegalAction("P-4.3", action, f"hand cards are discarded only in phase 1 (now {_phase_name(phase)})")
        limit = self.princes.hand_discards
        if self.log.p1_discards >= limit:
            raise IllegalAction("P-4.3", action, f"only {limit} hand card(s) may be discarded a turn")
        s = self.seats[seat]
        if not 0 <= action.card < len(s.hand):
            raise IllegalAction("P-4.3", action, f"no card at hand position {action.card!r} (it holds {len(s.hand)})")
        bean = s.hand.pop(action.card)
        self.discard.append(bean)
        self.log.p1_discards += 1
        self.events.append(Discarded(seat, (bean,), "hand"))
        if phase is K.DISCARD_HAND:
            if not s.hand or self.log.p1_discards >= limit:
                self._phase2()
        elif not s.hand:
            self._end_planting()

    def _do_plant_middle(self, seat: int, action: PlantMiddle) -> None:
        phase = self.phase
        if phase is not K.TAKE_MIDDLE and phase is not K.KEEP_MIDDLE:
            raise IllegalAction("P-4.6", action,
                                f"middle cards are planted only in phases 0 and 3 (now {_phase_name(phase)})")
        rule = "P-4.1" if phase is K.TAKE_MIDDLE else "P-4.6"
        count = self.middle.get(action.bean, 0) if isinstance(action.bean, Bean) else 0
        if not count:
            raise IllegalAction(rule, action, f"no {action.bean!r} in the middle")
        self._plant(seat, action.bean, count, action.field, action, "middle")
        del self.middle[action.bean]
        if phase is K.KEEP_MIDDLE:
            self.log.p3_planted.append((action.bean, count))
        elif not self.middle:
            self._start_phase1()

    def _do_discard_middle(self, seat: int, action: DiscardMiddle) -> None:
        if self.phase is not K.TAKE_MIDDLE:
            rule = "S-1" if self.solo else "P-4.1"
            raise IllegalAction(rule, action, "middle cards are discarded by choice only in phase 0")
        count = self.middle.get(action.bean, 0) if isinstance(action.bean, Bean) else 0
        if not count:
            raise IllegalAction("P-4.1", action, f"no {action.bean!r} in the middle")
        del self.middle[action.bean]
        self.discard.extend([action.bean] * count)
        self.events.append(Discarded(seat, (action.bean,) * count, "middle"))
        if not self.middle:
            self._start_phase1()

    def _do_claim(self, seat: int, action: ClaimTask) -> None:
        s = self.seats[seat]
        target = s.position + 1
        if target == self.castle:
            need = self.princes.castle_gold
            if s.coins < need:
                raise IllegalAction("P-6.4", action,
                                    f"entering the Castle needs {need} gold, seat {seat} has {s.coins}")
            s.position = target
            self.log.claimed += 1
            self.events.append(TaskClaimed(seat, target, CASTLE))
            self._finish("castle", seat)
            return
        task = self.vine[target - 1]
        if not CHECKS[task](self, s):
            raise IllegalAction("P-6.2", action,
                                f"the task of card {target} is not fulfilled ({task}: {TASKS[task]!r})")
        s.position = target
        self.log.claimed += 1
        self.events.append(TaskClaimed(seat, target, task))
        self._reveal()

    def _do_tribute(self, seat: int, action: PayTribute) -> None:
        s = self.seats[seat]
        target = s.position + 1
        if target >= self.castle:
            raise IllegalAction("P-6.4", action, "the Castle cannot be entered by paying tribute")
        price = self.princes.tribute_price
        if s.coins < price:
            raise IllegalAction("P-6.3", action, f"tribute costs {price} gold, seat {seat} has {s.coins}")
        paid = tuple(s.treasury[-price:])
        del s.treasury[-price:]
        self.box.extend(paid)
        s.position = target
        self.log.tributes += 1
        self.events.append(TributePaid(seat, target, paid))
        self._reveal()

    # ----------------------------------------------------------------- mechanics
    def _plant(self, seat: int, bean: Bean, count: int, index: int, action: Action, source: str) -> str:
        """Plant ``count`` beans into field ``index`` (P-3.1); returns how: ``grew``, ``new`` or ``replaced``."""
        how = self._plant_beans(seat, bean, count, index, action, source)
        if how != "grew":
            self.log.started += 1
        return how

    def _paid_pile(self) -> list[Bean]:
        return self.box  # P-3.4: the gold paid for a field leaves the game

    def _cash_in(self, seat: int, index: int) -> int:
        coins = super()._cash_in(seat, index)
        if not self.over:
            self.log.harvests.append(coins)
        return coins

    def _reveal(self) -> None:
        """P-2.4 / S-5: turn vine cards face up."""
        upto = len(self.vine)
        if self.princes.vine_face_down:
            lead = max(s.position for s in self.seats)
            upto = min(upto, lead + self.princes.visible_ahead)
        while self.revealed < upto:
            self.revealed += 1
            self.events.append(VineRevealed(self.revealed, self.vine[self.revealed - 1]))

    # ----------------------------------------------------------------- flow
    def _start_turn(self) -> None:
        self.events.append(turn_started(self.active, self.turn))
        self.log = TurnLog()
        self.to_move = self.active
        if self.solo:
            if self._move_neutrals():
                return
        elif self.middle:  # P-4.1: phase 0 only when the opponent left something
            self.phase = K.TAKE_MIDDLE
            return
        self._start_phase1()

    def _move_neutrals(self) -> bool:
        """S-2, S-3: violet moves by its row's steps, then red moves one if violet is ahead of the player.
        Returns True if that ended the game (S-6)."""
        p = self.princes
        row = max(self.violet - 1, 0) // p.row_length  # position 0 is in front of the first row
        self.violet = min(self.castle, self.violet + p.violet_steps[min(row, p.rows - 1)])
        self.events.append(FigureMoved("violet", self.violet))
        if self.violet > self.seats[0].position and self.red < self.castle:
            self.red += 1
            self.events.append(FigureMoved("red", self.red))
        arrived = (self.violet == self.castle) + (self.red == self.castle)
        if arrived >= p.neutrals_to_lose:
            self._finish("neutral", None)
            return True
        return False

    def _start_phase1(self) -> None:
        self.log.phase = 1
        if self.seats[self.active].hand:
            self.phase = K.PLANT_FIRST
        else:
            self._end_planting()

    def _end_planting(self) -> None:
        """P-4.3: after planting, the player may still discard a hand card if they have not yet."""
        self.log.p1_over = True
        if self.seats[self.active].hand and self.log.p1_discards < self.princes.hand_discards:
            self.phase = K.DISCARD_HAND
        else:
            self._phase2()

    def _phase2(self) -> None:
        """P-4.4, P-4.5, P-5.2: turn up into the middle, add matching discards, reshuffle an emptied supply."""
        log = self.log
        log.phase = 2
        middle = self.middle
        for _ in range(self.rules.turn_up):
            if not self.deck and log.p2_turned:
                break  # P-5.2: the supply ran out during the turn-up
            card = self._take_card()
            if card is None:
                self._finish("supply", None)
                return
            log.p2_turned.append(card)
            middle[card] = middle.get(card, 0) + 1
        self.events.append(TurnedUp(self.active, tuple(log.p2_turned)))
        discard = self.discard
        while discard and discard[-1] in middle:
            card = discard.pop()
            middle[card] += 1
            log.p2_from_discard.append(card)
        if log.p2_from_discard:
            self.events.append(TookDiscard(self.active, tuple(log.p2_from_discard)))
        if not self.deck:
            self._reshuffle()
        log.phase = 3
        self.phase = K.KEEP_MIDDLE

    def _end_phase3(self) -> None:
        """S-4 (solo: the rest of the middle is discarded), then P-4.7: draw and pass the turn."""
        if self.solo and self.middle:
            beans = tuple(b for b, n in self.middle.items() for _ in range(n))
            self.middle.clear()
            self.discard.extend(beans)
            self.events.append(Discarded(self.active, beans, "middle"))
        self.log.phase = 4
        if not self._draw_and_pass_turn():
            self._finish("supply", None)

    def _finish(self, reason: str, seat: int | None) -> None:
        """P-7 / S-6: discard what is not planted, cash in every field, final tribute, result."""
        self.events.append(EndTriggered(reason, seat))
        self._keep_final_hands()
        self.end_reason = reason
        self.over = True  # from here on cash-ins are not part of anybody's turn
        for s in self.seats:
            self.discard.extend(s.hand)
            s.hand.clear()
        for bean, n in self.middle.items():
            self.discard.extend([bean] * n)
        self.middle.clear()
        for index_seat, s in enumerate(self.seats):
            for index, count in enumerate(s.field_counts):
                if count:
                    self._cash_in(index_seat, index)
        if reason == "castle" and not self.solo:
            price = self.princes.tribute_price
            for other, s in enumerate(self.seats):  # P-7.3
                while other != seat and s.position < self.castle - 1 and s.treasury:
                    paid = tuple(s.treasury[-price:])
                    del s.treasury[-len(paid):]
                    self.box.extend(paid)
                    s.position += 1
                    self.events.append(TributePaid(other, s.position, paid))
        self._end_game(((1,) if reason == "castle" else (2,)) if self.solo else None)  # S-7; a duel: P-7.4

    # ----------------------------------------------------------------- options
    def _options(self) -> list[Action]:
        seat = self.to_move
        s = self.seats[seat]
        phase = self.phase
        beans = s.field_beans
        cashable = self._cashable(s)  # P-3.2
        options: list[Action] = []
        if phase is K.PLANT_FIRST or phase is K.PLANT_SECOND:
            bean = s.hand[0]
            options = [Plant(i) for i, current in enumerate(beans) if current is None or current is bean or cashable[i]]
            if phase is K.PLANT_SECOND:
                options.append(_PASS)
            if self.log.p1_discards < self.princes.hand_discards:
                options.extend(DiscardHand(i) for i in range(len(s.hand)))
        elif phase is K.DISCARD_HAND:
            options = [DiscardHand(i) for i in range(len(s.hand))]
            options.append(_PASS)
        else:
            for bean in self.middle:
                options.extend(PlantMiddle(bean, i) for i, current in enumerate(beans)
                               if current is None or current is bean or cashable[i])
            if phase is K.TAKE_MIDDLE:
                options.extend(DiscardMiddle(bean) for bean in self.middle)
            else:
                options.append(_PASS)
        if self.can_claim(seat):
            options.append(_CLAIM)
        if s.position + 1 < self.castle and s.coins >= self.princes.tribute_price:
            options.append(_TRIBUTE)
        self._add_field_options(options, s, cashable)  # P-3.3, P-3.4
        return options


PrincesGame.HANDLERS = {
    Plant: PrincesGame._do_plant,
    Pass: PrincesGame._do_pass,
    DiscardHand: PrincesGame._do_discard_hand,
    PlantMiddle: PrincesGame._do_plant_middle,
    DiscardMiddle: PrincesGame._do_discard_middle,
    Harvest: PrincesGame._do_harvest,
    BuyField: PrincesGame._do_buy_field,
    ClaimTask: PrincesGame._do_claim,
    PayTribute: PrincesGame._do_tribute,
}
