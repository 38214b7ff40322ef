"""The static site: leaderboard, bot, season and game pages (with a replay viewer) from the ladder database.

Templates and static assets live in the project's top-level ``site/`` folder (not a Python
package). Every page links relatively, so the folder works from disk (file://) and any static host.
File names come from database ids, never from names.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.db import Bot, BotVersion, Match, MatchSeat, RatingSnapshot, Season, prior_mean
from arena.formats import format_of, formats
from arena.ladder import deals_secret, leaderboard
from arena.paths import data_dir
from arena.text import shown
from engine import new_game, rules_for
from engine.replay import Replay
from engine.vine import TASKS

MARKER = ".arena-site"
GAMES_PER_PAGE = 100
BOT_GAMES_PER_PAGE = 500
RECENT_GAMES = 20
CHART_POINTS = 400


class SiteError(RuntimeError):
    """The site cannot be built as asked (output folder, missing templates)."""


# ----------------------------------------------------------------- public replay data
_OFFER = re.compile(r'"type":"offer","give_hand":\[[0-9,]*\],"give_trade":\[([0-9,]*)\]')
_CONFIRM = re.compile(r'"type":"confirm","response":([0-9]+),"give_hand":\[[0-9,]*\],"give_trade":\[([0-9,]*)\]')
_PLANT_TRADED = re.compile(r'"type":"plant_traded","card":([0-9]+)')


def script_json(text: str) -> str:
    """JSON text made safe inside a <script> element (no '<', '>' or '&' left)."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def public_replay(text: str) -> tuple[str, str]:
    """(events, hints) as JSON text from a stored replay, with nothing hidden in them.

    Events are public by design. The hints are what the viewer needs besides them to follow the
    trading areas: the trading-area positions each offer and confirmation gave, in order
    (``o``: per ``offered`` event, ``c``: ``[response, positions]`` per confirmation), and the card
    of each planting from the trading area (``p``). Hand positions, the seed and the hands' contents
    are left out. Replays written by ``Replay.dumps`` take a fast path over the text; anything
    else is parsed.
    """
    start = text.find(',"actions":[')
    middle = text.find(',"events":[', start)
    end = text.find(',"result":', middle)
    if text.startswith('{"format":1,') and 0 < start < middle < end:
        actions = text[start:middle]
        offers = _OFFER.findall(actions)
        confirms = _CONFIRM.findall(actions)
        plants = _PLANT_TRADED.findall(actions)
        if (len(offers) == actions.count('"type":"offer"') and len(confirms) == actions.count('"type":"confirm"')
                and len(plants) == actions.count('"type":"plant_traded"')):
            hints = ('{"o":[' + ",".join(f"[{g}]" for g in offers) + '],"c":['
                     + ",".join(f"[{r},[{g}]]" for r, g in confirms) + '],"p":[' + ",".join(plants) + "]}")
            return script_json(text[middle + 10:end]), hints
    return _public_replay_parsed(text)


def _public_replay_parsed(text: str) -> tuple[str, str]:
    try:
        data = json.loads(text)
        events, actions = data["events"], data["actions"]
        offers, confirms, plants = [], [], []
        for _seat, action in actions:
            kind = action.get("type")
            if kind == "offer":
                offers.append([int(i) for i in action.get("give_trade", [])])
            elif kind == "confirm":
                confirms.append([int(action["response"]), [int(i) for i in action.get("give_trade", [])]])
            elif kind == "plant_traded":
                plants.append(int(action["card"]))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SiteError(f"malformed replay {text[:120]!r}: {exc}") from None
    compact = (",", ":")
    return (script_json(json.dumps(events, separators=compact)),
            json.dumps({"o": offers, "c": confirms, "p": plants}, separators=compact))


