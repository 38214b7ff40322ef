"""Building the site: every page of one ladder into a folder. The game pages, most of the work, are
written in forked processes (arena/site/forks.py) while this one writes the others. A rebuild is incremental
(arena/site/manifest.py): a game page made from the same inputs is left alone, the other pages are rendered
and written only when their bytes changed; game lists are paginated from the oldest game, so that new games
change only their last pages."""
from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Sequence

from markupsafe import Markup, escape
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.audit.store import StoredFlag, stored_flags
from arena.db.queries import author_key
from arena.audit.words import bot_words, flag_words, team_of
from arena.formats import format_of, formats

from arena.site.chart import ChartPoint, rating_chart
from arena.site import replays
from arena.site.folder import SUBFOLDERS, prepare_out, remove_stale
from arena.site.forks import ForkedSlices, slices
from arena.site.games import GamePages, Written
from arena.site.html import fmt_pct, pages_of
from arena.site.manifest import Manifest, builder_key, digest, on_disk
from arena.site.model import BotInfo, GameRow, SeatRow, Tally, load_ladder
from arena.site.render import Renderer, environment
from arena.site.rows import (BoardRow, BotFormat, HeadToHead, SeasonRow, SeasonStanding, VersionRow, board_rows,
                             rating_history, season_rows, version_stats)
from arena.site.competitions import write_competition_pages
from arena.site.testruns import write_test_run_pages

GAMES_PER_PAGE = 100
BOT_GAMES_PER_PAGE = 500
RECENT_GAMES = 20
#: a ladder with fewer games has its game pages written in this process: forking would cost more
FORK_MIN_GAMES = 500
#: the keys of a rated board's rows in leaderboard.json, in this order
RATED_KEYS = ("rank", "provisional", "name", "author", "builtin", "version", "version_id", "score", "mu", "sigma",
              "games", "not_counted", "win_rate", "avg_coins", "failure_rate")


@dataclass(frozen=True)
class AuditSummary:
    """What the audit page says was audited: (format, games) of each format whose tables seat several bots, the
    pairs of bots of different authors that shared a table, and the latest such season to end, with when."""

    games: tuple[tuple[str, int], ...]
    pairs: int
    season: str | None
    ended: datetime | None


@dataclass(frozen=True)
class BuildSummary:
    """What a build did: ``pages`` and ``games`` the site has (game pages made or kept), ``written`` the files
    it wrote (the rest were fresh), ``removed`` the stale ones; ``warnings``, one line per game left out."""

    out: Path
    pages: int
    games: int
    seconds: float
    written: int = 0
    removed: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def _board_json(variant: str, updated: datetime | None, rows: Sequence[BoardRow], keys: Sequence[str] | None,
                default: Callable[[Any], Any] | None = None) -> str:
    """A leaderboard JSON file: each row's ``keys`` (None: all of them), its bot's id and page."""
    out = []
    for row in rows:
        data = row.to_json()
        out.append({k: data[k] for k in (keys or data)} | {"bot_id": row.bot_id, "page": f"bots/{row.bot_id}.html"})
    return json.dumps({"variant": variant, "updated_at": updated and updated.isoformat(), "rows": out}, indent=1,
                      default=default)


