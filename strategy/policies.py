"""The example bots' policies, played directly on an engine state.

``random_action`` picks uniformly among the options (now and then a random offer);
``princes_greedy_action`` is the example policy of the Princes variants (bench/princes.py) and
``PrincesExampleMoves`` hands an SDK bot's duel and solo decisions to it; ``rollout_action`` and
``playout`` are the search bot's fast playouts. The forfeit policy is the referee's:
``engine.defaults.default_action``.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Protocol, Sequence

from engine.actions import (
    Action, BuyField, ClaimTask, Decision, DecisionKind, DiscardHand, DiscardMiddle, EndTrading, Harvest, Offer,
    Pass, PayTribute, Plant, PlantMiddle, PlantTraded,
)
from engine.cards import Bean
from engine.rules import Rules
from engine.views import PrincesView, View
from strategy.valuation import field_worth

if TYPE_CHECKING:
    from engine.classic import ClassicGame, SeatState
    from engine.game import Game, TableSeat
    from engine.princes import PrincesGame

_FREE = (Harvest, BuyField, PayTribute)  # actions after which the same seat decides again
_FREE_TYPES = frozenset(_FREE)
_PASS, _END_TRADING = Pass(), EndTrading()
_TRADE_OFFER, _TRADE_RESPOND = DecisionKind.TRADE_OFFER, DecisionKind.TRADE_RESPOND  # class lookups of members are slow
_Random = random.Random


def _pending(game: Game[TableSeat]) -> Decision:
    """The decision a policy answers (a policy is never asked once the game is over)."""
    decision = game.decision
    assert decision is not None, "the game is over"
    return decision


def random_action(game: Game[TableSeat], rng: random.Random, offer_rate: float = 0.2) -> Action:
    """A uniformly random option that is not a free action (unless there is no other); now and then a random
    offer while trading. The engine lists the free actions last (tests/engine/test_options_order.py), so the
    choosable options are a prefix of the options: no list is made. Each draw is that of ``rng.randrange``."""
    decision = game.decision  # ``_pending`` inlined: this runs in every benchmark's loop
    assert decision is not None, "the game is over"
    options = decision.options
    n = len(options)
    while n and type(options[n - 1]) in _FREE_TYPES:
        n -= 1
    if not n:
        n = len(options)
    kind = decision.kind
    if (kind is _TRADE_OFFER or kind is _TRADE_RESPOND) and rng.random() < offer_rate:
        offer = _random_offer(_classic(game), rng)
        if offer is not None:
            return offer
    if type(rng) is not _Random:
        return options[rng.randrange(n)]
    k = n.bit_length()  # _below, inlined
    getrandbits = rng.getrandbits
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return options[r]


def _below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n > 0``: the same draw (the algorithm of ``random.Random``), two calls fewer."""
    if type(rng) is not _Random:
        return rng.randrange(n)
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


_CLASSIC: list[type[ClassicGame]] = []  # the classic game's class, once it was first asked for


def _classic(game: Game[TableSeat]) -> ClassicGame:
    """``game`` as a classic game: only the classic game trades, and its module is loaded by then."""
    if not _CLASSIC:
        from engine.classic import ClassicGame

        _CLASSIC.append(ClassicGame)
    assert isinstance(game, _CLASSIC[0]), game
    return game


def _random_offer(game: ClassicGame, rng: random.Random) -> Offer | None:
    """A random offer of the seat to move, or ``None`` when it would give and want nothing. The draws, in
    order: one ``random()`` per hand card (given at 1/4), one per untraded trading-area card of the active
    seat (1/2), the number of beans wanted (``randrange(3)``) and each of them (``choice``), the partner."""
    seat = game.to_move
    s = game.seats[seat]
    active = seat == game.active
    draw = rng.random
    give_hand = tuple([i for i in range(len(s.hand)) if draw() < 0.25])
    if active:
        give_trade = tuple([i for i, locked in enumerate(s.trade_locked) if not locked and draw() < 0.5])
    else:
        give_trade = ()
    rules = game.rules
    beans = rules.beans  # below: rng.choice and rng.randrange(0, 3), the same draws
    wanted = _below(rng, 3)
    want = tuple([beans[_below(rng, len(beans))] for _ in range(wanted)]) if wanted else ()
    if not (give_hand or give_trade or want):
        return None
    to: int | None
    if active:
        others: list[int | None] = [p for p in range(game.players) if p != seat]
        if want:
            others.append(None)
        to = others[_below(rng, len(others))]
    else:
        to = game.active
    if rules.bounded_offers:
        want = want[: game.payable(seat, to)]  # C-6.9
        if not (give_hand or give_trade or want):
            return None
    return Offer(give_hand, give_trade, want, to)


# ----------------------------------------------------------------- Princes (duel, solo)
def _plant_value(game: Game[TableSeat], seat: int, bean: Bean, field: int, count: int) -> float:
    """How good planting ``count`` ``bean`` into own ``field`` is: growing a field is best, an empty
    field next, cashing in another kind costs the beans that do not become gold."""
    s = game.seats[seat]
    current = s.field_beans[field]
    if current is bean:
        return 2.0 + 0.1 * s.field_counts[field]
    if current is None:
        return 1.0
    n = s.field_counts[field]
    return -float(n - game.rules.coins_for(current, n))