def princes_steps(text: str) -> str:
    """The public table after the deal and after every action of a stored duel or solo game, as JSON
    text: ``[[events so far, snapshot], …]``, computed by re-simulating the game with the engine.

    A snapshot holds only what every player sees (P-8): fields, gold (counted from the public harvests and
    payments), hand sizes, figures, the middle, the face-up vine cards, the sizes of the supply, the
    discard pile and the box, and the discard pile's top card. Never a hand, the supply's order or a
    face-down vine card.
    """
    try:
        replay = Replay.loads(text)
        game = new_game(rules_for(replay.rules_id), len(replay.seats), replay.seed)
        steps = [[len(game.events), _princes_snapshot(game)]]
        for _seat, action in replay.actions:
            game.apply(action)
            steps.append([len(game.events), _princes_snapshot(game)])
    except ValueError as exc:
        raise SiteError(f"cannot re-simulate replay {text[:120]!r}: {exc}") from None
    if tuple(game.events) != replay.events:
        raise SiteError(f"replay of seed {replay.seed} does not re-simulate to its recorded events")
    return script_json(json.dumps(steps, separators=(",", ":")))


def _princes_snapshot(game: Any) -> dict[str, Any]:
    return {
        "turn": game.turn, "active": game.active, "phase": game.phase.value if game.phase else None,
        "over": game.over, "ranks": list(game.result.ranks) if game.result else None,
        "fields": [[[b.value if b else None, n] for b, n in zip(s.field_beans, s.field_counts)] for s in game.seats],
        "coins": [s.coins for s in game.seats], "hands": [len(s.hand) for s in game.seats],
        "figures": [s.position for s in game.seats], "neutral": [[n, p] for n, p in game.neutral_positions()],
        "middle": [[b.value, n] for b, n in game.middle.items()],
        "vine": [t if k < game.revealed else None for k, t in enumerate(game.vine)],
        "deck": len(game.deck), "discard": len(game.discard),
        "top": game.discard[-1].value if game.discard else None, "box": len(game.box),
        "reshuffles": game.reshuffles,
    }


# ----------------------------------------------------------------- the ladder in memory
@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    coins: int = 0
    failures: int = 0

    def add(self, seat: SeatRow) -> None:
        self.games += 1
        self.wins += seat.rank == 1
        self.coins += seat.coins or 0
        self.failures += seat.status != "ok"

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def avg_coins(self) -> float | None:
        return self.coins / self.games if self.games else None

    @property
    def failure_rate(self) -> float | None:
        return self.failures / self.games if self.games else None


@dataclass
class SeatRow:
    match_id: int
    seat: int
    version_id: int
    coins: int | None
    rank: int | None
    status: str | None
    detail: str


@dataclass
class GameRow:
    id: int
    season_id: int
    number: int
    status: str
    rules_id: str
    finished_at: datetime | None
    seconds: float | None
    void_reason: str | None
    seats: list[SeatRow] = field(default_factory=list)


@dataclass
class VersionInfo:
    id: int
    bot_id: int
    number: int
    active: bool
    created_at: datetime
    prior_mu: float
    prior_sigma: float


@dataclass
class BotInfo:
    id: int
    name: str
    author: str
    builtin: bool
    created_at: datetime
    versions: list[VersionInfo] = field(default_factory=list)


@dataclass
class Ladder:
    bots: dict[int, BotInfo]
    versions: dict[int, VersionInfo]
    seasons: list[Season]
    games: list[GameRow]  # played (done or void), newest first
    board: list[dict[str, Any]]
    season_names: dict[int, str] = field(default_factory=dict)
    boards: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # every variant's leaderboard

    def bot_of(self, version_id: int) -> BotInfo:
        return self.bots[self.versions[version_id].bot_id]


