"""Trader bot: values every card by what it does to its own fields, and trades on that value.

What it teaches:

- **A position has a value.** ``position_value`` (in ``strategy.valuation``, shared with the search
  bot) answers "how many coins is this worth?" for a set of fields, a hand and the cards waiting in
  the trading area. It plants the trading-area cards in the best order, then the next
  ``HAND_HORIZON`` cards of the hand *in hand order* (the front of the hand is what must be planted
  next, C-5.1), each where it hurts least, and adds the coins forced harvests earn to what the
  fields end up worth (``field_worth``: the coins a field pays now plus part of the way to its next
  beanometer level).
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

The Princes variants (duel, solo) have no trading; there this bot plays like the greedy bot (its
``princes_moves`` is ``PrincesExampleMoves``): one guess of the hidden cards
(``strategy.determinize.build_princes_game``, the discard pile followed from the events) and the example
policy ``strategy.policies.princes_greedy_action`` on it (gold beyond the Castle's price buys tribute).
"""
from __future__ import annotations

from sandbox.sdk import (
    Accept, Action, Bean, Bot, Confirm, Offer, OfferView, Pass, Plant, PlantTraded, Request, View,
)
from strategy.policies import PrincesExampleMoves
from strategy.valuation import ACCEPT_MARGIN, PARTNER_SHARE, CardValues, position_value, without


class TraderBot(CardValues, Bot):
    princes_moves = PrincesExampleMoves

    # ------------------------------------------------------------ planting
    def plant_first(self, request: Request) -> Action:
        return self.maybe_buy_field(request) or self.best_hand_plant(request, allow_pass=False)

    def plant_second(self, request: Request) -> Action:
        return self.maybe_buy_field(request) or self.best_hand_plant(request, allow_pass=True)

    def best_hand_plant(self, request: Request, allow_pass: bool) -> Action:
        view = request.classic_view
        rules = self.rules
        bean, rest = view.hand[0], view.hand[1:]
        fields = self.fields(view)
        scored: list[tuple[float, Plant]] = []
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
        view = request.classic_view
        rules = self.rules
        trade = self.trade_beans(view)
        fields = self.fields(view)
        best: PlantTraded | None = None
        best_value: float | None = None
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
        return self.heuristic_offer(request)

    def trade_confirm(self, request: Request) -> Action:
        view = request.classic_view
        trade = view.trade
        base = self.value(view)
        best: Action = Pass()
        best_gain = ACCEPT_MARGIN
        for action in request.options_of(Confirm):
            assert trade is not None  # a deal to confirm is a response of this trading round
            response = trade.responses[action.response]
            action = self.cheapest_payment(view, action, response) if not response.accept else action
            if response.accept:
                offer = trade.offer
                assert offer is not None  # an acceptance accepts this round's offer
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

    def after_my_offer(self, view: View, request: Request) -> tuple[tuple[Bean, ...], tuple[Bean, ...]]:
        """Own hand and trading area after the standing offer is paid (its cards named by bean)."""
        offer = view.trade.offer if view.trade else None
        assert offer is not None  # asked about an acceptance of this round's offer
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

    def cheapest_payment(self, view: View, action: Confirm, response: OfferView) -> Confirm:
        """Pay a counter-offer with the cards whose loss hurts least (trading area first if unwanted)."""
        area = view.trade_areas[view.seat]
        best = action
        best_value: float | None = None
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
        view = request.classic_view
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

    def cheapest_hand(self, view: View, want: tuple[Bean, ...]) -> tuple[int, ...]:
        """Hand positions paying ``want`` whose loss leaves the best position (greedy per bean)."""
        taken: list[int] = []
        for bean in want:
            choices = [i for i, b in enumerate(view.hand) if b is bean and i not in taken]
            best = max(choices, key=lambda i: (self.value(view, hand=without(view.hand, taken + [i])), -i))
            taken.append(best)
        return tuple(taken)
