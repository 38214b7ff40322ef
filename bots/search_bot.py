"""Search bot: determinized Monte Carlo on top of the trader's card values.

What it teaches:

- **Guess what you cannot see, many times.** A view hides the other hands, the deck order, the
  discard pile below its top card and the others' coins. The public events show every harvest
  and every field purchase, so the bot keeps the treasuries and the discard pile itself
  (``strategy.determinize.Tracker``). The cards that remain unseen are in the other hands or the deck; one
  *determinization* deals them out at random (``strategy.determinize.sample_hidden``) and builds a
  complete engine state (``strategy.determinize.build_game``). The approximation, stated once: every
  unseen card is taken to be equally likely in any other hand or anywhere in the deck; after a
  reshuffle that is no longer exact (the deck is really the old discard pile), and trading hints
  are ignored except for cards a player showed this round, which it must still hold.
- **Try each candidate on the same guesses.** For a decision that matters (where to plant, plant
  a second card or not, the order of traded cards, which deal to confirm, accept an offer or give
  a card away) every candidate action is played on the same sampled states (common random
  numbers: the comparison's noise comes from the candidates, not from different deals), then the
  game is played out to its end by a fast policy for every seat (``strategy.policies.rollout_action``: plant where
  it loses least, plant a second card onto its own kind, no trading). The score of a playout is
  own coins minus the best opponent's; the candidate with the best mean wins.
- **Mid-round trading decisions are replayed from the round's start**: the state machine needs the
  hand positions of offers, which a view never shows, so the bot builds the state at the start of
  the round and replays the deal it is judging (offer, acceptance, confirmation) with engine actions.
- **Stay inside the clock.** Each search stops after ``BUDGET_MS`` (or less when the time left is
  short: ``request.time_left_ms``); at least one full pass over the candidates is made, then
  passes continue while time remains.
- **Search where it pays, heuristics elsewhere.** Offers and counter-offers depend on how the
  others answer, which the playouts do not model; those come from the trader's card values.

The Princes variants (duel, solo) have no trading; there this bot plays like the greedy bot (its
``princes_moves`` is ``PrincesExampleMoves``): one guess of the hidden cards
(``strategy.determinize.build_princes_game``, the discard pile followed from the events) and the example
policy ``strategy.policies.princes_greedy_action`` on it (gold beyond the Castle's price buys tribute).
"""
from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Callable, Sequence

from engine.actions import DecisionKind
from engine.classic import ClassicGame
from sandbox.sdk import (
    Accept, Action, Bean, Bot, Confirm, EndTrading, Hello, Offer, OfferView, Pass, Plant, PlantTraded, Request,
    TradeView, View, find_cards,
)
from strategy.determinize import Tracker, build_game, sample_hidden
from strategy.policies import PrincesExampleMoves, playout
from strategy.valuation import ACCEPT_MARGIN, PARTNER_SHARE, CardValues, position_value, without

BUDGET_MS = 60.0        # thinking time per searched decision
PLAYOUT_TURNS = None    # turns a playout runs (None: to the end of the game)
CONFIDENCE = 1.0        # standard errors a candidate must beat the heuristic's choice by
MAX_CANDIDATES = 5      # the heuristic's best few are searched
PASS, END = Pass(), EndTrading()

Candidate = tuple[Action, Callable[[ClassicGame], object]]  # an action, and how to play it on a sampled game
Planting = Plant | PlantTraded | Pass


def trading(view: View) -> TradeView:
    """The trading round of a trading decision."""
    assert view.trade is not None  # asked only while trading
    return view.trade


def open_offer(view: View) -> OfferView:
    """The active seat's offer of this round, when the decision is about it."""
    offer = trading(view).offer
    assert offer is not None  # an acceptance, or an answer to it, needs the offer
    return offer


def cards(hand: Sequence[Bean], beans: Sequence[Bean]) -> tuple[int, ...]:
    """Positions of ``beans`` in a sampled ``hand``, which holds every card its seat showed this round."""
    found = find_cards(hand, beans)
    assert found is not None, (hand, beans)
    return found


def applying(action: Action) -> Callable[[ClassicGame], object]:
    return lambda g: g.apply(action)