def load_ladder(session: Session, variant: str) -> Ladder:
    """Everything the pages show except the replays, with few queries and no ORM objects per row."""
    bots = {row.id: BotInfo(row.id, row.name, shown(row.author), row.builtin, row.created_at)
            for row in session.exec(select(Bot)).all()}
    versions: dict[int, VersionInfo] = {}
    for vid, bot_id, number, active, created, mu, priors, sigma in session.exec(select(
            BotVersion.id, BotVersion.bot_id, BotVersion.number, BotVersion.active, BotVersion.created_at,
            BotVersion.prior_mu, BotVersion.priors, BotVersion.prior_sigma).order_by(BotVersion.number)).all():
        versions[vid] = VersionInfo(vid, bot_id, number, active, created, prior_mean(priors, mu, variant), sigma)
        bots[bot_id].versions.append(versions[vid])
    seasons = list(session.exec(select(Season).order_by(Season.id)).all())
    secret = {s.id for s in seasons if deals_secret(s)}  # their standings are shown, never their games
    games: dict[int, GameRow] = {}
    for row in session.exec(select(Match.id, Match.season_id, Match.number, Match.status, Match.rules_id,
                                   Match.finished_at, Match.seconds, Match.void_reason)
                            .where(Match.status != "planned")).all():
        if row[1] not in secret:
            games[row[0]] = GameRow(*row)
    for row in session.exec(select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.version_id, MatchSeat.coins,
                                   MatchSeat.rank, MatchSeat.status, MatchSeat.detail)
                            .order_by(MatchSeat.match_id, MatchSeat.seat)).all():
        game = games.get(row[0])
        if game is not None:
            game.seats.append(SeatRow(*row))
    ordered = sorted(games.values(), key=lambda g: (g.finished_at or datetime.min, g.id), reverse=True)
    names = {s.id: s.name for s in seasons}
    boards = {f.name: leaderboard(session, f.name) for f in formats()}
    return Ladder(bots, versions, seasons, ordered, boards[variant], names, boards)  # type: ignore[arg-type]


# ----------------------------------------------------------------- formatting
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
            rows.append(f'<tr class="{"winner" if s.rank == 1 else ""}"><td>{s.seat}</td>'
                        f"<td>{self.bot_link(bot, '../', self.ladder.versions[s.version_id])}</td>"
                        f'<td class="num coins">{s.coins}</td><td class="num rank">{s.rank}</td>'
                        f"<td>{self.status(s)}{detail}</td></tr>")
        return Markup("\n".join(rows))


# ----------------------------------------------------------------- the rating chart
@dataclass(frozen=True)
class ChartPoint:
    game: int  # the bot's n-th rated game, 0 for a version's prior
    mu: float
    sigma: float
    version: int


