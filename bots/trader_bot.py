"""Trader bot: values every card by what it does to its own fields, and trades on that value.

What it teaches:

- **A position has a value.** ``position_value`` answers "how many coins is this worth?" for a set
  of fields, a hand and the cards waiting in the trading area. It plants the trading-area cards
  in the best order, then the next ``HAND_HORIZON`` cards of the hand *in hand order* (the front
  of the hand is what must be planted next, C-5.1), each where it hurts least, and adds the coins
  forced harvests earn to what the fields end up worth (``field_worth``: the coins a field pays
  now plus part of the way to its next beanometer level).
- **A card's value is marginal**: the position's value with the card minus without it. A card
  that grows a field is an asset; one that would force the bot to cash in a growing field
  early (a "liability") has negative value, and giving it away is a gain.
- **Every decision compares positions.** Planting (which field, plant the second card or not,
  the order of traded cards), accepting an offer, choosing which counter-offer to confirm and
  making offers are all "which resulting position is worth most?".
- **Trades help the partner too.** It accepts a deal only when its own gain beats a share of
  what the partner visibly gains (the partner's fields are public, its hand is not).
- **Liabilities are given away.** Turned-up cards nobody takes and hand cards that would wreck a
  field are gifted (C-6.5) to the player they help least.
- **The third field** is bought early in the game, when there is still time to fill it.

The Princes variants (duel, solo) have no trading; there this bot plays like the greedy bot: one guess of
the hidden cards (``engine.determinize.build_princes_game``, the discard pile followed from the events)
and the engine's example policy ``engine.policies.princes_greedy_action`` on it (gold beyond the Castle's
price buys tribute).
"""
from __future__ import annotations

from itertools import permutations

from engine.policies import princes_example_move
from sandbox.sdk import (
    Accept, Action, Bean, Bot, BuyField, Confirm, EndTrading, Offer, Pass, Plant, PlantTraded, Request, Rules, View,
)

HAND_HORIZON = 3        # hand cards planted in the look-ahead (about the next two turns)
PROGRESS = 0.5          # share of the next beanometer level a field counts as already earned
ACCEPT_MARGIN = 0.25    # a deal must gain at least this many coins of value
PARTNER_SHARE = 0.5     # ... plus this share of what the partner visibly gains
GIFT_THRESHOLD = -0.4   # a hand card worth less than this is given away when possible

Fields = tuple  # tuple of (bean or None, count) pairs


def field_worth(rules: Rules, bean: Bean | None, count: int) -> float:
    """Coins a field pays now, plus ``PROGRESS`` times the share of the way to its next level."""
    if bean is None or count == 0:
        return 0.0
    meter = rules.bean_type(bean).beanometer
    coins = rules.coins_for(bean, count)
    below = max([t for t in meter if t is not None and t <= count], default=0)
    for level, needed in enumerate(meter, start=1):
        if needed is not None and needed > count:
            return coins + PROGRESS * (level - coins) * (count - below) / (needed - below)
    return float(coins)


def plant_one(rules: Rules, fields: Fields, bean: Bean) -> list[tuple[float, Fields]]:
    """Every legal way to plant ``bean``: (coins earned by a forced cash-in, new fields)."""
    lone_blocked = any(n > 1 for _, n in fields)
    out = []
    for i, (b, n) in enumerate(fields):
        if b is None or b is bean:
            out.append((0.0, fields[:i] + ((bean, n + 1),) + fields[i + 1:]))
        elif n > 1 or not lone_blocked:  # C-4.2
            out.append((float(rules.coins_for(b, n)), fields[:i] + ((bean, 1),) + fields[i + 1:]))
    return out


def settle(rules: Rules, fields: Fields) -> float:
    return sum(field_worth(rules, b, n) for b, n in fields)


def best_plant_of(rules: Rules, fields: Fields, bean: Bean) -> tuple[float, Fields]:
    """The planting of ``bean`` that leaves the most value (coins earned plus fields' worth)."""
    return max(plant_one(rules, fields, bean), key=lambda r: r[0] + settle(rules, r[1]))


