"""Formatting and the table rows repeated across pages, built once in Python."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Generic, Iterable, Sequence, TypeVar

from markupsafe import Markup, escape

from arena.formats import format_of
from arena.text import solo_result

from arena.site.model import BotInfo, GameRow, Ladder, SeatRow, VersionInfo

def fmt_num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def fmt_date(value: datetime | None) -> str:
    return "–" if value is None else value.strftime("%Y-%m-%d %H:%M")


def fmt_day(value: datetime | None) -> str:
    return "–" if value is None else value.strftime("%Y-%m-%d")


T = TypeVar("T")


@dataclass(frozen=True)
class Column(Generic[T]):
    """One column of a table built in Python: its header and the markup of its cell in each row."""

    title: str
    cell: Callable[[T], str]
    css: str = ""  # the class of its header and cells ("num", "nowrap", "players"; "wide-only": not on a phone)


def head(columns: Sequence[Column[Any]]) -> Markup:
    """The ``<thead>`` of ``columns``."""
    cells = "".join(f'<th class="{c.css}">{escape(c.title)}</th>' if c.css in ("num", "nowrap wide-only", "wide-only")
                    else f"<th>{escape(c.title)}</th>" for c in columns)
    return Markup(f"<thead><tr>{cells}</tr></thead>")


def row(columns: Sequence[Column[T]], item: T, attributes: str = "") -> str:
    """One ``<tr>`` of ``columns`` for ``item``: exactly one cell under each header."""
    cells = "".join(f'<td class="{c.css}">{c.cell(item)}</td>' if c.css else f"<td>{c.cell(item)}</td>"
                    for c in columns)
    return f"<tr{attributes}>{cells}</tr>"


def pages_of(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` (newest first) in pages of ``size`` counted from the oldest, each newest first: page 1 holds the
    oldest, and a new item changes only the last page (or starts one), never shifts the older ones."""
    count = -(-len(items) // size)
    end = len(items)
    return [items[max(0, end - k * size):end - (k - 1) * size] for k in range(1, count + 1)] or [items[:0]]


# ----------------------------------------------------------------- table rows
class Fragments:
    """HTML pieces repeated on many pages (game rows, bot links), built once in Python: rendering
    tens of thousands of table rows through template macros would dominate the build time."""

    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder
        self._links: dict[tuple[int, str], str] = {}
        self._players: dict[int, str] = {}
        self.damaged: frozenset[int] = frozenset()  # games whose page is not written: no list links them

    def game_link(self, game_id: int, root: str = "../", anchor: str = "") -> Markup:
        """``#N`` linking game N's page, or, when its replay is damaged and its page left out, ``#N`` unlinked
        with a note (a link would lead nowhere)."""
        if game_id in self.damaged:
            return Markup(f'#{game_id} <span class="fail" title="its stored replay cannot be read: the game has '
                          f'no page">replay damaged</span>')
        return Markup(f'<a href="{root}games/{game_id}.html{escape(anchor)}">#{game_id}</a>')

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

    # A list of games is one component: its header cells and every row's cells come from the same
    # columns, so that no page can have a header without its cell (the bug of a `format` header with
    # no format cell, which put every header over the wrong column).
    def game_columns(self, root: str, show_season: bool) -> list[Column[GameRow]]:
        """The columns of a list of games (the all-games pages, a season's pages)."""
        names = self.ladder.season_names
        columns: list[Column[GameRow]] = [
            Column("game", lambda g: self.game_link(g.id, root)),
            Column("format", lambda g: format_of(g.rules_id).name),
            Column("finished", lambda g: fmt_date(g.finished_at), "nowrap wide-only"),
        ]
        if show_season:  # a phone shows the players instead of when and where
            columns.append(Column("season", lambda g: f'<a href="{root}seasons/{g.season_id}.html">'
                                                      f'{escape(names.get(g.season_id, "?"))}</a>', "wide-only"))
        columns += [
            Column("players (coins; ★ first)", self.players, "players"),
            Column("status", lambda g: f'<span class="fail" title="{escape(g.void_reason or "")}">void</span>'
                   if g.status == "void" else not_rated_mark(g) or "rated"),
        ]
        return columns

    def game_head(self, show_season: bool) -> Markup:
        return head(self.game_columns("", show_season))

    def game_rows(self, games: Iterable[GameRow], root: str, show_season: bool) -> Markup:
        columns = self.game_columns(root, show_season)
        return Markup("\n".join(row(columns, g) for g in games))

    def bot_game_columns(self) -> list[Column[tuple[GameRow, SeatRow]]]:
        """The columns of a bot's games, each seen from the bot's seat."""
        versions = self.ladder.versions
        return [
            Column("game", lambda gs: self.game_link(gs[0].id)),
            Column("format", lambda gs: format_of(gs[0].rules_id).name),
            Column("finished", lambda gs: fmt_date(gs[0].finished_at), "nowrap wide-only"),
            Column("version", lambda gs: f"v{versions[gs[1].version_id].number}"),
            Column("coins", lambda gs: str(gs[1].coins), "num"),
            Column("rank", lambda gs: solo_result(gs[1].rank) if len(gs[0].seats) == 1
                   else f"{gs[1].rank}/{len(gs[0].seats)}", "num"),
            Column("status", lambda gs: self.status(gs[1])
                   + (' <span class="fail">void</span>' if gs[0].status == "void" else "")
                   + (" " + not_rated_mark(gs[0]) if gs[0].not_rated else "")),
            Column("table (coins; ★ first)", lambda gs: self.players(gs[0]), "players"),
        ]

    def bot_game_head(self) -> Markup:
        return head(self.bot_game_columns())

    def bot_game_rows(self, games: Iterable[tuple[GameRow, SeatRow]], filterable: bool) -> Markup:
        """One row per game of a bot, from the bot's seat; ``filterable`` adds the opponents' ids."""
        versions = self.ladder.versions
        columns = self.bot_game_columns()
        rows = []
        for g, s in games:
            opponents = ""
            if filterable:
                opponents = ' data-opponents=" ' + " ".join(
                    str(versions[o.version_id].bot_id) for o in g.seats if o.seat != s.seat) + ' "'
            rows.append(row(columns, (g, s), opponents))
        return Markup("\n".join(rows))

    def evidence(self, seat: SeatRow) -> str:
        """Why a failed seat failed, as its bot's page shows it: the request it was answering, at which
        step, and its last output (only on a site built with its logs: else its author reads it through the
        service); an anchor of its own (``#seat-N-evidence``) that the bot's page links to."""
        if seat.status in (None, "ok"):
            return ""
        parts = []
        if seat.failure_request:
            step = f" (at step {seat.failure_step} of the replay)" if seat.failure_step is not None else ""
            parts.append(f'<p>while answering <code>{escape(seat.failure_request)}</code>{escape(step)}</p>')
        if not self.ladder.logs:
            parts.append('<p class="muted">its output on stderr is shown to its author only</p>')
        else:
            parts.append(f'<pre class="log">{escape(seat.failure_log)}</pre>' if seat.failure_log.strip()
                         else '<p class="muted">nothing on stderr</p>')
        return (f'<details class="evidence" id="seat-{seat.seat}-evidence"><summary>evidence</summary>'
                f'{"".join(parts)}</details>')

    def seat_rows(self, game: GameRow) -> Markup:
        rows = []
        for s in game.seats:
            bot = self.ladder.bot_of(s.version_id)
            detail = f' <code class="detail">{escape(s.detail)}</code>' if s.detail else ""
            if s.failure_step is not None:  # where it happened in the replay below, and its evidence
                detail += (f' <a class="failed-at" href="#step-{s.failure_step}">at step {s.failure_step}</a>'
                           f' · <a class="evidence-link" href="#seat-{s.seat}-evidence">evidence</a>')
            rows.append(f'<tr class="{"winner" if s.rank == 1 else ""}"><td>{s.seat}</td>'
                        f"<td>{self.bot_link(bot, '../', self.ladder.versions[s.version_id])}</td>"
                        f'<td class="num coins">{s.coins}</td>'
                        f'<td class="num rank">{solo_result(s.rank) if len(game.seats) == 1 else s.rank}</td>'
                        f"<td>{self.status(s)}{detail}{self.evidence(s)}</td></tr>")
        return Markup("\n".join(rows))


def not_rated_mark(game: GameRow) -> str:
    """A game a flag took out of the ratings, marked with why (``not rated: flagged pair A/B``); else empty."""
    if not game.not_rated:
        return ""
    return f'<span class="fail not-rated" title="{escape(game.not_rated)}">{escape(game.not_rated)}</span>'
