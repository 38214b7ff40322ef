"""Linear bot: a policy trained through the PettingZoo environment (training/, docs/training.md), weights in the file.

What it teaches:
- **From training to the ladder in one file.** ``bench/train_linear.py`` tuned ``WEIGHTS`` by a black-box search
  (coordinate search on games against two greedy bots, seated in-process by ``training.gym_env``); this file is
  what was trained, and it is submitted like any bot (``arena submit docs/examples/linear_bot.py``).
- **Score every legal option, take the best.** Each candidate (the engine's options, plus at the opening of
  trading the offers of the environment's offer slots) gets a feature vector (``FEATURES``); the score is its
  dot product with ``WEIGHTS``. One feature is "greedy would play this": with every other weight 0 the bot
  *is* the greedy bot, so training started at parity and kept only changes that won more games.
- **Same features in training and play.** The training script imports ``candidates``, ``features`` and
  ``choose`` from this file, so the policy it tuned is exactly the one that plays here.

The duel and solo are played by the example Princes policy (``PrincesExampleMoves``), as the greedy bot does.
"""
from __future__ import annotations

from typing import Sequence

from engine.offer_check import offer_problem
from sandbox.sdk import (
    Accept, Action, Bean, BuyField, Confirm, DecisionKind, EndTrading, Harvest, Offer, Pass, Plant, PlantTraded,
    Request, Rules, View, field_coins, plant_loss,
)
from sandbox.sdk import Bot
from strategy.policies import PrincesExampleMoves

FEATURES = (
    "greedy",          # 1 when the greedy bot would play this option
    "plant_gain",      # minus the SDK's plant_loss of a planting, / 5
    "grows",           # a planting onto beans of its own kind
    "empty",           # a planting into an empty field
    "destroys",        # beans of a field cashed in for a planting that become no coins, / 5
    "coins_after",     # what the planted field is worth after the planting, / 4
    "pass_second",     # passing on the second planting
    "harvest_gain",    # a harvest: coins it pays minus beans it wastes, / 5
    "buy_field",       # buying the third field
    "end_trading",     # closing trading
    "offer",           # an offer
    "offer_cards",     # the cards an offer gives, / 3
    "accept_net",      # an acceptance: received cards that grow a field minus paid cards that do
    "confirm",         # closing a deal
    "late_harvest",    # harvest_gain once the deck was reshuffled
    "trade_pass",      # passing in a trading round
)
# trained by ``python3 bench/train_linear.py coordinate --rounds 3 --deals 20 --seed 1 --step 2`` (5,520 games);
# what the search kept: accept an offer when it brings more beans that grow a field than it costs (accept_net)
WEIGHTS: tuple[float, ...] = (
    1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0,
)
FIELDS = 3  # the environment's offer slots: trade card 0 or 1, or every homeless card, for a field's bean


def _growing(view: View) -> set[Bean]:
    return {f.bean for f in view.fields[view.seat] if f.bean is not None}


def slot_offers(rules: Rules, view: View) -> list[Offer]:
    """The offers the environment's offer slots make at the opening of trading (training/actions.py)."""
    area = view.trade_areas[view.seat]
    growing = _growing(view)
    out: list[Offer] = []
    for card in (0, 1, None):
        for field in range(FIELDS):
            give = tuple(i for i, c in enumerate(area) if not c.locked and c.bean not in growing) if card is None \
                else (card,) if card < len(area) and not area[card].locked else ()
            fields = view.fields[view.seat]
            bean = fields[field].bean if field < len(fields) else None
            if give and bean is not None:
                offer = Offer(give_trade=give, want=(bean,))
                if offer_problem(rules, view, DecisionKind.TRADE_OFFER, offer) is None and offer not in out:
                    out.append(offer)
    return out


def candidates(rules: Rules, view: View, kind: DecisionKind, options: Sequence[Action]) -> list[Action]:
    """What the bot chooses among: the options, plus the slot offers when trading opens."""
    out = list(options)
    if kind is DecisionKind.TRADE_OFFER and view.trade is not None and view.trade.round == 0:
        out += [o for o in slot_offers(rules, view) if o not in out]
    return out


