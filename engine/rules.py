"""Rules: the constants of a game variant (never its changing state)."""
from __future__ import annotations

import dataclasses

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from engine.cards import Bean, BeanType, parse_bean_types
from engine.results import rank_by_coins
from engine.vine import TASKS

if TYPE_CHECKING:
    from pathlib import Path


def card_data_path() -> Path:
    """seeds/beans.json of the project: next to the engine in a source checkout, else where a built
    wheel installed it (``<prefix>/share/bohnanza-arena``). Looked up lazily: a bot's sandbox has no files."""
    import sys
    from pathlib import Path

    for root in (Path(__file__).resolve().parent.parent, Path(sys.prefix) / "share" / "bohnanza-arena"):
        if (root / "seeds" / "beans.json").is_file():
            return root / "seeds" / "beans.json"
    raise FileNotFoundError(f"seeds/beans.json is neither next to the engine nor in {sys.prefix}/share/bohnanza-arena: "
                            "reinstall bohnanza-arena")


#: the module a bot's sandbox carries the card data in (a sandbox has no files): ``CARD_DATA_MODULE.TEXT``
CARD_DATA_MODULE = "engine._card_data"


def card_data_text() -> str:
    """The text of seeds/beans.json: from the file, or inside a bot's sandbox from the module its
    bundle carries (``card_data_module``)."""
    import importlib

    try:
        return str(importlib.import_module(CARD_DATA_MODULE).TEXT)
    except ImportError:
        return card_data_path().read_text("utf-8")


def card_data_module() -> str:
    """The source of the ``CARD_DATA_MODULE`` a sandbox bundle carries: the card data as one string."""
    return f"TEXT = {card_data_path().read_text('utf-8')!r}\n"


