"""Pure Bohnanza rules engine: card data, rules, state machine, views, replays, what a spectator sees. No I/O
but reading card data.

Names are imported lazily (PEP 562), so that a bot importing only ``engine.actions`` does not pay
for the whole engine at start-up inside its sandbox.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "engine.actions": ("ACTION_TYPES", "Accept", "Action", "BuyField", "ClaimTask", "Confirm", "Decision",
                       "DecisionKind", "DiscardHand", "DiscardMiddle", "EndTrading", "Harvest", "Offer", "Pass",
                       "PayTribute", "Plant", "PlantMiddle", "PlantTraded", "action_from_json", "action_to_json"),
    "engine.cards": ("Bean", "BeanType"),
    "engine.classic": ("ClassicGame",),
    "engine.game": ("new_game",),
    "engine.princes": ("PrincesGame",),
    "engine.errors": ("GameOverError", "IllegalAction", "ReplayMismatch"),
    "engine.events": ("Event", "event_from_json", "event_to_json"),
    "engine.results": ("GameResult", "rank_by_coins"),
    "engine.rules": ("PrincesRules", "Rules", "classic_rules", "duel_rules", "rules_for", "solo_rules"),
    "engine.views": ("PrincesView", "View", "view_from_json"),
    "engine.spectator": ("PublicState", "public_state", "replay_steps"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)

if TYPE_CHECKING:  # explicit re-exports (``X as X``): the names a type checker sees here
    from engine.actions import (
        ACTION_TYPES as ACTION_TYPES, Accept as Accept, Action as Action, BuyField as BuyField,
        ClaimTask as ClaimTask, Confirm as Confirm, Decision as Decision, DecisionKind as DecisionKind,
        DiscardHand as DiscardHand, DiscardMiddle as DiscardMiddle, EndTrading as EndTrading, Harvest as Harvest,
        Offer as Offer, Pass as Pass, PayTribute as PayTribute, Plant as Plant, PlantMiddle as PlantMiddle,
        PlantTraded as PlantTraded, action_from_json as action_from_json, action_to_json as action_to_json,
    )
    from engine.cards import Bean as Bean, BeanType as BeanType
    from engine.classic import ClassicGame as ClassicGame
    from engine.game import new_game as new_game
    from engine.princes import PrincesGame as PrincesGame
    from engine.errors import GameOverError as GameOverError, IllegalAction as IllegalAction, \
        ReplayMismatch as ReplayMismatch
    from engine.events import Event as Event, event_from_json as event_from_json, event_to_json as event_to_json
    from engine.results import GameResult as GameResult, rank_by_coins as rank_by_coins
    from engine.rules import (
        PrincesRules as PrincesRules, Rules as Rules, classic_rules as classic_rules, duel_rules as duel_rules,
        rules_for as rules_for, solo_rules as solo_rules,
    )
    from engine.views import PrincesView as PrincesView, View as View, view_from_json as view_from_json
    from engine.spectator import PublicState as PublicState, public_state as public_state, replay_steps as replay_steps


def _load(name: str) -> Any:
    """The exported ``name``, imported from its module the first time it is asked for."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if not TYPE_CHECKING:  # hidden from the type checker, so that it refuses a name engine does not export
    __getattr__ = _load

