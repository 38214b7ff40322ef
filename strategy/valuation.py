"""Card values shared by the example bots (trader, search): what fields, a hand and a trading
area are worth in coins, and the trading choices made on that value.

``position_value`` plants the trading-area cards in the best order, then the next ``HAND_HORIZON``
hand cards in hand order (the front of the hand is planted next, C-5.1), each where it leaves most,
and adds the coins forced harvests earn to what the fields end up worth (``field_worth``: the
coins a field pays now plus ``PROGRESS`` of the way to its next beanometer level).
"""
from __future__ import annotations

from itertools import permutations
from typing import Iterable, Protocol, TypeVar

from engine.actions import Action, BuyField, EndTrading, Offer
from engine.cards import Bean
from engine.rules import Rules
from engine.views import View

HAND_HORIZON = 3        # hand cards planted in the look-ahead (about the next two turns)
PROGRESS = 0.5          # share of the next beanometer level a field counts as already earned
ACCEPT_MARGIN = 0.25    # a deal must gain at least this many coins of value
PARTNER_SHARE = 0.5     # ... plus this share of what the partner visibly gains
GIFT_THRESHOLD = -0.4   # a hand card worth less than this is given away when possible

Fields = tuple[tuple[Bean | None, int], ...]  # a seat's fields: (bean or None, count) each
Cards = tuple[Bean, ...]


def field_worth(rules: Rules, bean: Bean | None, count: int) -> float:
    """Coins a field pays now, plus ``PROGRESS`` times the share of the way to its next level."""
    if bean is None or count == 0:
        return 0.0
    row = _worths(rules)[bean.wire]
    return row[count] if count < len(row) else _worth(rules, bean, count)


def _worth(rules: Rules, bean: Bean, count: int) -> float:
    meter = rules.bean_type(bean).beanometer
    coins = rules.coins_for(bean, count)
    below = max([t for t in meter if t is not None and t <= count], default=0)
    for level, needed in enumerate(meter, start=1):
        if needed is not None and needed > count:
            return coins + PROGRESS * (level - coins) * (count - below) / (needed - below)
    return float(coins)


#: each rules' ``field_worth`` of a bean (by its wire name) and a count up to the cards of that bean, computed once:
#: the example bots value ~100,000 fields a game (a trader's game took 2.4x as long before, docs/benchmarks.md)
_WORTHS: dict[int, tuple[Rules, dict[str, tuple[float, ...]]]] = {}


def _worths(rules: Rules) -> dict[str, tuple[float, ...]]:
    held = _WORTHS.get(id(rules))
    if held is None or held[0] is not rules:  # an id reused by new rules
        if len(_WORTHS) >= 64:
            _WORTHS.clear()
        table = {t.bean.wire: (0.0, *(_worth(rules, t.bean, n) for n in range(1, t.count + 1)))
                 for t in rules.bean_types}
        held = _WORTHS[id(rules)] = (rules, table)
    return held[1]


def plant_one(rules: Rules, fields: Fields, bean: Bean) -> list[tuple[float, Fields]]:
    """Every legal way to plant ``bean``: (coins earned by a forced cash-in, new fields)."""
    lone_blocked = any(n > 1 for _, n in fields)
    out: list[tuple[float, Fields]] = []
    for i, (b, n) in enumerate(fields):
        if b is None or b is bean:
            out.append((0.0, fields[:i] + ((bean, n + 1),) + fields[i + 1:]))
        elif n > 1 or not lone_blocked:  # C-4.2
            out.append((float(rules.coins_for(b, n)), fields[:i] + ((bean, 1),) + fields[i + 1:]))
    return out


def settle(rules: Rules, fields: Fields) -> float:
    """What the fields are worth as they stand."""
    worths, total = _worths(rules), 0.0
    for bean, count in fields:
        if bean is not None and count:
            row = worths[bean.wire]
            total += row[count] if count < len(row) else _worth(rules, bean, count)
    return total


def best_plant_of(rules: Rules, fields: Fields, bean: Bean) -> tuple[float, Fields]:
    """The planting of ``bean`` that leaves the most value (coins earned plus fields' worth)."""
    return max(plant_one(rules, fields, bean), key=lambda r: r[0] + settle(rules, r[1]))


def position_value(rules: Rules, fields: Fields, hand: Cards, trade: Cards = ()) -> float:
    """What fields + the next hand cards + trading-area cards are worth, in coins (see module doc)."""
    best: float | None = None
    for order in (permutations(trade) if len(trade) <= 3 else [tuple(trade)]):
        coins, f = 0.0, fields
        for bean in (*order, *hand[:HAND_HORIZON]):
            earned, f = best_plant_of(rules, f, bean)
            coins += earned
        value = coins + settle(rules, f)
        if best is None or value > best:
            best = value
    assert best is not None  # permutations of () yield one empty order
    return best


T = TypeVar("T")


def without(cards: tuple[T, ...], positions: Iterable[int]) -> tuple[T, ...]:
    """``cards`` minus the ones at ``positions``."""
    drop = set(positions)
    return tuple(c for i, c in enumerate(cards) if i not in drop)


