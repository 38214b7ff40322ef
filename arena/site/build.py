"""Building the site: every page of one ladder into a folder (game pages in forked workers)."""
from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.audit_store import StoredFlag, stored_flags
from arena.db import Match, RatingSnapshot, Season
from arena.formats import format_of, formats
from arena.paths import data_dir
from arena.rankings import Standing
from arena.sprt import PAIR_SCORES
from arena.versus import head_to_head
from arena.versus_store import StoredTest, all_tests, role_name, verdict_text
from engine import rules_for

from arena.site.chart import ChartPoint, llr_chart, rating_chart
from arena.site.errors import SiteError
from arena.site.html import Fragments, fmt_date, fmt_day, fmt_num, fmt_pct, pages_of
from arena.site.model import BotInfo, GameRow, Ladder, SeatRow, Tally, load_ladder
from arena.site.replays import earlier_steps, spectator_json, steps_key

MARKER = ".arena-site"
GAMES_PER_PAGE = 100
BOT_GAMES_PER_PAGE = 500
RECENT_GAMES = 20


@dataclass
class BuildSummary:
    out: Path
    pages: int
    games: int
    seconds: float

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def environment() -> Environment:
    templates = data_dir("site") / "templates"
    if not templates.is_dir():
        raise SiteError(f"site templates not found in {str(templates)!r}")
    env = Environment(loader=FileSystemLoader(str(templates)), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(num=fmt_num, pct=fmt_pct, date=fmt_date, day=fmt_day)
    env.globals["formats"] = lambda: list(formats())  # the navigation, at render time
    return env


def prepare_out(out: Path) -> None:
    """Make ``out`` a site folder; refuse a non-empty folder this command did not build.

    Files of an earlier build are overwritten in place and the stale ones removed at the end
    (``remove_stale``): deleting twenty thousand freshly written pages first can take longer than
    the build itself.
    """
    if out.exists() and not out.is_dir():
        raise SiteError(f"output {str(out)!r} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SiteError(f"output folder {str(out)!r} is not empty and was not built by 'arena site build'; "
                        "choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("built by 'arena site build'; every build rewrites this folder\n")
    for sub in ("bots", "games", "seasons", "tests"):
        (out / sub).mkdir(exist_ok=True)
    shutil.copytree(data_dir("site") / "static", out / "static", dirs_exist_ok=True)


def remove_stale(out: Path, keep: set[str]) -> int:
    """Delete the files under ``out``'s site folders whose relative path is not in ``keep``."""
    removed = 0
    for sub in ("bots", "games", "seasons", "tests", "static"):
        for entry in os.scandir(out / sub):
            name = f"{sub}/{entry.name}"
            if name in keep:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed += 1
    return removed


class SiteBuilder:
    """Renders every page of one ladder into ``out``."""

    def __init__(self, engine: Engine, out: Path, variant: str | None = None, workers: int = 1) -> None:
        self.engine = engine
        self.out = out
        self.variant = format_of(variant).name  # None: the default format
        self.workers = max(1, workers)
        self.env = environment()
        self.pages = 0
        self.written: set[str] = {f"static/{p.name}" for p in (data_dir("site") / "static").iterdir()}
        self.built_at = datetime.now(timezone.utc)

    def write(self, relative: str, template: str, root: str, **context: Any) -> None:
        text = self.env.get_template(template).render(root=root, built_at=self.built_at, ladder=self.ladder,
                                                      frag=self.frag, **context)
        (self.out / relative).write_text(text, encoding="utf-8")
        self.written.add(relative)
        self.pages += 1

    def build(self) -> BuildSummary:
        started = time.perf_counter()
        prepare_out(self.out)
        with Session(self.engine) as session:
            ladder = self.ladder = load_ladder(session, self.variant)
            self.flags = stored_flags(session)
            self.frag = Fragments(ladder)
            history = self.rating_history(session, ladder)
        pool, pending = self.start_game_pages(ladder)  # the bulk of the work, in other processes
        try:
            game_count = self.other_pages(ladder, history)
            if pending is None:
                ids = [g.id for g in ladder.games]
                game_count += self.game_pages_between(min(ids), max(ids)) if ids else 0
            else:
                game_count += sum(pending.get())
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
        self.pages += game_count
        closed = {s.id for s in ladder.seasons if s.closed_at is not None}
        remove_stale(self.out, self.written | {f"games/{g.id}.html" for g in ladder.games}
                     | {f"games/{replay_file(g.id)}" for g in ladder.games if g.season_id in closed})
        return BuildSummary(self.out, self.pages, game_count, time.perf_counter() - started)

    def other_pages(self, ladder: Ladder, history: dict[int, list[ChartPoint]]) -> int:
        """Every page but the game pages; returns 0 (no game pages written)."""
        season_rows = self.season_rows(ladder)
        for variant in (f.name for f in formats()):  # one board page per format; index.html is the --variant one
            self.board_page(ladder, variant, season_rows, f"{variant}.html")
        board = self.board_page(ladder, self.variant, season_rows, "index.html")
        rated = format_of(self.variant).ranking.rated
        keys = ([k for k in board[0] if k != "bot_id"] if board else []) if not rated else (
            "rank", "name", "author", "builtin", "version", "version_id", "score", "mu", "sigma", "games", "win_rate",
            "avg_coins", "failure_rate")
        (self.out / "leaderboard.json").write_text(json.dumps({
            "variant": self.variant, "built_at": self.built_at.isoformat(), "rows": [
                {key: row[key] for key in keys}
                | {"bot_id": row["bot_id"], "page": f"bots/{row['bot_id']}.html"} for row in board],
        }, indent=1), encoding="utf-8")
        self.written.add("leaderboard.json")
        self.pages += 1
        self.bot_pages(ladder, history)
        self.season_pages(ladder, season_rows)
        self.test_pages()
        self.audit_page()
        self.write_game_lists("games/page-{}.html", ladder.games, "All games", "../", listing="games")
        return 0

    def board_page(self, ladder: Ladder, variant: str, season_rows: list[dict[str, Any]],
                   page: str) -> list[dict[str, Any]]:
        """Write one format's leaderboard page (and ``leaderboard-<variant>.json``); returns its rows."""
        rows = ladder.boards[variant]
        mine = [r for r in season_rows if r["season"].variant == variant]
        total = sum(1 for g in ladder.games if g.status == "done" and format_of(g.rules_id).name == variant)
        ranking = format_of(variant).ranking
        if not ranking.rated:
            board = [row.to_json() | {"bot_id": ladder.versions[row.version_id].bot_id} for row in rows]
        else:
            board = self.board_rows(ladder, self.version_stats(ladder, variant), rows)
        self.write(page, ranking.page, "", board=board, seasons=mine, variant=variant, total_games=total,
                   fmt=format_of(variant))
        if page != "index.html":
            keys = [k for k in board[0] if k != "bot_id"] if board else []
            (self.out / f"leaderboard-{variant}.json").write_text(json.dumps({
                "variant": variant, "built_at": self.built_at.isoformat(),
                "rows": [{k: row[k] for k in keys} | {"bot_id": row["bot_id"], "page": f"bots/{row['bot_id']}.html"}
                         for row in board]}, indent=1, default=str), encoding="utf-8")
            self.written.add(f"leaderboard-{variant}.json")
            self.pages += 1
        return board

    # ----------------------------------------------------------------- figures
    def version_stats(self, ladder: Ladder, variant: str | None = None) -> dict[int, Tally]:
        """Per version, its rated games (of ``variant``: the ``--variant`` one by default)."""
        variant = variant or self.variant
        stats: dict[int, Tally] = defaultdict(Tally)
        for game in ladder.games:
            if game.status == "done" and format_of(game.rules_id).name == variant:
                for seat in game.seats:
                    stats[seat.version_id].add(seat)
        return stats

    def board_rows(self, ladder: Ladder, stats: dict[int, Tally],
                   board: Sequence[Standing] | None = None) -> list[dict[str, Any]]:
        """The board's rows as the pages and the JSON show them: each standing's JSON, its bot's id and
        the version's figures in ``stats`` (``board``: the site format's board by default)."""
        rows = []
        for row in ladder.board if board is None else board:
            tally = stats.get(row.version_id, Tally())
            bot_id = ladder.versions[row.version_id].bot_id
            rows.append(row.to_json() | {"bot_id": bot_id, "win_rate": tally.win_rate, "avg_coins": tally.avg_coins,
                                         "failure_rate": tally.failure_rate, "played": tally.games})
        return rows

    def season_rows(self, ladder: Ladder) -> list[dict[str, Any]]:
        by_season: dict[int, list[GameRow]] = defaultdict(list)
        for game in ladder.games:
            by_season[game.season_id].append(game)
        rows = []
        for season in reversed(ladder.seasons):
            games = by_season.get(season.id, [])  # type: ignore[arg-type]
            dates = [g.finished_at for g in games if g.finished_at]
            rows.append({"season": season, "games": games,
                         "done": sum(1 for g in games if g.status == "done"),
                         "void": sum(1 for g in games if g.status == "void"),
                         "first": min(dates) if dates else None, "last": max(dates) if dates else None})
        return rows

    def rating_history(self, session: Session, ladder: Ladder) -> dict[int, list[ChartPoint]]:
        """Per bot, every rating after a rated game, in recording order, each version starting at its prior."""
        rows = session.exec(select(RatingSnapshot.version_id, RatingSnapshot.mu, RatingSnapshot.sigma)
                            .where(RatingSnapshot.match_id == Match.id, RatingSnapshot.variant == self.variant)
                            .order_by(col(Match.rated_order))).all()
        history: dict[int, list[ChartPoint]] = defaultdict(list)
        for version_id, mu, sigma in rows:
            version = ladder.versions[version_id]
            points = history[version.bot_id]
            if not points or points[-1].version != version.number:
                points.append(ChartPoint(len(points) and points[-1].game, version.prior_mu, version.prior_sigma,
                                         version.number))
            points.append(ChartPoint(points[-1].game + 1, mu, sigma, version.number))
        return history

    # ----------------------------------------------------------------- pages
    def bot_pages(self, ladder: Ladder, history: dict[int, list[ChartPoint]]) -> None:
        games_of: dict[int, list[tuple[GameRow, SeatRow]]] = defaultdict(list)
        for game in ladder.games:
            for seat in game.seats:
                games_of[ladder.versions[seat.version_id].bot_id].append((game, seat))
        board = {row["bot_id"]: row for row in self.board_rows(ladder, self.version_stats(ladder))}
        for bot in ladder.bots.values():
            mine = games_of.get(bot.id, [])
            h2h: dict[int, list[float]] = defaultdict(lambda: [0, 0, 0, 0.0])  # games, wins, losses, coin diff
            failures: Counter[str] = Counter()
            failed: list[tuple[GameRow, SeatRow]] = []
            per_version: dict[int, Tally] = defaultdict(Tally)
            for game, seat in mine:
                if seat.status not in (None, "ok"):
                    failures[seat.status] += 1
                    failed.append((game, seat))
                if game.status != "done" or format_of(game.rules_id).name != self.variant:
                    continue  # the figures, chart, versions and head-to-head are of the site's format
                per_version[seat.version_id].add(seat)
                for other in game.seats:
                    other_bot = ladder.versions[other.version_id].bot_id
                    if other_bot == bot.id:
                        continue
                    row = h2h[other_bot]
                    row[0] += 1
                    row[1] += (seat.rank or 0) < (other.rank or 0)
                    row[2] += (seat.rank or 0) > (other.rank or 0)
                    row[3] += (seat.coins or 0) - (other.coins or 0)
            head: list[dict[str, Any]] = sorted(({"bot": ladder.bots[b], "games": int(r[0]), "wins": int(r[1]),
                                                  "losses": int(r[2]), "win_rate": r[1] / r[0],
                                                  "coin_diff": r[3] / r[0]} for b, r in h2h.items()),
                          key=lambda r: (-r["games"], r["bot"].name))
            numbers = sorted(v.number for v in bot.versions)
            versions = [{"version": v, "tally": per_version.get(v.id, Tally()),
                         "superseded_by": next((n for n in numbers if n > v.number), None)}
                        for v in reversed(bot.versions)]
            chart = rating_chart(history.get(bot.id, []), f"Rating history of {bot.name}")
            lists = pages_of(mine, BOT_GAMES_PER_PAGE)
            flags = [f for f in self.flags if bot.name in f.bots]
            self.write(f"bots/{bot.id}.html", "bot.html", "../", bot=bot, row=board.get(bot.id), chart=chart,
                       flags=flags, other_link=lambda f, me=bot.name: self.audit_link(f, me),
                       variant=self.variant,
                       versions=versions, head=head, head_rows=self.head_rows(bot, head),
                       recent=self.frag.bot_game_rows(mine[:RECENT_GAMES], filterable=False),
                       failures=failures.most_common(), failed=failed[:10], game_count=len(mine),
                       list_pages=len(lists))
            options = Markup("".join(f'<option value="{b.id}">{escape(b.name)}</option>'
                                     for b in sorted((r["bot"] for r in head), key=lambda b: b.name)))
            for number, chunk in enumerate(lists, start=1):
                self.write(f"bots/{bot.id}-games-{number}.html", "bot_games.html", "../", bot=bot,
                           rows=self.frag.bot_game_rows(chunk, filterable=True), page=number, pages=len(lists),
                           game_count=len(mine), options=options)

    def audit_link(self, flag: StoredFlag, me: str) -> Markup:
        """The link, from a bot's page, to the other bot of its flagged pair."""
        return self.named_bot_link(flag.bots[1] if flag.bots[0] == me else flag.bots[0], "../")

    def named_bot_link(self, name: str, root: str) -> Markup:
        """A bot's link by its name (flags name bots), or the name as text if the ladder has no such bot."""
        bot = next((b for b in self.ladder.bots.values() if b.name == name), None)
        return self.frag.bot_link(bot, root) if bot is not None else Markup(escape(name))

    def head_rows(self, bot: BotInfo, head: list[dict[str, Any]]) -> Markup:
        rows = []
        for h in head:
            diff = h["coin_diff"]
            tone = "pos" if diff > 0 else "neg" if diff < 0 else ""
            rows.append(f'<tr><td data-value="{escape(h["bot"].name)}">{self.frag.bot_link(h["bot"])}</td>'
                        f'<td class="num" data-value="{h["games"]}">{h["games"]}</td>'
                        f'<td class="num" data-value="{h["wins"]}">{h["wins"]}</td>'
                        f'<td class="num" data-value="{h["losses"]}">{h["losses"]}</td>'
                        f'<td class="num" data-value="{h["win_rate"]:.4f}">{fmt_pct(h["win_rate"])}</td>'
                        f'<td class="num {tone}" data-value="{diff:.4f}">{diff:+.2f}</td>'
                        f'<td><a href="{bot.id}-games-1.html#vs-{h["bot"].id}">games</a></td></tr>')
        return Markup("\n".join(rows))

    def season_pages(self, ladder: Ladder, season_rows: list[dict[str, Any]]) -> None:
        self.write("seasons/index.html", "seasons.html", "../", seasons=season_rows)
        for row in season_rows:
            season: Season = row["season"]
            tallies: dict[int, Tally] = defaultdict(Tally)
            for game in row["games"]:
                if game.status == "done":
                    for seat in game.seats:
                        tallies[ladder.versions[seat.version_id].bot_id].add(seat)
            standings: list[dict[str, Any]] = sorted(({"bot": ladder.bots[b], "tally": t} for b, t in tallies.items()),
                               key=lambda r: (-(r["tally"].win_rate or 0), -(r["tally"].avg_coins or 0), r["bot"].name))
            pages = self.write_game_lists(f"seasons/{season.id}-games-{{}}.html", row["games"],
                                          f"Games of season {season.name}", "../", listing=f"season-{season.id}")
            self.write(f"seasons/{season.id}.html", "season.html", "../", row=row, season=season, standings=standings,
                       recent=self.frag.game_rows(row["games"][:RECENT_GAMES], "../", False), list_pages=pages)

    def audit_page(self) -> None:
        """The pairs the integrity audit flagged, standing and cleared (their bots' pages list them too)."""
        self.write("audit.html", "audit.html", "", flags=self.flags,
                   bot_link=lambda name: self.named_bot_link(name, ""))

    def test_pages(self) -> None:
        """The stored `arena test` runs: an index and a page each, with the LLR over games."""
        with Session(self.engine) as session:
            tests = all_tests(session)
        rows = [self.test_row(t) for t in reversed(tests)]  # newest first
        self.write("tests/index.html", "tests.html", "../", tests=rows)
        for row in rows:
            test: StoredTest = row["test"]
            h = test.settings.hypotheses
            chart = llr_chart(test.llr_series(), h.lower, h.upper, row["games_per_pair"],
                              f"LLR of test {test.settings.name} over games")
            bots = [{"role": role_name(role), "bot": bot} for role, bot in enumerate(test.settings.bots)]
            counts = [{"score": score, "count": count} for score, count in zip(PAIR_SCORES, test.results.counts)]
            self.write(f"tests/{test.id}.html", "test.html", "../", row=row, test=test, hypotheses=h, chart=chart,
                       bots=bots, counts=counts)

    @staticmethod
    def test_row(test: StoredTest) -> dict[str, Any]:
        try:
            per_pair = 2 if head_to_head(format_of(test.settings.variant)) else 4
        except ValueError:  # a format whose module is not loaded now
            per_pair = 4
        elo, low, high = test.results.elo()
        h = test.settings.hypotheses
        state = (("undecided" if test.row.verdict is None else test.row.verdict) if test.finished
                 else "stopped" if test.results.pairs or test.void else "not started")
        return {"test": test, "new": test.settings.bots[0].name, "old": test.settings.bots[1].name,
                "pairs": test.results.pairs, "games": test.results.pairs * per_pair, "games_per_pair": per_pair,
                "llr": test.results.llr(h), "elo": elo, "elo_low": low, "elo_high": high, "state": state,
                "verdict": verdict_text(test.settings, test.row.verdict, test.results.pairs, test.finished),
                "field": ", ".join(b.name for b in test.settings.field) or "none (head to head)"}

    def write_game_lists(self, pattern: str, games: Sequence[GameRow], title: str, root: str, listing: str) -> int:
        chunks = pages_of(games, GAMES_PER_PAGE)
        for number, chunk in enumerate(chunks, start=1):
            show_season = listing == "games"
            self.write(pattern.format(number), "games.html", root, rows=self.frag.game_rows(chunk, root, show_season),
                       show_season=show_season, title=title, page=number, pages=len(chunks),
                       pattern=Path(pattern).name, total=len(games))
        return len(chunks)

    def start_game_pages(self, ladder: Ladder) -> tuple[Any, Any]:
        """Start writing the game pages in forked workers: (pool, pending result), or (None, None)
        when the ladder is small or one process was asked for (the caller then writes them)."""
        ids = sorted(g.id for g in ladder.games)
        if self.workers == 1 or len(ids) < 500:
            return None, None
        size = -(-len(ids) // self.workers)
        ranges = [(ids[i], ids[min(i + size, len(ids)) - 1]) for i in range(0, len(ids), size)]
        global _BUILDER
        _BUILDER = self
        self.engine.dispose()  # no database connection may cross the fork
        try:
            pool = multiprocessing.get_context("fork").Pool(len(ranges))
        finally:
            _BUILDER = None
        return pool, pool.starmap_async(_game_pages_worker, ranges)

    def game_pages_between(self, first: int, last: int) -> int:
        """Write the page of every played game with an id in ``first..last``; returns how many."""
        ladder = self.ladder
        by_id = {g.id: g for g in ladder.games}
        seasons = {s.id: s for s in ladder.seasons}
        template = self.env.get_template("game.html")
        rules_meta: dict[str, dict[str, Any]] = {}
        written = 0
        with Session(self.engine) as session:
            query = (select(Match.id, Match.replay, Match.seed)
                     .where(Match.status != "planned", col(Match.id) >= first, col(Match.id) <= last)
                     .order_by(col(Match.id)).execution_options(yield_per=500))
            for match_id, replay, seed in session.exec(query):
                game = by_id.get(match_id) if match_id is not None else None
                if game is None:  # a game of a season whose deals are still secret
                    continue
                if game.rules_id not in rules_meta:
                    rules_meta[game.rules_id] = _rules_meta(game.rules_id)
                names = [_seat_label(ladder.bot_of(s.version_id).name, ladder.versions[s.version_id].number)
                         for s in game.seats]
                meta = {"rules": rules_meta[game.rules_id], "seats": names,
                        "coins": [s.coins for s in game.seats], "ranks": [s.rank for s in game.seats],
                        "failures": [[s.seat, s.failure_step, s.status,
                                      f"../bots/{ladder.bot_of(s.version_id).id}.html#failure-{match_id}-{s.seat}"]
                                     for s in game.seats if s.failure_step is not None]}
                page = self.out / f"games/{match_id}.html"
                key = steps_key(replay or "", names)
                steps = earlier_steps(page, key)
                if steps is None:
                    try:  # the sentences name the seats as the page does
                        steps = spectator_json(replay, names) if replay else ""
                    except SiteError as exc:
                        raise SiteError(f"game {match_id}: {exc}") from None
                season = seasons.get(game.season_id)
                published: dict[str, object] | None = None  # a closed season deals no more: its seeds are public
                if replay and season is not None and season.closed_at is not None:
                    name = replay_file(game.id)
                    (self.out / "games" / name).write_text(replay, encoding="utf-8")
                    published = {"file": name, "seed": seed}
                text = template.render(root="../", built_at=self.built_at, ladder=ladder, game=game,
                                       seat_rows=self.frag.seat_rows(game), season=season, meta=meta,
                                       steps=Markup(steps), steps_key=key, published=published,
                                       has_replay=bool(replay), spectator=format_of(game.rules_id).spectator)
                page.write_text(text, encoding="utf-8")
                written += 1
        return written


_BUILDER: SiteBuilder | None = None  # the builder a forked worker inherits


def _game_pages_worker(first: int, last: int) -> int:
    assert _BUILDER is not None
    return _BUILDER.game_pages_between(first, last)


def replay_file(match_id: int) -> str:
    """The name of a published game's replay file, beside its page (``arena replay`` plays it)."""
    return f"{match_id}.replay.json"


def _seat_label(name: str, version: int) -> str:
    return f"{name} v{version}" if version > 1 else name


def _rules_meta(rules_id: str) -> dict[str, Any]:
    try:
        rules = rules_for(rules_id)
    except ValueError as exc:
        raise SiteError(f"game with unknown rules {rules_id!r}: {exc}") from None
    meta = {"id": rules.id, "hand_size": rules.hand_size, "deck_size": rules.deck_size,
            "gifts_by_consent": rules.gifts_by_consent,
            "start_fields": rules.start_fields, "turn_up": rules.turn_up, "draw": rules.draw,
            "reshuffles": rules.reshuffles, "beans": {t.bean.value: t.name for t in rules.bean_types},
            "meters": {t.bean.value: list(t.beanometer) for t in rules.bean_types}}
    return meta | dict(format_of(rules_id).spectator.facts(rules))


def build_site(engine: Engine, out: Path, variant: str | None = None, workers: int | None = None) -> BuildSummary:
    """Build the whole site from the database behind ``engine`` into the folder ``out`` (its home page
    the board of ``variant``; None: the default format)."""
    if workers is None:
        workers = min(4, os.cpu_count() or 1)
    return SiteBuilder(engine, out, variant, workers).build()