def _heuristic(game: PrincesGame, seat: int, action: Action) -> float:
    s = game.seats[seat]
    if isinstance(action, Plant):
        return _plant_value(game, seat, s.hand[0], action.field, 1)
    if isinstance(action, PlantMiddle):
        value = _plant_value(game, seat, action.bean, action.field, game.middle[action.bean])
        return value if value > 0 else value - 1.0
    if isinstance(action, DiscardHand):  # only the front card, and only if planting it would cost beans
        if action.card != 0 or game.phase is not DecisionKind.PLANT_FIRST:
            return -1.0
        bean = s.hand[0]
        best = max(_plant_value(game, seat, bean, f, 1) for f in range(len(s.field_beans)))
        return 0.5 if best < 0 else -1.0
    if isinstance(action, DiscardMiddle):
        return 0.0
    if isinstance(action, Harvest):
        n = s.field_counts[action.field]
        return -float(n - _harvest_coins(game.rules, s, action.field)) - 0.5
    if isinstance(action, BuyField):
        return -1.0
    return 0.0  # Pass


def _harvest_coins(rules: Rules, s: TableSeat, field: int) -> int:
    """What cashing in the planted ``field`` of ``s`` pays now."""
    bean = s.field_beans[field]
    assert bean is not None, field  # only a planted field is offered for harvest
    return rules.coins_for(bean, s.field_counts[field])


def _claims_after(game: PrincesGame, action: Action, rng: random.Random) -> int:
    """Tasks claimable in a row right after ``action`` in a copy whose supply is reshuffled (no peeking)."""
    trial = game.clone(shuffle=rng)
    seat, turn = trial.active, trial.turn
    trial.apply(action)
    claims = 0
    while not trial.over and trial.turn == turn and trial.can_claim(seat):
        trial.apply(ClaimTask())
        claims += 1
    return claims + (5 if trial.over and trial.end_reason == "castle" and trial.active == seat else 0)


def princes_greedy_action(game: PrincesGame, rng: random.Random, tribute_reserve: int | None = None) -> Action:
    """The example policy of the Princes variants: claim every task it can; otherwise the option after
    which most tasks can be claimed (one sampled look-ahead), ties broken by a planting heuristic; pay
    tribute at the end of its turn when the gold above ``tribute_reserve`` closes the gap (solo: to violet's
    next step, and only once red is near the Castle; duel: to one card ahead of the opponent). The default
    reserve is 0 in solo (gold for the Castle is harvested at its door) and the Castle's price in the duel."""
    decision = _pending(game)
    options = decision.options
    seat = decision.seat
    s = game.seats[seat]
    princes = game.princes
    if ClaimTask() in options:
        return ClaimTask()
    if game.castle - s.position == 1:  # only the Castle is left: gather the gold it needs
        cash = [a for a in options if isinstance(a, Harvest)
                and _harvest_coins(game.rules, s, a.field) > 0]
        if cash:
            return max(cash, key=lambda a: s.field_counts[a.field])
    reserve = tribute_reserve if tribute_reserve is not None else 0 if game.solo else princes.castle_gold
    if decision.kind is DecisionKind.KEEP_MIDDLE and PayTribute() in options and _tribute_pays(game, seat, reserve):
        if not any(isinstance(a, PlantMiddle) and _heuristic(game, seat, a) > 0 for a in options):
            return PayTribute()
    candidates = [a for a in options if not isinstance(a, (ClaimTask, PayTribute))]
    best, best_score = candidates[0], float("-inf")
    for action in candidates:
        score = _heuristic(game, seat, action)
        if score > -5 or not isinstance(action, (Harvest, BuyField)):
            score += 10.0 * _claims_after(game, action, rng)
        if isinstance(action, (Harvest, BuyField)) and score < 5:
            continue  # a free action is only worth it when it unlocks a task
        if score > best_score:
            best, best_score = action, score
    return best


RED_SLACK = 3  # solo: pay tribute against red only when it has at most this many harmless steps left


def _tribute_pays(game: PrincesGame, seat: int, reserve: int) -> bool:
    """Pay one tribute if the gold above ``reserve`` closes the gap: solo, up to violet's next step (so
    that red does not move); duel, up to one card ahead of the opponent."""
    s = game.seats[seat]
    price = game.princes.tribute_price
    spare = (s.coins - reserve) // price
    if spare <= 0:
        return False
    if game.solo:
        p = game.princes
        if game.castle - 1 - game.red > RED_SLACK:
            return False  # red may still move without reaching the Castle: keep the gold
        row = max(game.violet - 1, 0) // p.row_length
        target = min(game.castle - 1, game.violet + p.violet_steps[min(row, p.rows - 1)])
    else:
        target = min(game.castle - 1, 1 + max(o.position for i, o in enumerate(game.seats) if i != seat))
    gap = target - s.position
    return 0 < gap <= spare


