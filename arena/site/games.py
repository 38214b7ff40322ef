"""The game pages: each played game's results and its replay viewer (one page per game, the bulk of a
build: ``GamePages.between`` writes a range of them, in whichever process is given it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.db import Match
from arena.formats import format_of
from engine import rules_for

from arena.site.errors import SiteError
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


class GamePages:
    """Writes game pages from the database behind ``engine`` with ``renderer``'s ladder and templates."""

    def __init__(self, engine: Engine, renderer: Renderer) -> None:
        self.engine = engine
        self.renderer = renderer

    def between(self, first: int, last: int) -> int:
        """Write the page of every played game with an id in ``first..last``; returns how many."""
        ladder = self.renderer.ladder
        out = self.renderer.out
        frag = self.renderer.frag
        by_id = {g.id: g for g in ladder.games}
        seasons = {s.id: s for s in ladder.seasons}
        metas: dict[str, dict[str, Any]] = {}
        written = 0
        with Session(self.engine) as session:
            query = (select(Match.id, Match.replay, Match.seed)
                     .where(Match.status != "planned", col(Match.id) >= first, col(Match.id) <= last)
                     .order_by(col(Match.id)).execution_options(yield_per=500))
            for match_id, replay, seed in session.exec(query):
                game = by_id.get(match_id) if match_id is not None else None
                if game is None:  # a game of a season whose deals are still secret
                    continue
                if game.rules_id not in metas:
                    metas[game.rules_id] = rules_meta(game.rules_id)
                names = [seat_label(ladder.bot_of(s.version_id).name, ladder.versions[s.version_id].number)
                         for s in game.seats]
                meta = {"rules": metas[game.rules_id], "seats": names,
                        "coins": [s.coins for s in game.seats], "ranks": [s.rank for s in game.seats],
                        "failures": [[s.seat, s.failure_step, s.status,
                                      f"../bots/{ladder.bot_of(s.version_id).id}.html#failure-{match_id}-{s.seat}"]
                                     for s in game.seats if s.failure_step is not None]}
                page = out / f"games/{match_id}.html"
                key = steps_key(replay or "", names)
                steps = earlier_steps(page, key)
                if steps is None:
                    try:  # the sentences name the seats as the page does
                        steps = spectator_json(replay, names) if replay else ""
                    except SiteError as exc:
                        raise SiteError(f"game {match_id}: {exc}") from None
                season = seasons.get(game.season_id)
                published = None
                if replay and season is not None and season.closed_at is not None:
                    published = PublishedReplay(replay_file(game.id), seed)
                    (out / "games" / published.file).write_text(replay, encoding="utf-8")
                text = self.renderer.render("game.html", "../", game=game, seat_rows=frag.seat_rows(game),
                                            season=season, meta=meta, steps=Markup(steps), steps_key=key,
                                            published=published, has_replay=bool(replay),
                                            spectator=format_of(game.rules_id).spectator)
                page.write_text(text, encoding="utf-8")
                written += 1
        return written
