"""The game pages: each played game's results and its replay viewer (one page per game, the bulk of a
build: ``GamePages.write`` writes some of them, in whichever process is given them; ``GamePages.stale`` says
which: a page made from the same inputs by the same builder is neither made, read nor written again)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from markupsafe import Markup
from sqlalchemy import Integer, func
from sqlalchemy import select as sa_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.db import Match, stored_id
from arena.formats import format_of
from engine import rules_for

from arena.site.errors import SiteError
from arena.site.manifest import Entry, digest, write_atomic
from arena.site.model import GameRow
from arena.site.render import Renderer
from arena.site.replays import earlier_steps, spectator_json, steps_key


@dataclass(frozen=True)
class PublishedReplay:
    """A closed season's game, whose deal is dealt no more: its deck seed and its replay file, beside its page."""

    file: str
    seed: int


def replay_file(match_id: int) -> str:
    """The name of a published game's replay file, beside its page (``arena replay`` plays it)."""
    return f"{match_id}.replay.json"


def seat_label(name: str, version: int) -> str:
    return f"{name} v{version}" if version > 1 else name


def rules_meta(rules_id: str) -> dict[str, Any]:
    """The facts of a game's rules its replay viewer draws with (the common ones, then its format's)."""
    try:
        rules = rules_for(rules_id)
    except ValueError as exc:
        raise SiteError(f"game with unknown rules {rules_id!r}: {exc}") from None
    meta = {"id": rules.id, "hand_size": rules.hand_size, "deck_size": rules.deck_size,
            "gifts_by_consent": rules.gifts_by_consent, "money": list(rules.money),
            "start_fields": rules.start_fields, "turn_up": rules.turn_up, "draw": rules.draw,
            "reshuffles": rules.reshuffles, "beans": {t.bean.value: t.name for t in rules.bean_types},
            "meters": {t.bean.value: list(t.beanometer) for t in rules.bean_types}}
    return meta | dict(format_of(rules_id).spectator.facts(rules))


#: a failed seat as the viewer marks it: seat, the step it failed at, its status, the link to its evidence (or "")
ViewerFailure = tuple[int, int, str | None, str]


def viewer_meta(rules: dict[str, Any], names: Sequence[str], coins: Sequence[int | None],
                ranks: Sequence[int | None], failures: Sequence[ViewerFailure] = ()) -> dict[str, Any]:
    """What a replay viewer draws a game with besides its steps (the page's ``replay-meta`` JSON): its rules'
    facts (``rules_meta``), the seats as the page names them, their gold and ranks, and the failed seats. A
    season's game page, a test run's and a local replay page all make it here."""
    return {"rules": rules, "seats": list(names), "coins": list(coins), "ranks": list(ranks),
            "failures": [list(f) for f in failures]}


def viewer_steps(replay: str, names: Sequence[str], page: Path | None = None) -> tuple[Markup, str]:
    """A replay viewer's steps (the page's ``replay-steps`` JSON, safe inside a <script>) and their key: taken
    from ``page`` when an earlier build wrote them there from the same replay and names, else re-simulated.
    Raises ``SiteError`` for a replay that cannot be read."""
    key = steps_key(replay, names)
    steps = None if page is None else earlier_steps(page, key)
    if steps is None:  # the sentences name the seats as the page does
        steps = spectator_json(replay, names) if replay else ""
    return Markup(steps), key


#: what a worker sends back: the files it wrote (path: manifest entry), and a warning per game it skipped (by id)
Written = tuple[dict[str, Entry], dict[int, str]]