class Pages:
    """Every page of one build but the game pages: boards, bots, seasons, test runs, competitions, the audit, game
    lists."""

    def __init__(self, renderer: Renderer, variant: str, flags: Sequence[StoredFlag], builder: str,
                 game_keys: dict[int, str]) -> None:
        #: per flagged pair (names in order), the games of it that count in no rating (arena/audit/flag_games.py)
        self.taken = Counter(g.flagged_pair for g in renderer.ladder.games if g.flagged_pair)
        self.renderer = renderer
        self.builder = builder
        self.game_keys = game_keys  # a list page's rows are made from its games' keys, and nothing else
        self.ladder = renderer.ladder
        self.frag = renderer.frag
        self.variant = variant
        self.flags = flags
        self.warnings: list[str] = []  # a line per test run's game left out (its replay unreadable)
        self.updated: dict[str, datetime] = {}  # per format, its newest game: a board says how recent it is
        for game in self.ladder.games:  # newest first
            if game.finished_at is not None:
                self.updated.setdefault(format_of(game.rules_id).name, game.finished_at)

    def write_all(self, engine: Engine, history: dict[str, dict[int, list[ChartPoint]]]) -> None:
        ladder, renderer = self.ladder, self.renderer
        seasons = season_rows(ladder)
        for fmt in formats():  # one board page per format; index.html is the --variant one
            self.board_page(fmt.name, seasons, f"{fmt.name}.html")
        board = self.board_page(self.variant, seasons, "index.html")
        keys = None if not format_of(self.variant).ranking.rated else RATED_KEYS
        renderer.write_text("leaderboard.json", _board_json(self.variant, self.updated.get(self.variant), board, keys))
        self.bot_pages(history)
        self.season_pages(seasons)
        self.warnings = write_test_run_pages(engine, renderer, self.builder)
        write_competition_pages(engine, renderer)
        self.audit_page()
        pages = self.game_lists("games/page-{}.html", ladder.games, "All games", "../", listing="games")
        newest = ladder.games[:GAMES_PER_PAGE]  # the page the menu links: the newest games, whatever their page
        renderer.write("games/index.html", "games.html", "../", rows=self.frag.game_rows(newest, "../", True),
                       show_season=True, title="All games", page=None, pages=pages, pattern="page-{}.html",
                       total=len(ladder.games), rows_count=len(newest))

    def board_page(self, variant: str, seasons: list[SeasonRow], page: str) -> list[BoardRow]:
        """Write one format's leaderboard page (and ``leaderboard-<variant>.json``); returns its rows."""
        ladder = self.ladder
        fmt = format_of(variant)
        mine = [r for r in seasons if r.season.variant == variant]
        total = sum(1 for g in ladder.games if g.status == "done" and format_of(g.rules_id).name == variant)
        rated = fmt.ranking.rated
        board = board_rows(ladder, ladder.boards[variant], version_stats(ladder, variant) if rated else None)
        self.renderer.write(page, fmt.ranking.page, "", board=board, seasons=mine, variant=variant,
                            total_games=total, fmt=fmt, updated=self.updated.get(variant),
                            ranked_after=fmt.ranking.ranked_after)
        if page != "index.html":
            self.renderer.write_text(f"leaderboard-{variant}.json",
                                     _board_json(variant, self.updated.get(variant), board, None, default=str))
        return board

    def bot_pages(self, history: dict[str, dict[int, list[ChartPoint]]]) -> None:
        """A page per bot: a section per format it plays (``BotFormat``), then its games of every format."""
        ladder = self.ladder
        games_of: dict[int, list[tuple[GameRow, SeatRow]]] = {}
        for game in ladder.games:
            for seat in game.seats:
                games_of.setdefault(ladder.versions[seat.version_id].bot_id, []).append((game, seat))
        boards = {fmt.name: {row.bot_id: row for row in board_rows(ladder, ladder.boards[fmt.name],
                                                                   version_stats(ladder, fmt.name)
                                                                   if fmt.ranking.rated else None)}
                  for fmt in formats()}
        for bot in ladder.bots.values():
            mine = games_of.get(bot.id, [])
            lists = pages_of(mine, BOT_GAMES_PER_PAGE)
            sections = [self.bot_format(bot, fmt.name, mine, boards[fmt.name].get(bot.id),
                                        history.get(fmt.name, {}).get(bot.id), len(lists)) for fmt in formats()]
            sections = [f for f in sections if f.games or f.row is not None]
            head = [h for f in sections for h in f.head]
            flags = [f for f in self.flags if bot.name in f.bots]
            self.renderer.write(
                f"bots/{bot.id}.html", "bot.html", "../", bot=bot, sections=sections,
                flags=flags, flag_words=lambda f, me=bot.name: self.flag_words(f, me),
                recent=self.frag.bot_game_rows(mine[:RECENT_GAMES], filterable=False), game_count=len(mine),
                list_pages=len(lists))
            options = Markup("".join(f'<option value="{b.id}">{escape(b.name)}</option>'
                                     for b in sorted({r.bot.id: r.bot for r in head}.values(), key=lambda b: b.name)))
            for number, chunk in enumerate(lists, start=1):
                path = f"bots/{bot.id}-games-{number}.html"
                key = self.list_key(path, number < len(lists), [g for g, _ in chunk], bot.name, str(bot.builtin),
                                    options)
                if not self.renderer.kept(path, key):
                    self.renderer.write_keyed(path, key, "bot_games.html", "../", bot=bot,
                                              rows=self.frag.bot_game_rows(chunk, filterable=True), page=number,
                                              pages=len(lists), first=(number - 1) * BOT_GAMES_PER_PAGE + 1,
                                              last=(number - 1) * BOT_GAMES_PER_PAGE + len(chunk), options=options)

    def bot_format(self, bot: BotInfo, variant: str, every: Sequence[tuple[GameRow, SeatRow]], row: BoardRow | None,
                   points: list[ChartPoint] | None, newest: int) -> BotFormat:
        """The section of ``bot``'s page for one format: everything in it counted on that format's games."""
        fmt = format_of(variant)
        mine = [(game, seat) for game, seat in every if format_of(game.rules_id).name == variant]
        failures: Counter[str] = Counter()
        failed: list[tuple[GameRow, SeatRow]] = []
        per_version: dict[int, Tally] = {}
        for game, seat in mine:
            if seat.status not in (None, "ok"):
                failures[seat.status or ""] += 1
                failed.append((game, seat))
            if game.status == "done":
                per_version.setdefault(seat.version_id, Tally()).add(seat)
        numbers = sorted(v.number for v in bot.versions)
        versions = [VersionRow(v, per_version.get(v.id, Tally()), next((n for n in numbers if n > v.number), None))
                    for v in reversed(bot.versions)]
        head = self.head_to_head(bot, mine)
        chart = (rating_chart(points or [], f"{fmt.title} rating history of {bot.name}")
                 if fmt.ranking.rated else None)
        return BotFormat(variant, fmt.title, fmt.money, fmt.ranking.rated, fmt.players[1] > 1, row, chart, versions,
                         head, self.head_rows(bot, head, newest), failures.most_common(), failed[:10], len(mine))

    def head_to_head(self, bot: BotInfo, mine: Sequence[tuple[GameRow, SeatRow]]) -> list[HeadToHead]:
        """The bot's record against every bot it met in ``mine`` (one format's games), most games first."""
        ladder = self.ladder
        tallies: dict[int, list[float]] = {}  # games, wins, losses, coin diff
        for game, seat in mine:
            if game.status != "done":
                continue
            for other in game.seats:
                other_bot = ladder.versions[other.version_id].bot_id
                if other_bot == bot.id:
                    continue
                row = tallies.setdefault(other_bot, [0, 0, 0, 0.0])
                row[0] += 1
                row[1] += (seat.rank or 0) < (other.rank or 0)
                row[2] += (seat.rank or 0) > (other.rank or 0)
                row[3] += (seat.coins or 0) - (other.coins or 0)
        return sorted((HeadToHead(ladder.bots[b], int(r[0]), int(r[1]), int(r[2]), r[1] / r[0], r[3] / r[0])
                       for b, r in tallies.items()), key=lambda r: (-r.games, r.bot.name))

    def flag_words(self, flag: StoredFlag, me: str) -> Markup:
        """What a flag says of the bot whose page it is on: it gave, or received (not by its own doing), or both;
        the other bot linked."""
        other = self.named_bot_link(flag.other(me), "../", badge=False)
        return Markup(bot_words(me, flag.other(me), flag.givers, other, Markup))

    def named_bot_link(self, name: str, root: str, badge: bool = True) -> Markup:
        """A bot's link by its name (flags name bots), or the name as text if the ladder has no such bot;
        ``badge`` False: without the boss badge (inside a sentence)."""
        bot = next((b for b in self.ladder.bots.values() if b.name == name), None)
        if bot is None:
            return Markup(escape(name))
        if not badge:
            return Markup(f'<a href="{root}bots/{bot.id}.html" class="bot">{escape(bot.name)}</a>')
        return self.frag.bot_link(bot, root)

    def head_rows(self, bot: BotInfo, head: list[HeadToHead], newest: int) -> Markup:
        """The head-to-head rows, each linking the bot's newest list page, filtered by that opponent."""
        rows = []
        for h in head:
            diff = h.coin_diff
            tone = "pos" if diff > 0 else "neg" if diff < 0 else ""
            rows.append(f'<tr><td data-value="{escape(h.bot.name)}">{self.frag.bot_link(h.bot)}</td>'
                        f'<td class="num" data-value="{h.games}">{h.games}</td>'
                        f'<td class="num" data-value="{h.wins}">{h.wins}</td>'
                        f'<td class="num" data-value="{h.losses}">{h.losses}</td>'
                        f'<td class="num" data-value="{h.win_rate:.4f}">{fmt_pct(h.win_rate)}</td>'
                        f'<td class="num {tone}" data-value="{diff:.4f}">{diff:+.2f}</td>'
                        f'<td><a href="{bot.id}-games-{newest}.html#vs-{h.bot.id}">games</a></td></tr>')
        return Markup("\n".join(rows))

    def season_pages(self, seasons: list[SeasonRow]) -> None:
        ladder = self.ladder
        self.renderer.write("seasons/index.html", "seasons.html", "../", seasons=seasons)
        for row in seasons:
            season = row.season
            tallies: dict[int, Tally] = {}
            for game in row.games:
                if game.status == "done":
                    for seat in game.seats:
                        tallies.setdefault(ladder.versions[seat.version_id].bot_id, Tally()).add(seat)
            standings = sorted((SeasonStanding(ladder.bots[b], t) for b, t in tallies.items()),
                               key=lambda r: (-(r.tally.win_rate or 0), -(r.tally.avg_coins or 0), r.bot.name))
            pages = self.game_lists(f"seasons/{season.id}-games-{{}}.html", row.games,
                                    f"Games of season {season.name}", "../", listing=f"season-{season.id}")
            self.renderer.write(f"seasons/{season.id}.html", "season.html", "../", row=row, season=season,
                                money=format_of(season.variant).money,
                                standings=standings, recent=self.frag.game_rows(row.games[:RECENT_GAMES], "../", False),
                                list_pages=pages)

    def audit_page(self) -> None:
        """The pairs the integrity audit flagged, standing and cleared (their bots' pages list them too), and what it
        tested: each multi-seat format's games, the pairs of bots of different authors that shared a table, and
        the latest season to end (every season audits itself at its end)."""
        ladder = self.ladder
        games: Counter[str] = Counter()
        pairs: set[frozenset[int]] = set()
        for game in ladder.games:
            fmt = format_of(game.rules_id)
            if game.status != "done" or fmt.players[1] < 2:
                continue
            games[fmt.name] += 1
            bots = [ladder.bot_of(seat.version_id) for seat in game.seats]
            groups = [None if bot.builtin else author_key(bot.author) or None for bot in bots]
            pairs.update(frozenset((a.id, b.id)) for a, ga in zip(bots, groups) for b, gb in zip(bots, groups)
                         if a.id < b.id and (ga is None or ga != gb))
        ended = max((s for s in ladder.seasons if s.finished_at is not None and format_of(s.variant).players[1] > 1),
                    key=lambda s: s.finished_at or datetime.min, default=None)
        audited = AuditSummary(tuple((f.name, games[f.name]) for f in formats() if games[f.name]), len(pairs),
                               None if ended is None else ended.name,
                               None if ended is None else ended.finished_at)
        self.renderer.write("audit.html", "audit.html", "", flags=self.flags, taken=self.taken, audited=audited,
                            bot_link=lambda name: self.named_bot_link(name, ""),
                            flag_words=lambda f: Markup(flag_words(f.bots, f.givers, f.evidence, {
                                name: self.named_bot_link(name, "", badge=False)
                                for name in (*f.bots, *(team_of(f.evidence) or ("", ()))[1])}, Markup)))

    def game_lists(self, pattern: str, games: Sequence[GameRow], title: str, root: str, listing: str) -> int:
        """The pages of a list of games (newest first), page 1 the oldest; returns how many."""
        chunks = pages_of(games, GAMES_PER_PAGE)
        show_season = listing == "games"
        for number, chunk in enumerate(chunks, start=1):
            path = pattern.format(number)
            key = self.list_key(path, number < len(chunks), chunk, title)
            if not self.renderer.kept(path, key):
                self.renderer.write_keyed(path, key, "games.html", root,
                                          rows=self.frag.game_rows(chunk, root, show_season), show_season=show_season,
                                          title=title, page=number, pages=len(chunks), pattern=Path(pattern).name,
                                          first=(number - 1) * GAMES_PER_PAGE + 1,
                                          last=(number - 1) * GAMES_PER_PAGE + len(chunk),
                                          newest="index.html" if show_season else None)
        return len(chunks)

    def list_key(self, path: str, older: bool, games: Sequence[GameRow], *facts: str) -> str:
        """The inputs of a list page: its games (their keys), whether a newer page follows, what else it shows."""
        damaged = self.frag.damaged  # a game left out is listed unlinked: its list changes with it
        return digest(self.builder, path, str(older), *facts,
                      *(self.game_keys[g.id] + ("-damaged" if g.id in damaged else "") for g in games))