class ClassicRequest(Protocol):
    """What ``CardValues`` reads of a decision of the classic game (the SDK's ``Request`` has it)."""

    @property
    def classic_view(self) -> View: ...
    @property
    def options(self) -> tuple[Action, ...]: ...


class CardValues:
    """Valuation of what a bot sees and the trades it suggests; mixed into a bot that has ``self.rules``."""

    rules: Rules

    def fields(self, view: View, seat: int | None = None) -> Fields:
        return tuple((f.bean, f.count) for f in view.fields[view.seat if seat is None else seat])

    def trade_beans(self, view: View) -> Cards:
        return tuple(c.bean for c in view.trade_areas[view.seat])

    def value(self, view: View, hand: Cards | None = None, trade: Cards | None = None) -> float:
        return position_value(self.rules, self.fields(view), view.hand if hand is None else hand,
                              self.trade_beans(view) if trade is None else trade)

    def partner_gain(self, view: View, seat: int, cards: Cards) -> float:
        """What ``cards`` planted into ``seat``'s fields gain it (its hand is unknown, so ignored)."""
        fields = self.fields(view, seat)
        return position_value(self.rules, fields, (), cards) - settle(self.rules, fields)

    def maybe_buy_field(self, request: ClassicRequest) -> Action | None:
        """Buy the third field early in the game, while there is time to fill it."""
        view = request.classic_view
        early = view.reshuffles == 0 or (view.reshuffles == 1 and view.deck_size > 30)
        if any(isinstance(a, BuyField) for a in request.options) and early:
            return BuyField()
        return None

    def heuristic_offer(self, request: ClassicRequest) -> Action:
        """The active player's trading move: buy a field early; from round 2 give away what it is
        better off without; before that ask for the bean it wants most, offering the unwanted."""
        view = request.classic_view
        trade = view.trade
        if trade is None:
            return EndTrading()
        buy = self.maybe_buy_field(request)
        if buy:
            return buy
        base = self.value(view)
        # Unlocked trading-area cards that are worth less kept than gone.
        unwanted = tuple(i for i, c in enumerate(view.trade_areas[view.seat]) if not c.locked
                         and self.value(view, trade=without(self.trade_beans(view), [i])) >= base - 0.05)
        liabilities = self.hand_liabilities(view)
        if trade.round >= 2:
            return self.gift(view, unwanted[:1], liabilities[:1] if not unwanted else ())
        want = self.best_wanted(view)
        if want is None:
            return self.gift(view, unwanted, ())
        give_hand = liabilities[:1] if trade.round == 1 or not unwanted else ()
        if not unwanted and not give_hand:
            return EndTrading()
        return Offer(give_hand=give_hand, give_trade=unwanted, want=(want,), to=None)

    def best_wanted(self, view: View) -> Bean | None:
        """The bean whose arrival in the trading area would raise the position's value most."""
        base = self.value(view)
        trade = self.trade_beans(view)
        best, gain = None, 0.5
        for bean in dict.fromkeys(b for b, _ in self.fields(view) if b is not None):  # in field order: no hash
            g = self.value(view, trade=trade + (bean,)) - base
            if g > gain:
                best, gain = bean, g
        return best

    def hand_liabilities(self, view: View) -> tuple[int, ...]:
        """Hand positions (within the look-ahead) whose card the bot is better off without."""
        base = self.value(view)
        return tuple(i for i in range(min(len(view.hand), HAND_HORIZON))
                     if self.value(view, hand=without(view.hand, [i])) - base > -GIFT_THRESHOLD)

    def gift(self, view: View, give_trade: tuple[int, ...], give_hand: tuple[int, ...]) -> Action:
        """Give cards away to the other player they help least (nothing to give: end trading)."""
        if not give_trade and not give_hand:
            return EndTrading()
        me = view.seat
        cards = tuple(c.bean for i, c in enumerate(view.trade_areas[me]) if i in give_trade) + \
            tuple(view.hand[i] for i in give_hand)
        others = [s for s in range(view.players) if s != me]
        to = min(others, key=lambda s: (self.partner_gain(view, s, cards), s))
        return Offer(give_hand=give_hand, give_trade=give_trade, want=(), to=to)

    def counter_offer(self, view: View, base: float) -> Action | None:
        """Ask the active player for one of its turned-up cards that grows a field of ours, paying
        with a hand card we are better off without, else one outside the look-ahead that we do not grow."""
        best, best_gain = None, ACCEPT_MARGIN + 0.5
        liabilities = self.hand_liabilities(view)
        my_beans = {b for b, _ in self.fields(view) if b is not None}
        pays: list[tuple[int, ...]] = [(i,) for i in liabilities] or [()]
        for card in view.trade_areas[view.active]:
            if card.locked or card.bean not in my_beans:
                continue
            for pay in pays:
                gain = self.value(view, hand=without(view.hand, pay),
                                  trade=self.trade_beans(view) + (card.bean,)) - base
                if gain > best_gain:
                    best, best_gain = Offer(give_hand=pay, want=(card.bean,), to=view.active), gain
        if best is not None and not best.give_hand:
            spare = [i for i in range(HAND_HORIZON, len(view.hand)) if view.hand[i] not in my_beans]
            best = Offer(give_hand=(spare[0],), want=best.want, to=view.active) if spare else None
        return best
