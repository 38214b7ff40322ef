"""Help texts that name formats, built from the registry (arena/formats.py) when help is shown, so that a
format registered later (``$ARENA_FORMATS`` is loaded before a subcommand's help) appears in them by itself."""
from __future__ import annotations

from typing import Any, Callable

import click

from arena.formats import Format, default_format, formats


class FormatsOption(click.Option):
    """An option whose help (``help_from()``) is written when it is shown."""

    def __init__(self, *args: Any, help_from: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help_from = help_from

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = self.help_from()
        return super().get_help_record(ctx)


class FormatsCommand(click.Command):
    """A command whose help (``help_from()``) is written when it is shown."""

    def __init__(self, *args: Any, help_from: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help_from = help_from

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.help = self.help_from()
        super().format_help_text(ctx, formatter)

    def get_short_help_str(self, limit: int = 45) -> str:
        self.help = self.help_from()
        return super().get_short_help_str(limit)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def either(names: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _same_deals() -> list[str]:
    """The formats where every bot plays the same deals (seasons of deals, ranked by win rate)."""
    return [f.name for f in formats() if f.same_deals]


def _table_sizes(fmt: Format) -> str:
    low, high = fmt.players
    return f"{fmt.name} {low}" if low == high else f"{fmt.name} {low}-{high}"


def variant_help() -> str:
    return f"{either([f.name for f in formats()])} (default: the season's own, {default_format().name} for a new one)."


def players_help() -> str:
    return f"Table size, N or N-M (default: the variant's, {', '.join(_table_sizes(f) for f in formats())})."


def games_help() -> str:
    """The games of a new season per format: one number where every format agrees."""
    played = [f for f in formats() if not f.same_deals]
    counts = {f.season_games for f in played}
    games = (str(counts.pop()) if len(counts) == 1
             else ", ".join(f"{f.name} {f.season_games}" for f in played))
    deals = "".join(f"; {f.name}: deals every bot plays (new seasons: {f.season_games})"
                    for f in formats() if f.same_deals)
    return f"Games in the season (new seasons: {games}){deals}. A larger number extends an existing season."


def season_run_help() -> str:
    text = "Run a season (or resume it where it stopped), then print the leaderboard."
    same = _same_deals()
    return text + (f"\n\n{_capital(either(same))} seasons: every bot that plays {either(same)} plays the same "
                   "deals, ranked by win rate." if same else "")


def season_close_help() -> str:
    same = _same_deals()
    return ("Close a season: it plays no more games"
            + (f", and a {either(same)} season's deals are published by the next site build." if same else "."))


def leaderboard_help() -> str:
    text = "The ladder: score (mu - 3 sigma), mu, sigma and games of each bot's current version."
    same = _same_deals()
    return text + (f"\n\n{_capital(either(same))}: win rate with its 95% Wilson interval and average gold on "
                   "one season's deals." if same else "")


def leaderboard_season_help() -> str:
    same = _same_deals()
    return (f"{_capital(either(same))}: the season" if same else "The season") + \
        " whose deals rank the bots (default: the latest)."


def audit_variant_help() -> str:
    return f"The format whose games are audited (default {default_format().name})."


def bots_help() -> str:
    return ("List bots and their versions, with their standing in every format (TrueSkill score, or win\n"
            f"rate where bots play the same deals), best {default_format().name} score first; "
            "`arena bots retire NAME` stops one.")
