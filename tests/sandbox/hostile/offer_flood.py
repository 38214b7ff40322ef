"""Floods the table with offers: at every trading decision it offers one card for as many beans
as it may ask for. MODE "legal" asks for as many as C-6.9 allows (the partner's hand); MODE "huge"
asks for 5,000 (refused, C-6.9; the line stays under the 64 KiB cap); the tests rewrite MODE.

Before C-6.9 a legal offer could want any number of beans: one game took minutes, its replay
grew to 190 MB and every opponent had to read the flood.
"""
from sandbox.sdk import Bot, Offer

MODE = "legal"


class OfferFlood(Bot):
    def flood(self, request):
        view = request.view
        me = view.seat
        if me == view.active:
            give_trade = tuple(i for i, c in enumerate(view.trade_areas[me]) if not c.locked)[:1]
            give_hand = () if give_trade else tuple(range(len(view.hand)))[:1]
            others = [s for s in range(view.players) if s != me]
            limit = max(view.hand_sizes[s] for s in others)
            to = None
        else:
            give_hand, give_trade = tuple(range(len(view.hand)))[:1], ()
            limit = len(view.hand_sizes) and view.hand_sizes[view.active] + sum(
                1 for c in view.trade_areas[view.active] if not c.locked)
            to = view.active
        count = 5_000 if MODE == "huge" else limit
        if not (give_hand or give_trade) or count < 1:
            return None
        assert self.rules is not None  # set by the hello
        return Offer(give_hand=give_hand, give_trade=give_trade, want=(self.rules.beans[0],) * count, to=to)

    def trade_offer(self, request):
        return self.flood(request) or super().trade_offer(request)

    def trade_respond(self, request):
        return self.flood(request) or super().trade_respond(request)