def princes_example_move(rules: Rules, view: PrincesView, options: Sequence[Action], events: Sequence[object],
                         rng: random.Random, discard: list[Bean]) -> Action:
    """How the example bots play any duel or solo decision: follow the discard pile from the public
    ``events`` (kept in ``discard`` across calls), guess what the view hides once, pay a tribute with
    the gold beyond what the Castle needs, else ``princes_greedy_action`` on the guess (an option of
    ``options``, else the first)."""
    from strategy.determinize import build_princes_game, follow_princes_discard

    follow_princes_discard(discard, events)
    game = build_princes_game(rules, view, rng, discard)
    if ClaimTask() not in options and PayTribute() in options and rules.spare_tribute(view.coins):
        return PayTribute()  # gold beyond what the Castle needs buys progress
    action = princes_greedy_action(game, rng)
    return action if action in options else options[0]


class PrincesRequest(Protocol):
    """What ``PrincesExampleMoves`` reads of a decision (the SDK's ``Request`` has it)."""

    @property
    def view(self) -> View | PrincesView: ...
    @property
    def options(self) -> tuple[Action, ...]: ...
    @property
    def events(self) -> Sequence[object]: ...


class PrincesExampleMoves:
    """Every decision of the duel and solo games by ``princes_example_move``, with the discard pile followed
    across them. An SDK bot names this class as its ``princes_moves``: the SDK makes one per such game."""

    def __init__(self, rules: Rules, rng: random.Random) -> None:
        self.rules, self.rng = rules, rng
        self.discard: list[Bean] = []

    def move(self, request: PrincesRequest) -> Action:
        """Any decision of the duel or solo game: the example policy on one guess of the hidden cards."""
        view = request.view
        if not isinstance(view, PrincesView):
            raise TypeError(f"not a decision of the duel or solo game: {view.rules_id!r}")
        return princes_example_move(self.rules, view, request.options, request.events, self.rng, self.discard)

    plant_first = plant_second = take_middle = discard_hand = keep_middle = move


# ------------------------------------------------------------------ playouts (the search bot's)
_TABLES: dict[str, dict[Bean, list[int]]] = {}


def _coin_table(rules: Rules) -> dict[Bean, list[int]]:
    """``table[bean][n]``: coins for a field of ``n`` beans (a lookup is cheaper than the beanometer)."""
    table = _TABLES.get(rules.id)
    if table is None:
        table = _TABLES[rules.id] = {t.bean: [t.coins_for(n) for n in range(t.count + 1)] for t in rules.bean_types}
    return table


def _rollout_field(game: ClassicGame, s: SeatState, bean: Bean) -> int:
    """Where a playout plants ``bean``: a field of the same bean (the fullest), else an empty one,
    else the legal field (C-4.2) whose cash-in wastes the fewest beans."""
    beans, counts = s.field_beans, s.field_counts
    table = _coin_table(game.rules)
    best, best_key = 0, None
    key: tuple[int, int]
    lone_blocked = any(c > 1 for c in counts)
    for i, b in enumerate(beans):
        if b is bean:
            key = (0, -counts[i])
        elif b is None:
            key = (1, 0)
        elif counts[i] > 1 or not lone_blocked:
            key = (2, counts[i] - 10 * table[b][counts[i]])
        else:
            continue
        if best_key is None or key < best_key:
            best, best_key = i, key
    return best


def rollout_action(game: ClassicGame) -> Action:
    """The fast policy every seat follows in a playout; it reads the engine state directly and
    never lists options: plant where it loses least, plant a second card only onto its own kind,
    buy the third field in the first pass through the deck, never trade."""
    phase = game.phase
    s = game.seats[game.to_move]
    if phase is DecisionKind.PLANT_FIRST:
        rules = game.rules
        if len(s.field_beans) < rules.max_fields and len(s.treasury) >= rules.field_price and game.reshuffles == 0:
            return BuyField()
        return Plant(_rollout_field(game, s, s.hand[0]))
    if phase is DecisionKind.PLANT_SECOND:
        bean = s.hand[0]
        for i, b in enumerate(s.field_beans):
            if b is bean:
                return Plant(i)
        return _PASS
    if phase is DecisionKind.PLANT_TRADED:
        return PlantTraded(0, _rollout_field(game, s, s.trade[0]))
    if phase is DecisionKind.TRADE_OFFER:
        return _END_TRADING
    return _PASS


def playout(game: ClassicGame, me: int, turns: int | None) -> float:
    """Play ``turns`` more turns (``None``: to the end); own score minus the best other seat's,
    where a seat's score is its coins plus what its fields would pay (``field_worth``) if the
    playout stopped early."""
    stop = None if turns is None else game.turn + turns
    while not game.over and (stop is None or game.turn < stop):
        game.apply(rollout_action(game))
    if game.over:
        assert game.result is not None  # every game that is over has its result
        coins = game.result.coins
        return coins[me] - max(c for s, c in enumerate(coins) if s != me)
    rules = game.rules
    scores = [len(s.treasury) + sum(field_worth(rules, b, n) for b, n in zip(s.field_beans, s.field_counts))
              for s in game.seats]
    return scores[me] - max(v for s, v in enumerate(scores) if s != me)