def rating_chart(points: Sequence[ChartPoint], title: str, width: int = 760, height: int = 280) -> Markup:
    """An inline SVG: mu with a ±sigma band, the score mu − 3σ dashed, a marker at every new version."""
    if len(points) > CHART_POINTS:  # keep the page light; never drop a version change or the end
        step = len(points) / CHART_POINTS
        keep = {int(i * step) for i in range(CHART_POINTS)} | {len(points) - 1}
        keep |= {i for i in range(1, len(points)) if points[i].version != points[i - 1].version}
        points = [p for i, p in enumerate(points) if i in keep]
    left, right, top, bottom = 48, 16, 16, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>']
    if not points:
        parts.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" class="muted">no rated games yet</text></svg>')
        return Markup("".join(parts))
    lows = [min(p.mu - 3 * p.sigma, p.mu - p.sigma) for p in points]
    highs = [p.mu + p.sigma for p in points]
    y_min, y_max = min(lows), max(highs)
    if y_max - y_min < 1:
        y_min, y_max = y_min - 0.5, y_max + 0.5
    x_max = max(points[-1].game, 1)

    def x(game: float) -> float:
        return left + plot_w * game / x_max

    def y(value: float) -> float:
        return top + plot_h * (y_max - value) / (y_max - y_min)

    for tick in _ticks(y_min, y_max, 5):
        parts.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}"/>'
                     f'<text class="axis" x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
    for tick in _ticks(0, x_max, 6):
        if tick == int(tick):
            parts.append(f'<text class="axis" x="{x(tick):.1f}" y="{height - bottom + 16}" text-anchor="middle">{int(tick)}</text>')
    parts.append(f'<text class="axis" x="{left + plot_w / 2}" y="{height - 2}" text-anchor="middle">rated games</text>')
    band = ([f"{x(p.game):.1f},{y(p.mu + p.sigma):.1f}" for p in points]
            + [f"{x(p.game):.1f},{y(p.mu - p.sigma):.1f}" for p in reversed(points)])
    parts.append(f'<polygon class="band" points="{" ".join(band)}"/>')
    parts.append('<polyline class="mu" points="' + " ".join(f"{x(p.game):.1f},{y(p.mu):.1f}" for p in points) + '"/>')
    parts.append('<polyline class="score" points="'
                 + " ".join(f"{x(p.game):.1f},{y(p.mu - 3 * p.sigma):.1f}" for p in points) + '"/>')
    for i, p in enumerate(points):
        if i == 0 or p.version != points[i - 1].version:
            parts.append(f'<line class="version" x1="{x(p.game):.1f}" x2="{x(p.game):.1f}" y1="{top}" '
                         f'y2="{top + plot_h}"/><text class="version-label" x="{x(p.game) + 3:.1f}" '
                         f'y="{top + 11}">v{p.version}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _ticks(low: float, high: float, count: int) -> list[float]:
    span = high - low
    raw = span / max(count, 1)
    magnitude = 10 ** int(f"{raw:e}".split("e")[1])
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = -(-low // step) * step
    ticks, value = [], first
    while value <= high + 1e-9:
        ticks.append(round(value, 6))
        value += step
    return ticks


# ----------------------------------------------------------------- building
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
    env.globals["formats"] = lambda: [(f.name, f.title) for f in formats()]  # the navigation, at render time
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
    for sub in ("bots", "games", "seasons"):
        (out / sub).mkdir(exist_ok=True)
    shutil.copytree(data_dir("site") / "static", out / "static", dirs_exist_ok=True)


def remove_stale(out: Path, keep: set[str]) -> int:
    """Delete the files under ``out``'s site folders whose relative path is not in ``keep``."""
    removed = 0
    for sub in ("bots", "games", "seasons", "static"):
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

    def __init__(self, engine: Engine, out: Path, variant: str = "classic", workers: int = 1) -> None:
        self.engine = engine
        self.out = out
        self.variant = variant
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
        remove_stale(self.out, self.written | {f"games/{g.id}.html" for g in ladder.games})
        return BuildSummary(self.out, self.pages, game_count, time.perf_counter() - started)

    def other_pages(self, ladder: Ladder, history: dict[int, list[ChartPoint]]) -> int:
        """Every page but the game pages; returns 0 (no game pages written)."""
        season_rows = self.season_rows(ladder)
        for variant in (f.name for f in formats()):  # one board page per format; index.html is the --variant one
            self.board_page(ladder, variant, season_rows, f"{variant}.html")
        board = self.board_page(ladder, self.variant, season_rows, "index.html")
        keys = ([k for k in board[0] if k != "bot_id"] if board else []) if not format_of(self.variant).ranking.rated else (
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
        self.write_game_lists("games/page-{}.html", ladder.games, "All games", "../", listing="games")
        return 0

    def board_page(self, ladder: Ladder, variant: str, season_rows: list[dict[str, Any]], page: str) -> list[dict[str, Any]]:
        """Write one format's leaderboard page (and ``leaderboard-<variant>.json``); returns its rows."""
        rows = ladder.boards[variant]
        mine = [r for r in season_rows if r["season"].variant == variant]
        total = sum(1 for g in ladder.games if g.status == "done" and format_of(g.rules_id).name == variant)
        ranking = format_of(variant).ranking
        if not ranking.rated:
            board = [row | {"bot_id": ladder.versions[row["version_id"]].bot_id} for row in rows]
        else:
            board = self.board_rows(ladder, self.version_stats(ladder, variant), rows)
        self.write(page, ranking.page, "", board=board, seasons=mine, variant=variant, total_games=total)
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
                   board: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        rows = []
        for row in ladder.board if board is None else board:
            tally = stats.get(row["version_id"], Tally())
            bot_id = ladder.versions[row["version_id"]].bot_id
            rows.append(row | {"bot_id": bot_id, "win_rate": tally.win_rate, "avg_coins": tally.avg_coins,
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
                            .order_by(Match.rated_order)).all()
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
            head = sorted(({"bot": ladder.bots[b], "games": int(r[0]), "wins": int(r[1]), "losses": int(r[2]),
                            "win_rate": r[1] / r[0], "coin_diff": r[3] / r[0]} for b, r in h2h.items()),
                          key=lambda r: (-r["games"], r["bot"].name))
            versions = [{"version": v, "tally": per_version.get(v.id, Tally())} for v in reversed(bot.versions)]
            chart = rating_chart(history.get(bot.id, []), f"Rating history of {bot.name}")
            lists = pages_of(mine, BOT_GAMES_PER_PAGE)
            self.write(f"bots/{bot.id}.html", "bot.html", "../", bot=bot, row=board.get(bot.id), chart=chart,
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
            standings = sorted(({"bot": ladder.bots[b], "tally": t} for b, t in tallies.items()),
                               key=lambda r: (-(r["tally"].win_rate or 0), -(r["tally"].avg_coins or 0), r["bot"].name))
            pages = self.write_game_lists(f"seasons/{season.id}-games-{{}}.html", row["games"],
                                          f"Games of season {season.name}", "../", listing=f"season-{season.id}")
            self.write(f"seasons/{season.id}.html", "season.html", "../", row=row, season=season, standings=standings,
                       recent=self.frag.game_rows(row["games"][:RECENT_GAMES], "../", False), list_pages=pages)

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
            query = (select(Match.id, Match.replay).where(Match.status != "planned", Match.id >= first, Match.id <= last)
                     .order_by(Match.id).execution_options(yield_per=500))
            for match_id, replay in session.exec(query):
                game = by_id.get(match_id)
                if game is None:  # a game of a season whose deals are still secret
                    continue
                if game.rules_id not in rules_meta:
                    rules_meta[game.rules_id] = _rules_meta(game.rules_id)
                princes = rules_meta[game.rules_id].get("princes") is not None
                events, hints = public_replay(replay) if replay else ("[]", '{"o":[],"c":[],"p":[]}')
                if princes and replay:
                    hints = princes_steps(replay)  # the viewer shows these snapshots, step by step
                meta = {"rules": rules_meta[game.rules_id],
                        "seats": [_seat_label(ladder.bot_of(s.version_id).name, ladder.versions[s.version_id].number)
                                  for s in game.seats],
                        "coins": [s.coins for s in game.seats], "ranks": [s.rank for s in game.seats]}
                text = template.render(root="../", built_at=self.built_at, ladder=ladder, game=game,
                                       seat_rows=self.frag.seat_rows(game),
                                       season=seasons.get(game.season_id), meta=meta,
                                       events=Markup(events), hints=Markup(script_json(hints)),
                                       has_replay=bool(replay), princes=princes)
                (self.out / f"games/{match_id}.html").write_text(text, encoding="utf-8")
                written += 1
        return written


_BUILDER: SiteBuilder | None = None  # the builder a forked worker inherits


def _game_pages_worker(first: int, last: int) -> int:
    assert _BUILDER is not None
    return _BUILDER.game_pages_between(first, last)


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
            "reshuffles": rules.reshuffles, "beans": {t.bean.value: t.name for t in rules.bean_types}}
    if rules.princes is not None:
        meta["princes"] = {"solo": rules.princes.solo, "castle": rules.princes.cards + 1,
                           "tasks": {t: TASKS[t] for t in rules.princes.tasks},
                           "castle_gold": rules.princes.castle_gold}
    return meta


def build_site(engine: Engine, out: Path, variant: str = "classic", workers: int | None = None) -> BuildSummary:
    """Build the whole site from the database behind ``engine`` into the folder ``out``."""
    if workers is None:
        workers = min(4, os.cpu_count() or 1)
    return SiteBuilder(engine, out, variant, workers).build()


__all__ = ["BuildSummary", "SiteError", "build_site", "public_replay", "rating_chart", "script_json"]
