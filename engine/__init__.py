"""Pure Bohnanza rules engine: card data, rules, state machine, views, replays. No I/O but reading card data."""
from __future__ import annotations

from engine.actions import (
    ACTION_TYPES, Accept, Action, BuyField, Confirm, Decision, DecisionKind, EndTrading, Harvest, Offer,
    Pass, Plant, PlantTraded, action_from_json, action_to_json,
)
from engine.cards import Bean, BeanType
from engine.classic import ClassicGame
from engine.errors import GameOverError, IllegalAction
from engine.events import Event, event_from_json, event_to_json
from engine.results import GameResult, rank_by_coins
from engine.rules import Rules, classic_rules, rules_for
from engine.views import View

__all__ = [
    "ACTION_TYPES", "Accept", "Action", "Bean", "BeanType", "BuyField", "ClassicGame", "Confirm", "Decision",
    "DecisionKind", "EndTrading", "Event", "GameOverError", "GameResult", "Harvest", "IllegalAction", "Offer",
    "Pass", "Plant", "PlantTraded", "Rules", "View", "action_from_json", "action_to_json", "classic_rules",
    "event_from_json", "event_to_json", "new_game", "rank_by_coins", "rules_for",
]


def new_game(rules: Rules, players: int, seed: int) -> ClassicGame:
    """A new game of ``rules`` for ``players`` seats, dealt from ``seed``."""
    if rules.variant == "classic":
        return ClassicGame(rules, players, seed)
    raise ValueError(f"no engine for variant {rules.variant!r}")