class SearchBot(CardValues, Bot):
    princes_moves = PrincesExampleMoves
    budget_ms = BUDGET_MS
    horizon = PLAYOUT_TURNS

    def on_start(self, hello: Hello) -> None:
        self.tracker = Tracker(hello.players)
        limit = float(hello.limits.get("decision_ms", 1000.0))
        self.budget_ms = min(self.budget_ms, 0.3 * limit)
        self.last_offer: Offer | None = None
        self.searches = 0
        self.playouts = 0
        self.overrides = 0  # searches that chose against the heuristic
        self.search_ms = 0.0
        self.late_passes = 0  # passes begun with the budget spent: none, the search stops at the first check past it

    # ------------------------------------------------------------ the search
    def search(self, request: Request, candidates: list[Candidate], view: View, kind: DecisionKind,
               known: dict[int, list[Bean]] | None = None) -> Action:
        """Play every candidate on the same sampled states; return the one with the best mean score,
        but leave the first candidate (the heuristic's choice) only for a candidate that beats it
        clearly: mean paired difference above ``CONFIDENCE`` standard errors. Playouts are noisy,
        and a search that follows noise plays worse than the heuristic it starts from.

        ``candidates`` are (action to return, function(game) that plays the candidate on a fresh
        sampled game). ``view`` is the view to determinize, ``kind`` the decision it waits for and
        ``known`` the cards other seats are known to hold.
        """
        if len(candidates) == 1 or not self.tracker.consistent(request.classic_view):
            return candidates[0][0]
        started = time.perf_counter()
        budget = min(self.budget_ms, 0.05 * request.time_left_ms) / 1000.0
        scores: list[list[float]] = [[] for _ in candidates]
        rules, me = self.rules, request.me
        checked = started  # the clock when the budget was last looked at: a pass begins only if it was not spent
        while True:
            if checked - started > budget:
                self.late_passes += 1
            seed = self.rng.getrandbits(32)
            try:
                hidden = sample_hidden(rules, view, self.tracker.discard, self.tracker.treasuries,
                                       random.Random(seed), known)
            except ValueError:
                break
            for k, (_, play) in enumerate(candidates):
                game = build_game(rules, view, hidden, kind, seed)
                play(game)
                scores[k].append(playout(game, me, self.horizon))
            checked = time.perf_counter()
            if checked - started > budget:
                break
        n = len(scores[0])
        self.searches += 1
        self.playouts += n * len(candidates)
        self.search_ms += (time.perf_counter() - started) * 1000
        best, best_mean = 0, 0.0
        for k in range(1, len(candidates)):
            diffs = [a - b for a, b in zip(scores[k], scores[0])]
            if n < 4:
                continue
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            if mean > best_mean and mean > CONFIDENCE * (var / n) ** 0.5:
                best, best_mean = k, mean
        self.overrides += best != 0
        return candidates[best][0]

    # ------------------------------------------------------------ helpers
    def round_start(self, view: View) -> View:
        """The view at the start of this trading round: no offer, no responses."""
        trade = trading(view)
        return replace(view, trade=TradeView(trade.round, trade.max_rounds, None, ()))

    def shown_cards(self, view: View) -> dict[int, list[Bean]]:
        """Cards other seats showed this round and still hold: the hand part of the active offer and
        every response's cards."""
        known: dict[int, list[Bean]] = {}
        trade = trading(view)
        if trade.offer is not None and view.active != view.seat:
            area = [c.bean for c in view.trade_areas[view.active] if not c.locked]
            for bean in trade.offer.give:
                if bean in area:
                    area.remove(bean)
                else:
                    known.setdefault(view.active, []).append(bean)
        for r in trade.responses:
            if r.seat != view.seat:
                known.setdefault(r.seat, []).extend(r.give)
        return known

    def observe(self, request: Request) -> None:
        self.tracker.see(request.events)

    # ------------------------------------------------------------ planting
    def plant_first(self, request: Request) -> Action:
        self.observe(request)
        return self.maybe_buy_field(request) or self.search_plant(request)

    def plant_second(self, request: Request) -> Action:
        self.observe(request)
        return self.maybe_buy_field(request) or self.search_plant(request)

    def plant_traded(self, request: Request) -> Action:
        self.observe(request)
        return self.search_plant(request)

    def plant_score(self, view: View, action: Planting) -> float:
        """The heuristic value of a planting (used to order and prune the candidates)."""
        rules, fields = self.rules, self.fields(view)
        trade, hand = self.trade_beans(view), view.hand
        if isinstance(action, Pass):
            return position_value(rules, fields, hand, ())
        if isinstance(action, PlantTraded):
            bean, trade = trade[action.card], without(trade, [action.card])
        else:
            bean, hand = hand[0], hand[1:]
        b, n = fields[action.field]
        earned = 0.0 if b is None or b is bean else float(rules.coins_for(b, n))
        new = fields[:action.field] + ((bean, (n if b is bean else 0) + 1),) + fields[action.field + 1:]
        return earned + position_value(rules, new, hand, trade)

    def search_plant(self, request: Request) -> Action:
        view = request.classic_view
        options = [a for a in request.options if isinstance(a, (Plant, PlantTraded, Pass))]
        # Plantings with the same result (two empty fields, or the same card twice) are one candidate.
        distinct: dict[tuple[object, ...], Planting] = {}
        key: tuple[object, ...]
        for a in options:
            if isinstance(a, Pass):
                key = ("pass",)
            else:
                bean = view.hand[0] if isinstance(a, Plant) else view.trade_areas[view.seat][a.card].bean
                key = (bean, view.fields[view.seat][a.field])
            distinct.setdefault(key, a)
        ranked = sorted(distinct.values(), key=lambda a: -self.plant_score(view, a))[:MAX_CANDIDATES]
        if request.kind is DecisionKind.PLANT_SECOND and PASS in ranked:
            # The heuristic keeps the card unless planting it grows a field at no loss (trader bot).
            plants = [a for a in ranked if not isinstance(a, Pass)]
            if plants:
                top = plants[0]
                keep = self.plant_score(view, PASS)
                value = self.plant_score(view, top)
                grows = view.fields[view.seat][top.field].bean is view.hand[0]
                first: Planting = PASS if value < keep - 1e-9 or (value <= keep + 1e-9 and not grows) else top
                ranked.remove(first)
                ranked.insert(0, first)
        candidates: list[Candidate] = [(a, applying(a)) for a in ranked]
        return self.search(request, candidates, view, request.kind)

    # ------------------------------------------------------------ trading, active player
    def trade_offer(self, request: Request) -> Action:
        self.observe(request)
        action = self.heuristic_offer(request)
        self.last_offer = action if isinstance(action, Offer) and action.want else None
        return action

    def my_offer(self, view: View) -> Offer:
        """This round's own offer with its positions (remembered, or found again by bean)."""
        offer = open_offer(view)
        if self.last_offer is not None:
            mine = tuple(view.hand[i] for i in self.last_offer.give_hand) + \
                tuple(view.trade_areas[view.seat][i].bean for i in self.last_offer.give_trade)
            if sorted(b.value for b in mine) == sorted(b.value for b in offer.give):
                return self.last_offer
        return self.locate_offer(view, view.seat, offer)[0]

    def locate_offer(self, view: View, seat: int, offer: OfferView) -> tuple[Offer, list[Bean]]:
        """Positions for an offer of ``seat`` known by beans: its trading area first, then its hand
        (the viewer's hand; for another seat the sampled hand is searched at replay time)."""
        area = [(i, c.bean) for i, c in enumerate(view.trade_areas[seat]) if not c.locked]
        give_trade: list[int] = []
        from_hand: list[Bean] = []
        for bean in offer.give:
            hit = next((i for i, b in area if b is bean and i not in give_trade), None)
            if hit is None:
                from_hand.append(bean)
            else:
                give_trade.append(hit)
        give_hand: list[int] = []
        if seat == view.seat:
            for bean in from_hand:
                give_hand.append(next(i for i, b in enumerate(view.hand) if b is bean and i not in give_hand))
        return Offer(give_hand=tuple(give_hand), give_trade=tuple(give_trade), want=offer.want, to=offer.to), from_hand

    def trade_confirm(self, request: Request) -> Action:
        self.observe(request)
        view = request.classic_view
        trade = trading(view)
        me = view.seat
        start = self.round_start(view)
        candidates: list[Candidate] = [(PASS, applying(END))]
        confirms: list[Confirm] = []
        for action in request.options_of(Confirm):
            response = trade.responses[action.response]
            seat = response.seat
            if response.accept:
                offer = self.my_offer(view)

                def accepted(g: ClassicGame, offer: Offer = offer, seat: int = seat,
                             want: tuple[Bean, ...] = open_offer(view).want) -> None:
                    g.apply(offer)
                    while g.phase is DecisionKind.TRADE_RESPOND:
                        if g.to_move == seat:
                            g.apply(Accept(cards(g.seats[seat].hand, want)))
                        else:
                            g.apply(PASS)
                    g.apply(Confirm(0))
                candidates.append((action, accepted))
            else:
                action = self.cheapest_payment(view, action, response)

                def countered(g: ClassicGame, action: Confirm = action, response: OfferView = response,
                              seat: int = seat) -> None:
                    g.apply(PASS)
                    while g.phase is DecisionKind.TRADE_RESPOND:
                        if g.to_move == seat:
                            g.apply(Offer(give_hand=cards(g.seats[seat].hand, response.give),
                                          want=response.want, to=me))
                        else:
                            g.apply(PASS)
                    g.apply(Confirm(0, action.give_hand, action.give_trade))
                candidates.append((action, countered))
            confirms.append(action)
        first = self.heuristic_confirm(view, confirms)
        candidates.sort(key=lambda c: c[0] != first)
        return self.search(request, candidates, start, DecisionKind.TRADE_OFFER, self.shown_cards(view))

    def heuristic_confirm(self, view: View, confirms: list[Confirm]) -> Action:
        """The trader bot's choice: the deal with the best own gain net of a share of the partner's."""
        trade = trading(view)
        base = self.value(view)
        best: Action = PASS
        best_gain = ACCEPT_MARGIN
        for action in confirms:
            response = trade.responses[action.response]
            if response.accept:
                offer = self.my_offer(view)
                hand = without(view.hand, offer.give_hand)
                area = without(self.trade_beans(view), offer.give_trade)
                partner = self.partner_gain(view, response.seat, open_offer(view).give)
            else:
                hand = without(view.hand, action.give_hand)
                area = without(self.trade_beans(view), action.give_trade)
                partner = self.partner_gain(view, response.seat, response.want)
            gain = position_value(self.rules, self.fields(view), hand, area + response.give) - base
            net = gain - PARTNER_SHARE * max(partner, 0.0)
            if net > best_gain:
                best, best_gain = action, net
        return best

    def cheapest_payment(self, view: View, action: Confirm, response: OfferView) -> Confirm:
        area = view.trade_areas[view.seat]
        if len(response.want) != 1:
            return action
        b = response.want[0]
        candidates = [Confirm(action.response, (), (i,)) for i, c in enumerate(area)
                      if c.bean is b and not c.locked] + \
                     [Confirm(action.response, (i,), ()) for i, h in enumerate(view.hand) if h is b]
        return max(candidates, key=lambda c: position_value(
            self.rules, self.fields(view), without(view.hand, c.give_hand),
            without(self.trade_beans(view), c.give_trade)))

    # ------------------------------------------------------------ trading, other players
    def trade_respond(self, request: Request) -> Action:
        self.observe(request)
        view = request.classic_view
        trade = trading(view)
        me, active = view.seat, view.active
        start = self.round_start(view)
        candidates: list[Candidate] = [(PASS, applying(END))]
        accept = next(iter(request.options_of(Accept)), None)
        if accept is not None and trade.offer is not None:
            pay = self.cheapest_hand(view, trade.offer.want)
            offer, from_hand = self.locate_offer(view, active, trade.offer)

            def play_accept(g: ClassicGame, offer: Offer = offer, from_hand: list[Bean] = from_hand,
                            pay: tuple[int, ...] = pay) -> None:
                hand = find_cards(g.seats[active].hand, from_hand) or ()
                g.apply(replace(offer, give_hand=hand))
                while g.phase is DecisionKind.TRADE_RESPOND:
                    g.apply(Accept(pay) if g.to_move == me else PASS)
                g.apply(Confirm(0))
            candidates.append((Accept(give_hand=pay), play_accept))
        for i in self.hand_liabilities(view)[:2]:
            def play_gift(g: ClassicGame, i: int = i) -> None:
                g.apply(PASS)
                while g.phase is DecisionKind.TRADE_RESPOND:
                    g.apply(Offer(give_hand=(i,), want=(), to=active) if g.to_move == me else PASS)
            candidates.append((Offer(give_hand=(i,), want=(), to=active), play_gift))
        # The trader bot's order of preference: a good acceptance, else a counter-offer (which the
        # search cannot judge: it is the "pass" candidate), else a gift of a liability in later rounds.
        base = self.value(view)
        counter = self.counter_offer(view, base)
        first: Action = PASS
        if len(candidates) > 1 and isinstance(candidates[1][0], Accept):
            accept, offered = candidates[1][0], open_offer(view)
            gain = self.value(view, hand=without(view.hand, accept.give_hand),
                              trade=self.trade_beans(view) + offered.give) - base
            if gain - PARTNER_SHARE * max(self.partner_gain(view, active, offered.want), 0.0) > ACCEPT_MARGIN:
                first = accept
        if first is PASS and counter is None and trade.round >= 1:
            first = next((a for a, _ in candidates if isinstance(a, Offer)), PASS)
        candidates.sort(key=lambda c: c[0] != first)
        choice = self.search(request, candidates, start, DecisionKind.TRADE_OFFER, self.shown_cards(view))
        if isinstance(choice, Pass):
            if counter is not None:
                return counter
        return choice

    def cheapest_hand(self, view: View, want: tuple[Bean, ...]) -> tuple[int, ...]:
        taken: list[int] = []
        for bean in want:
            choices = [i for i, b in enumerate(view.hand) if b is bean and i not in taken]
            taken.append(max(choices, key=lambda i: (self.value(view, hand=without(view.hand, taken + [i])), -i)))
        return tuple(taken)