def position_value(rules: Rules, fields: Fields, hand: tuple, trade: tuple = ()) -> float:
    """What fields + the next hand cards + trading-area cards are worth, in coins (see module doc)."""
    best = None
    orders = permutations(trade) if len(trade) <= 3 else [tuple(trade)]
    for order in orders:
        coins, f = 0.0, fields
        for bean in order:
            earned, f = best_plant_of(rules, f, bean)
            coins += earned
        for bean in hand[:HAND_HORIZON]:
            earned, f = best_plant_of(rules, f, bean)
            coins += earned
        value = coins + settle(rules, f)
        if best is None or value > best:
            best = value
    return best  # type: ignore[return-value]


def without(cards: tuple, positions) -> tuple:
    drop = set(positions)
    return tuple(c for i, c in enumerate(cards) if i not in drop)


class TraderBot(Bot):
    def __init__(self) -> None:
        super().__init__()
        self.princes_discard: list = []  # the Princes discard pile, followed from the events

    # ------------------------------------------------------------ the Princes variants (no trading)
    def princes_move(self, request: Request) -> Action:
        """Any decision of the duel or solo game: the example policy on one guess of the hidden cards."""
        return princes_example_move(self.rules, request.view, request.options, request.events, self.rng,
                                    self.princes_discard)

    take_middle = discard_hand = keep_middle = princes_move

    # ------------------------------------------------------------ what it sees
    def fields(self, view: View, seat: int | None = None) -> Fields:
        return tuple((f.bean, f.count) for f in view.fields[view.seat if seat is None else seat])

    def trade_beans(self, view: View) -> tuple:
        return tuple(c.bean for c in view.trade_areas[view.seat])

    def value(self, view: View, hand: tuple | None = None, trade: tuple | None = None) -> float:
        return position_value(self.rules, self.fields(view), view.hand if hand is None else hand,
                              self.trade_beans(view) if trade is None else trade)

    def partner_gain(self, view: View, seat: int, cards: tuple) -> float:
        """What ``cards`` planted into ``seat``'s fields gain it (its hand is unknown, so ignored)."""
        fields = self.fields(view, seat)
        return position_value(self.rules, fields, (), cards) - settle(self.rules, fields)

    def maybe_buy_field(self, request: Request) -> Action | None:
        view = request.view
        if not request.options_of(BuyField):
            return None
        if view.reshuffles == 0 or (view.reshuffles == 1 and view.deck_size > 30):
            return BuyField()
        return None

    # ------------------------------------------------------------ planting
    def plant_first(self, request: Request) -> Action:
        if self.rules.princes is not None:  # type: ignore[union-attr]
            return self.princes_move(request)
        return self.maybe_buy_field(request) or self.best_hand_plant(request, allow_pass=False)

    def plant_second(self, request: Request) -> Action:
        if self.rules.princes is not None:  # type: ignore[union-attr]
            return self.princes_move(request)
        return self.maybe_buy_field(request) or self.best_hand_plant(request, allow_pass=True)

    def best_hand_plant(self, request: Request, allow_pass: bool) -> Action:
        view = request.view
        rules = self.rules
        bean, rest = view.hand[0], view.hand[1:]
        fields = self.fields(view)
        scored = []
        for action in request.options_of(Plant):
            i = action.field
            b, n = fields[i]
            earned = 0.0 if b is None or b is bean else float(rules.coins_for(b, n))
            new = fields[:i] + ((bean, (n if b is bean else 0) + 1),) + fields[i + 1:]
            scored.append((earned + position_value(rules, new, rest), action))
        best_value, best = max(scored, key=lambda s: s[0])
        if allow_pass:
            # Keeping the card leaves it at the front: it must be planted next turn anyway, unless
            # it is traded or given away. Plant it now only if that is no worse than waiting.
            keep = position_value(rules, fields, view.hand)
            if best_value < keep - 1e-9 or (best_value <= keep + 1e-9 and fields[best.field][0] is not bean):
                return Pass()
        return best

    def plant_traded(self, request: Request) -> Action:
        view = request.view
        rules = self.rules
        trade = self.trade_beans(view)
        fields = self.fields(view)
        best, best_value = None, None
        for action in request.options_of(PlantTraded):
            bean = trade[action.card]
            b, n = fields[action.field]
            earned = 0.0 if b is None or b is bean else float(rules.coins_for(b, n))
            new = fields[:action.field] + ((bean, (n if b is bean else 0) + 1),) + fields[action.field + 1:]
            value = earned + position_value(rules, new, view.hand, without(trade, [action.card]))
            if best_value is None or value > best_value:
                best, best_value = action, value
        return best or request.options[0]

    # ------------------------------------------------------------ trading, active player
    def trade_offer(self, request: Request) -> Action:
        view = request.view
        trade = view.trade
        if trade is None:
            return EndTrading()
        buy = self.maybe_buy_field(request)
        if buy:
            return buy
        me = view.seat
        area = view.trade_areas[me]
        base = self.value(view)
        # Unlocked trading-area cards that are worth less kept than gone.
        unwanted = tuple(i for i, c in enumerate(area) if not c.locked
                         and self.value(view, trade=without(self.trade_beans(view), [i])) >= base - 0.05)
        liabilities = self.hand_liabilities(view)
        if trade.round >= 2 and (unwanted or liabilities):
            return self.gift(view, unwanted[:1], liabilities[:1] if not unwanted else ())
        if trade.round >= 2:
            return EndTrading()
        want = self.best_wanted(view)
        if want is None:
            return EndTrading() if not unwanted else self.gift(view, unwanted, ())
        give_hand = liabilities[:1] if trade.round == 1 or not unwanted else ()
        if not unwanted and not give_hand:
            return EndTrading()
        return Offer(give_hand=give_hand, give_trade=unwanted, want=(want,), to=None)

    def best_wanted(self, view: View) -> Bean | None:
        """The bean whose arrival in the trading area would raise the position's value most."""
        base = self.value(view)
        trade = self.trade_beans(view)
        best, gain = None, 0.5
        for bean in {b for b, _ in self.fields(view) if b is not None}:
            g = self.value(view, trade=trade + (bean,)) - base
            if g > gain:
                best, gain = bean, g
        return best

    def hand_liabilities(self, view: View) -> tuple:
        """Hand positions (within the look-ahead) whose card the bot is better off without."""
        base = self.value(view)
        out = []
        for i in range(min(len(view.hand), HAND_HORIZON)):
            if self.value(view, hand=without(view.hand, [i])) - base > -GIFT_THRESHOLD:
                out.append(i)
        return tuple(out)

    def gift(self, view: View, give_trade: tuple, give_hand: tuple) -> Action:
        """Give cards away to the other player they help least."""
        if not give_trade and not give_hand:
            return EndTrading()
        me = view.seat
        cards = tuple(c.bean for i, c in enumerate(view.trade_areas[me]) if i in give_trade) + \
            tuple(view.hand[i] for i in give_hand)
        others = [s for s in range(view.players) if s != me]
        to = min(others, key=lambda s: (self.partner_gain(view, s, cards), s))
        return Offer(give_hand=give_hand, give_trade=give_trade, want=(), to=to)

    def trade_confirm(self, request: Request) -> Action:
        view = request.view
        trade = view.trade
        base = self.value(view)
        best, best_gain = Pass(), ACCEPT_MARGIN
        for action in request.options_of(Confirm):
            response = trade.responses[action.response]
            action = self.cheapest_payment(view, action, response) if not response.accept else action
            if response.accept:
                offer = trade.offer
                hand, area = self.after_my_offer(view, request)
                got = response.give
                gain = position_value(self.rules, self.fields(view), hand, area + got) - base
                partner = self.partner_gain(view, response.seat, offer.give)
            else:
                area = without(self.trade_beans(view), action.give_trade)
                hand = without(view.hand, action.give_hand)
                gain = position_value(self.rules, self.fields(view), hand, area + response.give) - base
                partner = self.partner_gain(view, response.seat, response.want)
            net = gain - PARTNER_SHARE * max(partner, 0.0)
            if net > best_gain:
                best, best_gain = action, net
        return best

    def after_my_offer(self, view: View, request: Request) -> tuple[tuple, tuple]:
        """Own hand and trading area after the standing offer is paid (its cards named by bean)."""
        offer = view.trade.offer
        hand, area = list(view.hand), list(self.trade_beans(view))
        locked = [c.locked for c in view.trade_areas[view.seat]]
        for bean in offer.give:
            for i, b in enumerate(area):
                if b is bean and not locked[i]:
                    del area[i], locked[i]
                    break
            else:
                if bean in hand:
                    hand.remove(bean)
        return tuple(hand), tuple(area)

    def cheapest_payment(self, view: View, action: Confirm, response) -> Confirm:
        """Pay a counter-offer with the cards whose loss hurts least (trading area first if unwanted)."""
        area = view.trade_areas[view.seat]
        best, best_value = action, None
        hand_pos = {b: [i for i, h in enumerate(view.hand) if h is b] for b in set(response.want)}
        area_pos = {b: [i for i, c in enumerate(area) if c.bean is b and not c.locked] for b in set(response.want)}
        # Try paying each wanted bean from the trading area or from each hand position holding it.
        candidates = [action]
        if len(response.want) == 1:
            b = response.want[0]
            candidates = [Confirm(action.response, (), (i,)) for i in area_pos[b]] + \
                         [Confirm(action.response, (i,), ()) for i in hand_pos[b]]
        for c in candidates:
            v = position_value(self.rules, self.fields(view), without(view.hand, c.give_hand),
                               without(self.trade_beans(view), c.give_trade))
            if best_value is None or v > best_value:
                best, best_value = c, v
        return best

    # ------------------------------------------------------------ trading, other players
    def trade_respond(self, request: Request) -> Action:
        view = request.view
        trade = view.trade
        offer = trade.offer if trade else None
        base = self.value(view)
        active = view.active
        accept = next(iter(request.options_of(Accept)), None)
        if accept is not None and offer is not None:
            pay = self.cheapest_hand(view, offer.want)
            gain = self.value(view, hand=without(view.hand, pay), trade=self.trade_beans(view) + offer.give) - base
            partner = self.partner_gain(view, active, offer.want)
            if gain - PARTNER_SHARE * max(partner, 0.0) > ACCEPT_MARGIN:
                return Accept(give_hand=pay)
        counter = self.counter_offer(view, base)
        if counter is not None:
            return counter
        liabilities = self.hand_liabilities(view)
        if liabilities and trade is not None and trade.round >= 1:
            return Offer(give_hand=liabilities[:1], want=(), to=active)
        return Pass()

    def cheapest_hand(self, view: View, want: tuple) -> tuple:
        """Hand positions paying ``want`` whose loss leaves the best position (greedy per bean)."""
        taken: list[int] = []
        for bean in want:
            choices = [i for i, b in enumerate(view.hand) if b is bean and i not in taken]
            best = max(choices, key=lambda i: (self.value(view, hand=without(view.hand, taken + [i])), -i))
            taken.append(best)
        return tuple(taken)

    def counter_offer(self, view: View, base: float) -> Action | None:
        """Ask the active player for one of its turned-up cards that grows a field of ours, paying
        with a hand card we are better off without (or nothing, if we have none)."""
        active_area = view.trade_areas[view.active]
        best, best_gain = None, ACCEPT_MARGIN + 0.5
        liabilities = self.hand_liabilities(view)
        my_beans = {b for b, _ in self.fields(view) if b is not None}
        for card in active_area:
            if card.locked or card.bean not in my_beans:
                continue
            for pay in ([(i,) for i in liabilities] or [()]):
                gain = self.value(view, hand=without(view.hand, pay), trade=self.trade_beans(view) + (card.bean,)) - base
                if gain > best_gain:
                    best, best_gain = Offer(give_hand=pay, want=(card.bean,), to=view.active), gain
        if best is None:
            return None
        if not best.give_hand:
            # Offer something the active player may want: any hand card outside our look-ahead
            # that we do not grow.
            spare = [i for i in range(len(view.hand)) if i >= HAND_HORIZON and view.hand[i] not in my_beans]
            if not spare:
                return None
            best = Offer(give_hand=(spare[0],), want=best.want, to=view.active)
        return best
