"""Formatting and the table rows repeated across pages, built once in Python."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Sequence

from markupsafe import Markup, escape

from arena.formats import format_of

from arena.site.model import BotInfo, GameRow, Ladder, SeatRow, VersionInfo

def fmt_num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def fmt_date(value: datetime | None) -> str:
    return "–" if value is None else value.strftime("%Y-%m-%d %H:%M")


def fmt_day(value: datetime | None) -> str:
    return "–" if value is None else value.strftime("%Y-%m-%d")


def pages_of(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)] or [items[:0]]


# ----------------------------------------------------------------- table rows
class Fragments:
    """HTML pieces repeated on many pages (game rows, bot links), built once in Python: rendering
    tens of thousands of table rows through template macros would dominate the build time."""

    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder
        self._links: dict[tuple[int, str], str] = {}
        self._players: dict[int, str] = {}

    def bot_link(self, bot: BotInfo, root: str = "../", version: VersionInfo | None = None) -> Markup:
        key = (bot.id, root)
        link = self._links.get(key)
        if link is None:
            link = self._links[key] = (f'<a href="{root}bots/{bot.id}.html" class="bot">{escape(bot.name)}</a>'
                                       + (' <span class="boss" title="built-in reference bot">boss</span>'
                                          if bot.builtin else ""))
        if version is not None and version.number > 1:
            return Markup(link.replace("</a>", f'</a> <span class="ver">v{version.number}</span>', 1))
        return Markup(link)

    def players(self, game: GameRow) -> str:
        """Every seat's bot and coins, the winners starred, failures flagged."""
        cell = self._players.get(game.id)
        if cell is None:
            parts = []
            for seat in game.seats:
                bot = self.ladder.bot_of(seat.version_id)
                parts.append(f'<span class="seat{" winner" if seat.rank == 1 else ""}">{escape(bot.name)} '
                             f"<b>{seat.coins}</b>{self.failure(seat)}</span>")
            cell = self._players[game.id] = "".join(parts)
        return cell

    @staticmethod
    def failure(seat: SeatRow) -> str:
        if seat.status in (None, "ok"):
            return ""
        return f' <span class="fail" title="{escape(seat.detail)}">{escape(seat.status)}</span>'

    @staticmethod
    def status(seat: SeatRow) -> str:
        if seat.status == "ok":
            return '<span class="ok">ok</span>'
        return Fragments.failure(seat).strip() or "–"

    def game_rows(self, games: Iterable[GameRow], root: str, show_season: bool) -> Markup:
        names = self.ladder.season_names
        rows = []
        for g in games:
            season = (f'<td><a href="{root}seasons/{g.season_id}.html">{escape(names.get(g.season_id, "?"))}</a></td>'
                      if show_season else "")
            state = (f'<span class="fail" title="{escape(g.void_reason or "")}">void</span>' if g.status == "void"
                     else "rated")
            rows.append(f'<tr><td><a href="{root}games/{g.id}.html">#{g.id}</a></td>'
                        f'<td class="nowrap">{fmt_date(g.finished_at)}</td>{season}'
                        f'<td class="players">{self.players(g)}</td><td>{state}</td></tr>')
        return Markup("\n".join(rows))

    def bot_game_rows(self, games: Iterable[tuple[GameRow, SeatRow]], filterable: bool) -> Markup:
        """One row per game of a bot, from the bot's seat; ``filterable`` adds the opponents' ids."""
        versions = self.ladder.versions
        rows = []
        for g, s in games:
            opponents = ""
            if filterable:
                opponents = ' data-opponents=" ' + " ".join(
                    str(versions[o.version_id].bot_id) for o in g.seats if o.seat != s.seat) + ' "'
            void = ' <span class="fail">void</span>' if g.status == "void" else ""
            rows.append(f'<tr{opponents}><td><a href="../games/{g.id}.html">#{g.id}</a></td>'
                        f'<td>{format_of(g.rules_id).name}</td>'
                        f'<td class="nowrap">{fmt_date(g.finished_at)}</td><td>v{versions[s.version_id].number}</td>'
                        f'<td class="num">{s.coins}</td><td class="num">{s.rank}/{len(g.seats)}</td>'
                        f'<td>{self.status(s)}{void}</td><td class="players">{self.players(g)}</td></tr>')
        return Markup("\n".join(rows))

    def seat_rows(self, game: GameRow) -> Markup:
        rows = []
        for s in game.seats:
            bot = self.ladder.bot_of(s.version_id)
            detail = f' <code class="detail">{escape(s.detail)}</code>' if s.detail else ""
            if s.failure_step is not None:  # where it happened in the replay below, and its evidence
                detail += (f' <a class="failed-at" href="#step-{s.failure_step}">at step {s.failure_step}</a>'
                           f' · <a class="evidence" href="../bots/{bot.id}.html#failure-{game.id}-{s.seat}">evidence</a>')
            rows.append(f'<tr class="{"winner" if s.rank == 1 else ""}"><td>{s.seat}</td>'
                        f"<td>{self.bot_link(bot, '../', self.ladder.versions[s.version_id])}</td>"
                        f'<td class="num coins">{s.coins}</td><td class="num rank">{s.rank}</td>'
                        f"<td>{self.status(s)}{detail}</td></tr>")
        return Markup("\n".join(rows))