def build_site(engine: Engine, out: Path, variant: str | None = None, workers: int | None = None,
               private_logs: bool = False) -> BuildSummary:
    """Build the whole site from the database behind ``engine`` into the folder ``out`` (its home page
    the board of ``variant``; None: the default format), writing only what changed since the last build
    there. ``workers``: processes for the game pages. A failed seat's stderr is on the pages only with
    ``private_logs`` (a ladder whose site only its authors read)."""
    started = time.perf_counter()
    workers = max(1, min(4, os.cpu_count() or 1) if workers is None else workers)
    variant = format_of(variant).name
    prepare_out(out)
    builder = builder_key(replays.STEPS_FORMAT, private_logs)
    manifest = Manifest.load(out, builder, on_disk(out, (*SUBFOLDERS, "static")))
    with Session(engine) as session:
        ladder = load_ladder(session, variant, logs=private_logs)
        flags = stored_flags(session)
        history = {f.name: rating_history(session, ladder, f.name) for f in formats() if f.ranking.rated}
    renderer = Renderer(environment(), out, ladder, manifest)
    games = GamePages(engine, renderer, builder)
    pages = Pages(renderer, variant, flags, builder, games.keys)
    todo = games.stale()
    # a game whose replay is damaged has no page, so no list may link it: those an earlier build left out
    # (the same key: the same replay) are known now; one found damaged by this build's workers while the
    # lists were being written makes the lists that show it written again
    frag = renderer.frag
    frag.damaged = frozenset(i for i, key in manifest.left_out_before.items() if games.keys.get(i) == key)
    done: list[Written]
    if workers == 1 or len(todo) < FORK_MIN_GAMES:
        done = [games.write(todo)]
        frag.damaged = frozenset(i for _, skipped in done for i in skipped)
        pages.write_all(engine, history)
    else:
        engine.dispose()  # no database connection may cross the fork

        def part(first: int, last: int) -> Written:
            return games.write([i for i in todo if first <= i <= last])

        with ForkedSlices(part, slices(todo, workers)) as pending:  # the bulk of the work, meanwhile
            pages.write_all(engine, history)
            done = pending.results()
        found = frozenset(i for _, skipped in done for i in skipped)
        if found != frag.damaged:
            frag.damaged, counted = found, renderer.pages
            pages.write_all(engine, history)  # only the pages whose content changed are written
            renderer.pages = counted
    warnings: list[str] = list(pages.warnings)
    for files, skipped in done:
        for path, entry in files.items():
            manifest.record(path, entry)
        warnings += skipped.values()
    manifest.left_out = {i: games.keys[i] for i in frag.damaged}
    removed = remove_stale(out, set(manifest.new))
    manifest.save()
    game_count = sum(1 for path in manifest.new if path.startswith("games/") and path[6:-5].isdigit())
    return BuildSummary(out, renderer.pages + game_count, game_count, time.perf_counter() - started,
                        manifest.written, removed, tuple(warnings))