@dataclass(frozen=True)
class PrincesRules:
    """The constants of the Princes variants (duel and solo) that the seed leaves open.

    Each field is an assumption of seeds/princes-rules.md (its id in the comment); the defaults are
    those of ``duel-v1`` and ``solo-v1``.
    """

    solo: bool = False
    tasks: tuple[str, ...] = tuple(TASKS)  # the 28 Vine task cards (ids of engine/vine.py)
    rows: int = 4                           # the vine is laid out in 4 rows ...
    row_length: int = 7                     # ... of 7 cards, the Castle after the last
    tribute_price: int = 1                  # gold paid to pass one task
    castle_gold: int = 5                    # gold needed to enter the Castle (seed: 5)
    vine_face_down: bool = False            # the optional rule; solo always plays it
    visible_ahead: int = 4                  # face-up cards in front of the leading figure
    hand_discards: int = 1                  # hand cards one may discard in phase 1
    violet_steps: tuple[int, ...] = (1, 2, 3, 3)  # S-2: violet's steps per row (seed)
    red_start: int = 21                     # S-3: red starts in front of row 4 (seed)
    neutrals_to_lose: int = 1               # neutral figures in the Castle that end the solo game

    def __post_init__(self) -> None:
        unknown = [t for t in self.tasks if t not in TASKS]
        if unknown:
            raise ValueError(f"unknown vine tasks {unknown!r}")
        if len(self.tasks) != self.rows * self.row_length:
            raise ValueError(f"{len(self.tasks)} tasks do not fill {self.rows} rows of {self.row_length}")
        if len(self.violet_steps) != self.rows or min(self.violet_steps) < 1:
            raise ValueError(f"violet_steps {self.violet_steps!r} needs one positive step per row")
        if self.tribute_price < 1 or self.castle_gold < 0 or self.hand_discards < 0 or self.visible_ahead < 1:
            raise ValueError(f"malformed princes rules {self!r}")
        if not 0 <= self.red_start <= len(self.tasks) or self.neutrals_to_lose not in (1, 2):
            raise ValueError(f"malformed princes rules {self!r}")

    @property
    def cards(self) -> int:
        return len(self.tasks)

    def to_json(self) -> dict[str, Any]:
        return {
            "solo": self.solo, "tasks": [{"id": t, "text": TASKS[t]} for t in self.tasks],
            "rows": self.rows, "row_length": self.row_length, "tribute_price": self.tribute_price,
            "castle_gold": self.castle_gold, "vine_face_down": self.vine_face_down,
            "visible_ahead": self.visible_ahead, "hand_discards": self.hand_discards,
            "violet_steps": list(self.violet_steps), "red_start": self.red_start,
            "neutrals_to_lose": self.neutrals_to_lose,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PrincesRules:
        try:
            numbers: dict[str, Any] = {name: int(data[name]) for name in (
                "rows", "row_length", "tribute_price", "castle_gold", "visible_ahead", "hand_discards",
                "red_start", "neutrals_to_lose")}
            return cls(solo=bool(data["solo"]), tasks=tuple(str(t["id"]) for t in data["tasks"]),
                       vine_face_down=bool(data["vine_face_down"]),
                       violet_steps=tuple(int(v) for v in data["violet_steps"]), **numbers)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed princes rules {str(data)[:200]!r}: {exc}") from None


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
    #: C-6.5 (since classic-v2): a gift is an offer like any other, which its receiver may decline;
    #: classic-v1 forced it on the receiver
    gifts_by_consent: bool = True
    #: C-6.9 (since classic-v2): an offer wants no more cards than its partner could pay
    bounded_offers: bool = True
    #: C-6.7 (since classic-v3): trading ends after this many rounds in a row that closed no deal
    #: (0: no such bound, as in classic-v1 and classic-v2)
    dealless_rounds: int = 2
    princes: PrincesRules | None = None  # the Princes variants' own constants; None for classic
    _by_bean: dict[Bean, BeanType] = field(init=False, repr=False, compare=False, hash=False)
    #: derived tables for the referee's speed: the unshuffled deck, and per bean name the coins of a field
    #: of 0, 1, ... beans up to the top of its beanometer (a name: hashing a ``Bean`` member is a Python call)
    _deck: tuple[Bean, ...] = field(init=False, repr=False, compare=False, hash=False)
    _beans: tuple[Bean, ...] = field(init=False, repr=False, compare=False, hash=False)
    _coins: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_bean", {t.bean: t for t in self.bean_types})
        object.__setattr__(self, "_beans", tuple(t.bean for t in self.bean_types))
        object.__setattr__(self, "_deck", tuple(t.bean for t in self.bean_types for _ in range(t.count)))
        coins = {}
        for t in self.bean_types:
            top = max((v for v in t.beanometer if v is not None), default=0)
            coins[t.bean.wire] = tuple(t.coins_for(n) for n in range(top + 1))
        object.__setattr__(self, "_coins", coins)

    @property
    def id(self) -> str:
        return f"{self.variant}-v{self.version}"

    @property
    def deck_size(self) -> int:
        return sum(t.count for t in self.bean_types)

    @property
    def beans(self) -> tuple[Bean, ...]:
        return self._beans

    def bean_type(self, bean: Bean) -> BeanType:
        try:
            return self._by_bean[bean]
        except KeyError:
            raise ValueError(f"bean {bean.value!r} is not part of {self.id}") from None

    def coins_for(self, bean: Bean, beans: int) -> int:
        table = self._coins[bean.wire]
        if 0 <= beans < len(table):
            return table[beans]
        return self._by_bean[bean].coins_for(beans)

    @property
    def money(self) -> tuple[str, str]:
        """What these rules call a treasury's cards: (one, several)."""
        return ("gold", "gold") if self.princes is not None else ("coin", "coins")

    @property
    def against_the_deck(self) -> bool:
        """Whether a game of these rules is won or lost by one player (the solitaire game), not ranked."""
        return self.princes is not None and self.princes.solo

    @property
    def castle(self) -> int | None:
        """The Castle's position after the vine's cards, in rules with a vine (else None)."""
        return None if self.princes is None else self.princes.cards + 1

    def spare_tribute(self, gold: int) -> bool:
        """Whether ``gold`` pays one tribute and still enters the Castle (never, in rules without tributes)."""
        return self.princes is not None and gold - self.princes.tribute_price >= self.princes.castle_gold

    def final_ranks(self, ranks: Sequence[int] | None, coins: Sequence[int],
                    forfeited: Sequence[int]) -> tuple[int, ...]:
        """The ranks a game records when the seats ``forfeited`` gave up (``ranks``: the engine's, None if
        it did not end): by coins, forfeits last; in the solitaire game the engine's win (1) or loss (2),
        and a forfeit is a loss."""
        if self.against_the_deck:
            if forfeited or ranks is None:
                return (2,) * len(coins)
            return tuple(ranks)
        return rank_by_coins(coins, forfeited)

    def to_json(self) -> dict[str, Any]:
        data = {
            "id": self.id, "variant": self.variant, "version": self.version,
            "beans": [t.to_json() for t in self.bean_types],
            "min_players": self.min_players, "max_players": self.max_players,
            "hand_size": self.hand_size, "turn_up": self.turn_up, "draw": self.draw,
            "start_fields": self.start_fields, "max_fields": self.max_fields,
            "field_price": self.field_price, "reshuffles": self.reshuffles,
            "max_trade_rounds": self.max_trade_rounds,
            "gifts_by_consent": self.gifts_by_consent, "bounded_offers": self.bounded_offers,
        }
        if self.dealless_rounds:  # absent from the JSON of the rules before classic-v3
            data["dealless_rounds"] = self.dealless_rounds
        if self.princes is not None:  # classic's JSON stays exactly as it was
            data["princes"] = self.princes.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rules:
        try:
            types = tuple(BeanType.from_json(row) for row in data["beans"])
            numbers: dict[str, Any] = {name: int(data[name]) for name in (
                "version", "min_players", "max_players", "hand_size", "turn_up", "draw",
                "start_fields", "max_fields", "field_price", "reshuffles", "max_trade_rounds")}
            princes = PrincesRules.from_json(data["princes"]) if data.get("princes") is not None else None
            flags = {name: bool(data.get(name, False)) for name in ("gifts_by_consent", "bounded_offers")}
            return cls(variant=str(data["variant"]), bean_types=types, princes=princes,
                       dealless_rounds=int(data.get("dealless_rounds", 0)), **numbers, **flags)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed rules {str(data)[:200]!r}: missing or wrong field: {exc}") from None


@cache
def classic_rules() -> Rules:
    """The base game of seed 002 for 3-5 players (rules id ``classic-v3``: gifts by consent, bounded
    offers, trading ends after two rounds in a row without a deal)."""
    return Rules(variant="classic", version=3, bean_types=parse_bean_types(card_data_text()))


@cache
def classic_v2_rules() -> Rules:
    """The classic rules ``classic-v2``: no bound on rounds without a deal (up to 6 a turn). Kept so
    that games recorded under them replay; no new game is played with them."""
    return dataclasses.replace(classic_rules(), version=2, dealless_rounds=0)


@cache
def classic_v1_rules() -> Rules:
    """The first classic rules (``classic-v1``): forced gifts, unbounded offers. Kept so that games
    recorded under them replay; no new game is played with them."""
    return dataclasses.replace(classic_rules(), version=1, gifts_by_consent=False, bounded_offers=False,
                               dealless_rounds=0)


def _beans_without_garden() -> tuple[BeanType, ...]:
    types = parse_bean_types(card_data_text())
    return tuple(t for t in types if t.bean is not Bean.GARDEN)


@cache
def duel_rules() -> Rules:
    """The Princes game for 2 players (seed 000, ``duel-v1``): no Garden beans, no trading."""
    return Rules(variant="duel", version=1, bean_types=_beans_without_garden(), min_players=2, max_players=2,
                 hand_size=5, turn_up=3, draw=2, start_fields=2, max_fields=3, field_price=3, reshuffles=4,
                 max_trade_rounds=0, dealless_rounds=0, princes=PrincesRules())


@cache
def solo_rules() -> Rules:
    """The Princes solitaire game (seed 000, ``solo-v1``)."""
    return Rules(variant="solo", version=1, bean_types=_beans_without_garden(), min_players=1, max_players=1,
                 hand_size=5, turn_up=3, draw=2, start_fields=2, max_fields=3, field_price=3, reshuffles=4,
                 max_trade_rounds=0, dealless_rounds=0, princes=PrincesRules(solo=True, vine_face_down=True))


#: The engine's index of current rules by variant name, for ``rules_for`` (also inside a bot's sandbox).
#: The formats themselves are registered in one place, the arena's format registry, which adds its
#: formats' rules here; this is not a second registry of formats.
_VARIANTS: dict[str, Callable[[], Rules]] = {"classic": classic_rules, "duel": duel_rules, "solo": solo_rules}
_BUILT_IN = frozenset(_VARIANTS)


def register_variant(name: str, make: Callable[[], Rules]) -> None:
    """Make the rules of another variant known (a format registered by the arena; its rules must
    have ``variant == name``). Built-in variants cannot be replaced."""
    if name in _VARIANTS and _VARIANTS[name] is not make:
        raise ValueError(f"variant {name!r} is already known")
    _VARIANTS[name] = make


def unregister_variant(name: str) -> None:
    if name in _BUILT_IN:
        raise ValueError(f"variant {name!r} is built in")
    _VARIANTS.pop(name, None)


#: Earlier rules of a variant, by id: their recorded games still replay, no new game uses them.
RETIRED = {"classic-v2": classic_v2_rules, "classic-v1": classic_v1_rules}


def rules_for(name: str) -> Rules:
    """Rules by variant name (its current rules) or by rules id (``classic``, ``classic-v3``, ``classic-v1``)."""
    for variant, make in _VARIANTS.items():
        rules = make()
        if name in (variant, rules.id):
            return rules
    if name in RETIRED:
        return RETIRED[name]()
    raise ValueError(f"unknown variant {name!r} (known: {', '.join(_VARIANTS)})")