def greedy_choice(rules: Rules, view: View, kind: DecisionKind, options: Sequence[Action]) -> Action:
    """What bots/greedy_bot.py plays at this decision."""
    growing = _growing(view)
    empty = any(f.bean is None for f in view.fields[view.seat])
    plants = [a for a in options if isinstance(a, (Plant, PlantTraded))]

    def loss(a: Plant | PlantTraded) -> float:
        bean = view.hand[0] if isinstance(a, Plant) else view.trade_areas[view.seat][a.card].bean
        return plant_loss(rules, view, a.field, bean)

    if kind in (DecisionKind.PLANT_FIRST, DecisionKind.PLANT_TRADED):
        return min(plants, key=loss) if plants else options[0]
    if kind is DecisionKind.PLANT_SECOND:
        if plants and (view.hand[0] in growing or empty):
            return min(plants, key=loss)
        return Pass()
    trade = view.trade
    if kind is DecisionKind.TRADE_OFFER:
        if trade is None or trade.round > 0 or not growing or empty:
            return EndTrading()
        homeless = tuple(i for i, c in enumerate(view.trade_areas[view.seat]) if not c.locked and c.bean not in growing)
        if not homeless:
            return EndTrading()
        return Offer(give_trade=homeless, want=(max(growing, key=lambda b: b.value),))
    if kind is DecisionKind.TRADE_RESPOND:
        accept = next((a for a in options if isinstance(a, Accept)), None)
        offer = trade.offer if trade else None
        if accept is not None and offer is not None and all(b in growing for b in offer.give) \
                and not any(b in growing for b in offer.want):
            return accept
        return Pass()
    if kind is DecisionKind.TRADE_CONFIRM and trade is not None:
        for a in options:
            if isinstance(a, Confirm) and trade.responses[a.response].accept:
                return a
    return Pass()


def features(rules: Rules, view: View, kind: DecisionKind, action: Action, greedy: Action) -> list[float]:
    """The feature vector of one candidate (``FEATURES`` names each)."""
    f = [0.0] * len(FEATURES)
    f[0] = 1.0 if action == greedy else 0.0
    mine = view.fields[view.seat]
    if isinstance(action, (Plant, PlantTraded)):
        bean = view.hand[0] if isinstance(action, Plant) else view.trade_areas[view.seat][action.card].bean
        field = mine[action.field]
        f[1] = -plant_loss(rules, view, action.field, bean) / 5
        f[2] = 1.0 if field.bean is bean else 0.0
        f[3] = 1.0 if field.bean is None else 0.0
        if field.bean is not None and field.bean is not bean:
            f[4] = (field.count - field_coins(rules, field.bean, field.count)) / 5
        after = field.count + 1 if field.bean is bean else 1
        f[5] = field_coins(rules, bean, after) / 4
    elif isinstance(action, Pass):
        f[6] = 1.0 if kind is DecisionKind.PLANT_SECOND else 0.0
        f[15] = 1.0 if kind in (DecisionKind.TRADE_RESPOND, DecisionKind.TRADE_CONFIRM) else 0.0
    elif isinstance(action, Harvest):
        field = mine[action.field]
        coins = field_coins(rules, field.bean, field.count)
        f[7] = (coins - (field.count - coins)) / 5
        f[14] = f[7] if view.reshuffles > 0 else 0.0
    elif isinstance(action, BuyField):
        f[8] = 1.0
    elif isinstance(action, EndTrading):
        f[9] = 1.0
    elif isinstance(action, Offer):
        f[10] = 1.0
        f[11] = (len(action.give_hand) + len(action.give_trade)) / 3
    elif isinstance(action, Accept):
        growing = _growing(view)
        offer = view.trade.offer if view.trade else None
        if offer is not None:
            f[12] = float(sum(b in growing for b in offer.give) - sum(b in growing for b in offer.want))
    elif isinstance(action, Confirm):
        f[13] = 1.0
    return f


def choose(weights: Sequence[float], rules: Rules, view: View, kind: DecisionKind, options: Sequence[Action]) -> Action:
    """The candidate of the highest score (the first of equal ones)."""
    greedy = greedy_choice(rules, view, kind, options)
    best, best_score = options[0], float("-inf")
    for action in candidates(rules, view, kind, options):
        score = sum(w * x for w, x in zip(weights, features(rules, view, kind, action, greedy)))
        if score > best_score:
            best, best_score = action, score
    return best


class LinearBot(Bot):
    princes_moves = PrincesExampleMoves

    def choose(self, request: Request) -> Action:
        return choose(WEIGHTS, self.rules, request.classic_view, request.kind, request.options)

    plant_first = plant_second = trade_offer = trade_respond = trade_confirm = plant_traded = choose
