"""Game formats: one object per format says everything the arena needs to know of it.

A ``Format`` names its rules (the engine plays them), how its games rank bots (a ``Ranking``),
how seasons plan it (same deals, games), its smoke opponents, and how it is shown (its description,
its ``Spectator``, whether it is the default). The planner, the referee's callers, submission, the CLI
and the site ask the registry (``formats()``, ``format_of``, ``default_format``) instead of testing
format names. A new format is one ``register(Format(...))`` call; ``tests/formats/contract.py``'s
``check_format`` is the battery its rules must pass.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Protocol, Sequence

from sqlmodel import Session

from arena.ladder.rankings import Standing
from arena.ladder.ratings import RatedGame, RatingBook

from engine.rules import Rules, duel_rules, register_variant, rules_for, solo_rules, unregister_variant
from engine.rules import classic_rules as _classic_rules
from engine.vine import SHORT, TASKS


class Ranking(Protocol):
    """How a format's games rank its bots (``arena/ladder/rankings.py`` has the two kinds)."""

    #: whether a game moves ratings (TrueSkill) or is only counted (win rate)
    rated: bool
    #: the site's template for this format's board page
    page: str
    #: games a version plays before it is ranked (fewer: listed below the ranked ones, ``provisional``); 0: at once
    ranked_after: int

    def record(self, session: Session, book: RatingBook, variant: str, games: Sequence[RatedGame]) -> None:
        """Account for finished games, in order (in the caller's transaction; ``book`` holds the season's
        ratings)."""

    def rerate(self, session: Session, variant: str, write: bool) -> list[str]:
        """Recompute from the recorded games; the differences from what is stored."""

    def standings(self, session: Session, variant: str, season: str | None = None) -> Sequence[Standing]:
        """The board's rows, best first, ranked from 1 (each kind of ranking has its own ``Standing`` type)."""

    def table(self, rows: Sequence[Standing]) -> list[tuple[str, ...]]:
        """The board as text cells, header first (``arena leaderboard``)."""


def _no_facts(rules: Rules) -> Mapping[str, Any]:
    return {}


def _princes_facts(rules: Rules) -> Mapping[str, Any]:
    """What the Princes table's drawing needs to know of its rules: the vine and the Castle."""
    p = rules.princes
    if p is None:
        raise ValueError(f"rules {rules.id!r} have no Princes constants to draw a vine from")
    return {"princes": {"solo": p.solo, "castle": p.cards + 1,
                        "tasks": {t: TASKS[t] for t in p.tasks},  # the full text: a card's tooltip
                        "short": {t: SHORT[t] for t in p.tasks},  # what a vine card shows
                        "castle_gold": p.castle_gold}}


@dataclass(frozen=True)
class Spectator:
    """How people watch a format's games on the site: the drawing of the table between the seats
    (``site/templates/table-<table>.html``, filled by site/static/board.js, which replay.js loads), the
    replay's first speed, and the facts of the rules that drawing needs beside the common ones
    (``facts(rules)``, merged into the game page's ``replay-meta``). The terminal's text
    (arena/play/replay_text.py) draws every part of the public state it is given, so it needs no choice."""

    table: str = "trade"  # the trading round of the base game
    speed: int = 5  # steps per second
    facts: Callable[[Rules], Mapping[str, Any]] = _no_facts


#: the base game's table: the trading round between the seats
TRADING_TABLE = Spectator()
#: the Princes game's table: the middle and the vine (a Princes turn has fewer, weightier steps)
VINE_TABLE = Spectator("vine", 2, _princes_facts)


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
    #: a new season's games (deals per bot when ``same_deals``) unless the operator says how many
    season_games: int = 100
    #: one sentence the board page says of the format before how it ranks (none: nothing)
    description: str = ""
    spectator: Spectator = field(default=TRADING_TABLE)
    #: its turns have a trading round between the seats (offers made, answered and closed), so a person's seat
    #: offers to compose one; the Princes games have none
    trading: bool = True
    #: the format of the site's home page and of every command not told one (exactly one is)
    default: bool = False
    #: what its games' score counts, as every page and table says it (a seat's ``coins`` in the database)
    money: str = "coins"

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
    if fmt.default and any(f.default for f in _REGISTRY.values()):
        raise ValueError(f"format {fmt.name!r} cannot be the default: {default_format().name!r} is")
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


def default_format() -> Format:
    """The format the site's home page shows and every command plays when it is not told one."""
    return next(f for f in _REGISTRY.values() if f.default)


def format_of(name: str | None) -> Format:
    """The format of a variant name or rules id (``classic``, ``classic-v2``, ``classic-v1``); None:
    the default format."""
    if name is None:
        return default_format()
    fmt = _REGISTRY.get(name) or _REGISTRY.get(name.rsplit("-v", 1)[0])
    if fmt is None:
        rules_for(name)  # raises the engine's "unknown variant" error, which lists the known ones
        raise ValueError(f"unknown format {name!r} (known: {', '.join(_REGISTRY)})")
    return fmt


def _builtins() -> None:
    from arena.ladder.rankings import TrueSkill, WinRate

    register(Format("classic", "Classic", _classic_rules, TrueSkill(), default=True))
    register(Format("duel", "Duel", duel_rules, TrueSkill(), description="The two-player Princes game",
                    spectator=VINE_TABLE, trading=False, money="gold"))
    register(Format("solo", "Solo", solo_rules, WinRate(), same_deals=True, season_games=50, spectator=VINE_TABLE,
                    trading=False, money="gold"))


_builtins()
