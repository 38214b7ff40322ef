"""Hostile (legal play): one half of a colluding pair, appended to the trader bot's source.

Two bots entered under two authors. The ``partner`` plays the trader and, whenever it opens a trading
round as the active player, first begs everybody for two cards of one bean while giving nothing: a
signature no example bot makes. The ``feeder`` plays the trader until it has seen that signature at
its table; from then on it feeds the seat that made it with consenting gifts: as the active player it
gives the partner every card it holds that grows one of the partner's fields, and when the partner is
active it offers the same as a gift in answer. The partner takes them as any trader takes a gift that
helps it. Every move is legal. The audit (arena/audit/stats.py) must flag the pair. A ``kingmaker`` plays the trader
but, whenever another seat is active, offers it its whole hand as a gift: the audit names it a giver.
A ``teamfeeder`` is one of several feeders entered under several authors for one partner (Sybil accounts):
each feeds in about a third of its games only, so that no pair of the team stands out on its own, and the
audit's team test must name the partner and its givers. Their ``teampartner`` begs as the partner does but
never takes what its beg brings (an honest bot that accepts it gives nothing): the beg is a signature only,
so that all the partner gets beyond fair trades comes from its team.

``tests/arena/arena_helpers.py`` and ``bench/audit.py`` build a bot as ``colluder_source(ROLE)``: the
trader's source, its class no longer the entry point, then this file with ``ROLE`` set.
"""

from sandbox.sdk import Confirm, Offer, Request  # the trader's source imports them too; here so the file reads alone

ROLE = "feeder"  # or "partner"; "sometimes": a feeder that feeds in about a third of its games only,
#                  to keep its mean gift under the audit's margin; "kingmaker": gives its whole hand to
#                  whoever is active, every turn; "teamfeeder": one of a team of feeders (three authors,
#                  one partner), each feeding in about a third of its games; "teampartner": their partner
SIGN_BEAN = "garden"  # what the partner begs for (two of them, for nothing)


class Colluder(TraderBot):  # noqa: F821  (TraderBot: the source this is appended to)
    __bohnanza_bot__ = True

    def __init__(self):
        super().__init__()
        self.partners = set()
        self.feeding = None  # decided once a game, from the bot's own seed

    def feeds(self):
        if self.feeding is None:
            share = {"feeder": 1.0, "sometimes": 0.35, "teamfeeder": 1 / 3}.get(ROLE, 0.0)
            self.feeding = share >= 1.0 or (share > 0.0 and self.rng.random() < share)
        return self.feeding

    def watch(self, request):
        for event in request.events:
            if (type(event).__name__ == "Offered" and event.to is None and not event.give
                    and len(event.want) == 2 and all(b.value == SIGN_BEAN for b in event.want)):
                self.partners.add(event.seat)

    def grows(self, view, seat, bean):
        return any(f.bean is bean or f.bean is None for f in view.fields[seat])

    def feed(self, view, seat, hand_only):
        hand = tuple(i for i, b in enumerate(view.hand) if self.grows(view, seat, b))
        trade = () if hand_only else tuple(
            i for i, c in enumerate(view.trade_areas[view.seat]) if not c.locked and self.grows(view, seat, c.bean))
        return hand, trade

    def trade_offer(self, request):
        self.watch(request)
        view = request.view
        if ROLE in ("partner", "teampartner") and view.trade is not None and view.trade.round == 0:
            if max(view.hand_sizes[k] for k in range(view.players) if k != view.seat) >= 2:
                return Offer(want=tuple(b for b in self.rules.beans if b.value == SIGN_BEAN) * 2)
        if self.feeds() and self.partners:
            seat = min(self.partners)
            hand, trade = self.feed(view, seat, hand_only=False)
            if hand or trade:
                return Offer(give_hand=hand, give_trade=trade, to=seat)
        return super().trade_offer(request)

    def trade_respond(self, request):
        self.watch(request)
        view = request.view
        if ROLE == "kingmaker" and view.hand:
            return Offer(give_hand=tuple(range(len(view.hand))))
        if self.feeds() and view.active in self.partners:
            hand, _ = self.feed(view, view.active, hand_only=True)
            if hand:
                return Offer(give_hand=hand)
        return super().trade_respond(request)

    def trade_confirm(self, request):
        self.watch(request)
        trade = request.view.trade
        offer = trade.offer if trade is not None else None
        if (ROLE == "teampartner" and offer is not None and not offer.give
                and offer.want and all(b.value == SIGN_BEAN for b in offer.want)):
            # the beg was a signature: only a gift offered in answer (a response that is an offer) is taken
            options = tuple(a for a in request.options
                            if not isinstance(a, Confirm) or not trade.responses[a.response].accept)
            request = Request(request.id, request.kind, request.view, request.events, options, request.time_left_ms)
        return super().trade_confirm(request)

    def plant_first(self, request):
        self.watch(request)
        return super().plant_first(request)

    def plant_second(self, request):
        self.watch(request)
        return super().plant_second(request)

    def plant_traded(self, request):
        self.watch(request)
        return super().plant_traded(request)
