"""Game formats: one object per format says everything the arena needs to know of it.

A ``Format`` names its rules (the engine plays them), how its games rank bots (a ``Ranking``),
whether every bot plays the same deals, and how it is shown. The planner, the referee's callers,
submission, the CLI and the site ask the registry (``formats()``, ``format_of``) instead of testing
format names. A new format is one ``register(Format(...))`` call.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Protocol, Sequence

from sqlmodel import Session

from arena.rankings import Standing
from arena.ratings import RatingBook

from engine.rules import Rules, duel_rules, register_variant, rules_for, solo_rules, unregister_variant
from engine.rules import classic_rules as _classic_rules


class Ranking(Protocol):
    """How a format's games rank its bots (``arena/rankings.py`` has the two kinds)."""

    #: whether a game moves ratings (TrueSkill) or is only counted (win rate)
    rated: bool
    #: the site's template for this format's board page
    page: str

    def record(self, session: Session, book: RatingBook, variant: str, versions: Sequence[int],
               ranks: Sequence[int], match_id: int) -> None:
        """Account for one finished game (in the caller's transaction; ``book`` holds the season's ratings)."""

    def rerate(self, session: Session, variant: str, write: bool) -> list[str]:
        """Recompute from the recorded games; the differences from what is stored."""

    def standings(self, session: Session, variant: str, season: str | None = None) -> Sequence[Standing]:
        """The board's rows, best first, ranked from 1 (each kind of ranking has its own ``Standing`` type)."""

    def table(self, rows: Sequence[Standing]) -> list[tuple[str, ...]]:
        """The board as text cells, header first (``arena leaderboard``)."""


@dataclass(frozen=True)
class Format:
    """One game format of the ladder."""

    name: str  # the variant name of its rules: "classic", "duel", "solo"
    title: str  # as the site's navigation shows it
    rules: Callable[[], Rules]  # its current rules
    ranking: Ranking
    #: every bot plays the same deals (solo): a season's ``games`` counts deals per bot, and its games
    #: stay unpublished until the season is closed (a later version could learn them)
    same_deals: bool = False
    #: the built-in bots a submission's smoke game in this format draws its opponents from (search thinks
    #: for its whole time limit, so it is left out)
    smoke_opponents: tuple[str, ...] = ("random", "greedy", "trader")

    @property
    def players(self) -> tuple[int, int]:
        rules = self.rules()
        return rules.min_players, rules.max_players


_REGISTRY: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Add a format (and its rules, so that the engine and every worker can play them)."""
    if fmt.rules().variant != fmt.name:
        raise ValueError(f"format {fmt.name!r} must have rules of variant {fmt.name!r}, not {fmt.rules().variant!r}")
    if fmt.name in _REGISTRY:
        raise ValueError(f"a format named {fmt.name!r} is already registered")
    register_variant(fmt.name, fmt.rules)
    _REGISTRY[fmt.name] = fmt
    return fmt


def unregister(name: str) -> None:
    """Remove a format added with ``register`` (tests); its recorded games stay in the database."""
    _REGISTRY.pop(name)
    unregister_variant(name)


def formats() -> Iterator[Format]:
    """Every registered format, in registration order (the built-in ones first)."""
    return iter(tuple(_REGISTRY.values()))


def format_of(name: str) -> Format:
    """The format of a variant name or rules id (``classic``, ``classic-v2``, ``classic-v1``)."""
    fmt = _REGISTRY.get(name) or _REGISTRY.get(name.rsplit("-v", 1)[0])
    if fmt is None:
        rules_for(name)  # raises the engine's "unknown variant" error, which lists the known ones
        raise ValueError(f"unknown format {name!r} (known: {', '.join(_REGISTRY)})")
    return fmt


def _builtins() -> None:
    from arena.rankings import TrueSkill, WinRate

    _REGISTRY["classic"] = Format("classic", "Classic", _classic_rules, TrueSkill())
    _REGISTRY["duel"] = Format("duel", "Duel", duel_rules, TrueSkill())
    _REGISTRY["solo"] = Format("solo", "Solo", solo_rules, WinRate(), same_deals=True)


_builtins()