class GamePages:
    """Writes game pages from the database behind ``engine`` with ``renderer``'s ladder and templates; ``keys``
    says which pages are fresh (made from the same inputs by the same builder) and need no work at all."""

    def __init__(self, engine: Engine, renderer: Renderer, builder: str) -> None:
        self.engine = engine
        self.renderer = renderer
        self.seasons = {stored_id(s): s for s in renderer.ladder.seasons}
        self.keys: dict[int, str] = {}
        with Session(engine) as session:  # a recorded replay never changes: its stored size stands for it
            stored = {row[0]: row[1] for row in session.execute(
                sa_select(col(Match.id), func.length(col(Match.replay), type_=Integer))
                .where(col(Match.status) != "planned")).all()}
        for game in renderer.ladder.games:
            self.keys[game.id] = digest(builder, repr(game), repr(self.names(game)), repr(self.bot_ids(game)),
                                        repr(self.season_facts(game)), str(stored.get(game.id)))

    def names(self, game: GameRow) -> list[str]:
        ladder = self.renderer.ladder
        return [seat_label(ladder.bot_of(s.version_id).name, ladder.versions[s.version_id].number) for s in game.seats]

    def bot_ids(self, game: GameRow) -> list[tuple[int, bool]]:
        ladder = self.renderer.ladder
        return [(ladder.bot_of(s.version_id).id, ladder.bot_of(s.version_id).builtin) for s in game.seats]

    def season_facts(self, game: GameRow) -> tuple[int, str, bool] | None:
        season = self.seasons.get(game.season_id)
        return None if season is None else (stored_id(season), season.name, season.closed_at is not None)

    def files(self, game: GameRow) -> list[str]:
        """The files of ``game``: its page, and its replay once its season is closed."""
        facts = self.season_facts(game)
        published = [f"games/{replay_file(game.id)}"] if facts is not None and facts[2] else []
        return [f"games/{game.id}.html", *published]

    def stale(self) -> list[int]:
        """The ids of the games whose page (or replay file) is not fresh, in order; the fresh ones are kept."""
        manifest = self.renderer.manifest
        todo = []
        for game in self.renderer.ladder.games:
            key = self.keys[game.id]
            if not all([manifest.fresh(path, key) for path in self.files(game)]):
                todo.append(game.id)
        return sorted(todo)

    def write(self, ids: Sequence[int]) -> Written:
        """Write the page of every game in ``ids``; a game whose replay cannot be read is skipped with a warning."""
        ladder = self.renderer.ladder
        out = self.renderer.out
        frag = self.renderer.frag
        by_id = {g.id: g for g in ladder.games}
        metas: dict[str, dict[str, Any]] = {}
        written: dict[str, Entry] = {}
        warnings: dict[int, str] = {}
        with Session(self.engine) as session:
            for start in range(0, len(ids), 200):
                chunk = ids[start:start + 200]
                query = (select(Match.id, Match.replay, Match.seed).where(col(Match.id).in_(chunk))
                         .order_by(col(Match.id)))
                for match_id, replay, seed in session.exec(query):
                    game = by_id.get(match_id) if match_id is not None else None
                    if game is None:  # a game of a season whose deals are still secret
                        continue
                    key = self.keys[game.id]
                    try:
                        if game.rules_id not in metas:
                            metas[game.rules_id] = rules_meta(game.rules_id)
                        names = self.names(game)
                        failures = [(s.seat, s.failure_step, s.status,
                                     f"../bots/{ladder.bot_of(s.version_id).id}.html#failure-{match_id}-{s.seat}")
                                    for s in game.seats if s.failure_step is not None]
                        meta = viewer_meta(metas[game.rules_id], names, [s.coins for s in game.seats],
                                           [s.rank for s in game.seats], failures)
                        page = out / f"games/{match_id}.html"
                        steps, steps_of = viewer_steps(replay or "", names, page)
                    except SiteError as exc:
                        warnings[game.id] = f"game {game.id}: {exc}; its page is left out of the site"
                        continue
                    season = self.seasons.get(game.season_id)
                    published = None
                    if replay and season is not None and season.closed_at is not None:
                        published = PublishedReplay(replay_file(game.id), seed)
                        path = f"games/{published.file}"
                        written[path] = (key, *write_atomic(out / path, replay.encode("utf-8"))[1:])
                    text = self.renderer.render("game.html", "../", game=game, seat_rows=frag.seat_rows(game),
                                                season=season, meta=meta, steps=steps, steps_key=steps_of,
                                                published=published, has_replay=bool(replay),
                                                spectator=format_of(game.rules_id).spectator,
                                                money=format_of(game.rules_id).money)
                    written[f"games/{match_id}.html"] = (key, *write_atomic(page, text.encode("utf-8"))[1:])
        return written, warnings
