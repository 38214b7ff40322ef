"""Keeps every trading round alive without ever closing a deal: as the active player it offers one
card of its hand for one bean and never confirms an answer; as another player it answers every
offer with a counter-offer (one bean for nothing). Everything it says is legal, and each round it
speaks in is not quiet, so before classic-v3 trading ran its full 6 rounds at every turn and the
other seats made two to three times the decisions. MODE "twin" plays the same plants but never
trades: the harmless twin the tests compare with.
"""
from sandbox.sdk import Bot, EndTrading, Offer, Pass

MODE = "grief"


class TradeGriefer(Bot):
    def trade_offer(self, request):
        view = request.view
        if MODE != "grief":
            return EndTrading()
        if not any(view.hand_sizes[s] for s in range(view.players) if s != view.seat):
            return Pass()  # nobody could pay (C-6.9): passing still opens the round to the others
        return Offer(give_hand=(0,) if view.hand else (), give_trade=(), want=(self.asked_for(),), to=None)

    def trade_respond(self, request):
        view = request.view
        active = view.active
        payable = view.hand_sizes[active] + sum(1 for c in view.trade_areas[active] if not c.locked)
        if MODE != "grief" or not payable:
            return Pass()
        return Offer(give_hand=(), give_trade=(), want=(self.asked_for(),), to=active)

    def trade_confirm(self, request):
        return Pass()

    def asked_for(self):
        """The kind with the most cards in the game: the one a partner can most often pay."""
        assert self.rules is not None  # set by the hello
        return max(self.rules.bean_types, key=lambda t: t.count).bean
