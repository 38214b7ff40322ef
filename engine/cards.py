"""Bean types and their beanometers."""
from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .quoting import quote


class Bean(enum.Enum):
    """The bean types of the base game; the value is the wire name, also held as the plain attribute ``wire``
    (``value`` is a property: a hot path reads ``wire``, and keys tables by it: hashing a member is a Python call)."""

    wire: str

    BLUE = "blue"
    CHILI = "chili"
    STINK = "stink"
    GREEN = "green"
    SOY = "soy"
    BLACK_EYED = "black_eyed"
    RED = "red"
    GARDEN = "garden"

    @classmethod
    def parse(cls, text: object) -> Bean:
        try:
            return _BEANS_BY_NAME[text]
        except (KeyError, TypeError):  # TypeError: not hashable, so not a name either
            names = ", ".join(b.value for b in cls)
            raise ValueError(f"unknown bean {quote(text)} (expected one of: {names})") from None


for _bean in Bean:
    _bean.wire = _bean.value
_BEANS_BY_NAME: dict[object, Bean] = {b.value: b for b in Bean}  # what Bean(text) looks up, without its overhead


@dataclass(frozen=True, slots=True)
class BeanType:
    """One bean type: how many cards of it the deck holds and its beanometer."""

    bean: Bean
    name: str
    count: int
    beanometer: tuple[int | None, ...]  # beanometer[k] = beans needed for k+1 coins

    def coins_for(self, beans: int) -> int:
        """Coins a field of ``beans`` cards of this type is worth when cashed in."""
        coins = 0
        for level, needed in enumerate(self.beanometer, start=1):
            if needed is not None and beans >= needed:
                coins = level
        return coins

    def to_json(self) -> dict[str, Any]:
        return {"bean": self.bean.value, "name": self.name, "count": self.count,
                "beanometer": list(self.beanometer)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BeanType:
        try:
            bean = Bean.parse(data["bean"])
            count = int(data["count"])
            meter = tuple(None if v is None else int(v) for v in data["beanometer"])
            name = str(data.get("name", bean.value))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed bean type {data!r}: {exc}") from None
        if count <= 0 or len(meter) != 4:
            raise ValueError(f"malformed bean type {data!r}: needs a positive count and 4 beanometer levels")
        levels = [v for v in meter if v is not None]
        if levels != sorted(set(levels)) or any(v <= 0 for v in levels):
            raise ValueError(f"malformed bean type {data!r}: beanometer must rise strictly")
        return cls(bean, name, count, meter)


def parse_bean_types(text: str) -> tuple[BeanType, ...]:
    """Parse the card data file (see seeds/beans.json)."""
    try:
        data = json.loads(text)
        rows = data["beans"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"card data is not valid: {exc}") from None
    types = tuple(BeanType.from_json(row) for row in rows)
    beans = [t.bean for t in types]
    if len(set(beans)) != len(beans):
        raise ValueError(f"card data lists a bean twice: {[b.value for b in beans]!r}")
    return types


def same_cards(a: Sequence[Bean], b: Sequence[Bean]) -> bool:
    """Whether ``a`` and ``b`` hold the same cards in any order (as ``Counter(a) == Counter(b)``, without hashing)."""
    return len(a) == len(b) and all(a.count(x) == b.count(x) for x in a)


def find_cards(cards: Sequence[Bean | None], want: Sequence[Bean], partial: bool = False) -> tuple[int, ...] | None:
    """Positions of cards matching the multiset ``want`` (earliest first); ``None`` if they are not all
    there, unless ``partial``, which returns the positions of those that are."""
    taken: list[int] = []
    for bean in want:
        for i, card in enumerate(cards):
            if card is bean and i not in taken:
                taken.append(i)
                break
        else:
            if not partial:
                return None
    return tuple(taken)
