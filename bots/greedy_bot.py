"""Greedy bot: plants and trades for immediate beanometer value.

What it teaches:
- ``best_plant`` from the SDK picks the field where a bean hurts least: grow a field of the
  same bean, else start an empty field, else cash in the field that loses the fewest beans.
- A second card is planted only when it grows a field or finds an empty one.
- As the active player it offers, to everybody, each turned-up card that has no home in its
  fields, and asks in return for one bean it is already growing. It takes the first acceptance.
- As another player it accepts an offer when every card it would receive grows one of its
  fields and every card it pays is a bean it is not growing.

In the Princes variants (duel, solo) the bot names ``PrincesExampleMoves`` as its ``princes_moves``: the SDK
hands every decision of those games to it. It guesses what its view hides (the other hand, the supply's order,
the discard pile below its top unless it can follow it from the events, face-down vine cards) once with
``strategy.determinize.build_princes_game`` and plays the example policy
``strategy.policies.princes_greedy_action`` on that guess: claim every task it can; otherwise the option
after which most tasks can be claimed (one look-ahead on a copy with the supply reshuffled), ties broken
by where a bean loses least; cash in fields worth gold in front of the Castle; pay tribute when the gold
above a reserve closes the gap to the figure it races (solo: violet's next step once red nears the
Castle; duel: one card ahead of the opponent). On top of the policy, gold beyond what the Castle needs
always buys progress (tribute): without it a duel leader could sit on its gold until the supply ran out.
"""
from __future__ import annotations

from sandbox.sdk import (
    Accept, Action, Bean, Bot, Confirm, EndTrading, Offer, Pass, Request, best_plant,
)
from strategy.policies import PrincesExampleMoves


class GreedyBot(Bot):
    princes_moves = PrincesExampleMoves

    def growing(self, request: Request) -> set[Bean]:
        return {f.bean for f in request.view.fields[request.me] if f.bean is not None}

    def has_empty_field(self, request: Request) -> bool:
        return any(f.bean is None for f in request.view.fields[request.me])

    def plant_second(self, request: Request) -> Action:
        bean = request.view.hand[0]
        if bean in self.growing(request) or self.has_empty_field(request):
            return best_plant(self.rules, request)
        return Pass()

    def trade_offer(self, request: Request) -> Action:
        view = request.classic_view
        trade = view.trade
        growing = self.growing(request)
        if trade is None or trade.round > 0 or not growing:
            return EndTrading()
        homeless = tuple(i for i, card in enumerate(view.trade_areas[view.seat])
                         if not card.locked and card.bean not in growing)
        if not homeless or self.has_empty_field(request):
            return EndTrading()
        wanted = max(growing, key=lambda b: b.value)
        return Offer(give_trade=homeless, want=(wanted,))

    def trade_respond(self, request: Request) -> Action:
        accept = next(iter(request.options_of(Accept)), None)
        trade = request.classic_view.trade
        offer = trade.offer if trade else None
        if accept is None or offer is None:
            return Pass()
        growing = self.growing(request)
        if all(b in growing for b in offer.give) and not any(b in growing for b in offer.want):
            return accept
        return Pass()

    def trade_confirm(self, request: Request) -> Action:
        trade = request.classic_view.trade
        for action in request.options_of(Confirm):
            assert trade is not None  # a deal to confirm is a response of this trading round
            if trade.responses[action.response].accept:
                return action
        return Pass()
