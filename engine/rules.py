"""Rules: the constants of a game variant (never its changing state)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Mapping

from engine.cards import Bean, BeanType, parse_bean_types

if TYPE_CHECKING:
    from pathlib import Path


def card_data_path() -> Path:
    """seeds/beans.json of the project (computed lazily: a bot's sandbox has no files)."""
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "seeds" / "beans.json"


@dataclass(frozen=True)
class Rules:
    """Everything fixed for one variant of the game; ``id`` names it in stored results."""

    variant: str
    version: int
    bean_types: tuple[BeanType, ...]
    min_players: int = 3
    max_players: int = 5
    hand_size: int = 5
    turn_up: int = 2
    draw: int = 3
    start_fields: int = 2
    max_fields: int = 3
    field_price: int = 3
    reshuffles: int = 2
    max_trade_rounds: int = 6
    _by_bean: dict[Bean, BeanType] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_bean", {t.bean: t for t in self.bean_types})

    @property
    def id(self) -> str:
        return f"{self.variant}-v{self.version}"

    @property
    def deck_size(self) -> int:
        return sum(t.count for t in self.bean_types)

    @property
    def beans(self) -> tuple[Bean, ...]:
        return tuple(t.bean for t in self.bean_types)

    def bean_type(self, bean: Bean) -> BeanType:
        try:
            return self._by_bean[bean]
        except KeyError:
            raise ValueError(f"bean {bean.value!r} is not part of {self.id}") from None

    def coins_for(self, bean: Bean, beans: int) -> int:
        return self._by_bean[bean].coins_for(beans)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "variant": self.variant, "version": self.version,
            "beans": [t.to_json() for t in self.bean_types],
            "min_players": self.min_players, "max_players": self.max_players,
            "hand_size": self.hand_size, "turn_up": self.turn_up, "draw": self.draw,
            "start_fields": self.start_fields, "max_fields": self.max_fields,
            "field_price": self.field_price, "reshuffles": self.reshuffles,
            "max_trade_rounds": self.max_trade_rounds,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rules:
        try:
            types = tuple(BeanType.from_json(row) for row in data["beans"])
            numbers = {name: int(data[name]) for name in (
                "version", "min_players", "max_players", "hand_size", "turn_up", "draw",
                "start_fields", "max_fields", "field_price", "reshuffles", "max_trade_rounds")}
            return cls(variant=str(data["variant"]), bean_types=types, **numbers)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed rules {str(data)[:200]!r}: missing or wrong field: {exc}") from None


@cache
def classic_rules() -> Rules:
    """The base game of seed 002 for 3-5 players (rules id ``classic-v1``)."""
    return Rules(variant="classic", version=1, bean_types=parse_bean_types(card_data_path().read_text("utf-8")))


VARIANTS = {"classic": classic_rules}


def rules_for(name: str) -> Rules:
    """Rules by variant name or rules id (``classic`` or ``classic-v1``)."""
    for variant, make in VARIANTS.items():
        rules = make()
        if name in (variant, rules.id):
            return rules
    raise ValueError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
