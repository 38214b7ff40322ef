"""The competitions' pages: an index, and a winners page each (the podium, the final's standings with intervals,
how sure the order is, each finalist's games in the final and its way onto it from the ladder)."""
from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.competition import Entry, FinalStanding, Result, all_competitions, result
from arena.competition.results import RESAMPLES

from arena.site.render import Renderer


@dataclass(frozen=True)
class FinalistRow:
    """A finalist on its competition's page: its standing, its entry, and its games in the final (linked)."""

    standing: FinalStanding
    entry: Entry | None
    bot: Markup  # its link: its bot page shows its path on the ladder
    games: tuple[Markup, ...]
    hidden: int  # games of the final not published (yet): none once its deals may be shown


def write_competition_pages(engine: Engine, renderer: Renderer) -> None:
    """``competitions/index.html`` and ``competitions/<id>.html`` for every competition."""
    with Session(engine) as session:
        results = [result(session, c.name, store=False) for c in all_competitions(session)]
    renderer.write("competitions/index.html", "competitions.html", "../", results=list(reversed(results)))
    ladder = renderer.ladder
    published = {g.id for g in ladder.games}
    for res in results:
        entries = {e.name: e for e in res.entries}
        finalists = []
        # until a same-deals competition is closed, its final's order is secret: its finalists by name
        for standing in res.standings if res.shown else sorted(res.standings, key=lambda s: s.name):
            bot = ladder.bots.get(standing.bot_id)
            link = renderer.frag.bot_link(bot, "../") if bot is not None else Markup(escape(standing.name))
            ids = res.match_ids.get(standing.name, ())
            games = tuple(renderer.frag.game_link(i, "../") for i in ids if i in published)
            finalists.append(FinalistRow(standing, entries.get(standing.name), link, games,
                                         sum(1 for i in ids if i not in published)))
        entry_links = {e.name: (renderer.frag.bot_link(ladder.bots[e.bot_id], "../") if e.bot_id in ladder.bots
                                else Markup(escape(e.name))) for e in res.entries}
        renderer.write(f"competitions/{res.competition.id}.html", "competition.html", "../", res=res,
                       finalists=finalists, entry_links=entry_links, resamples=RESAMPLES, podium=res.podium,
                       sure=winner_words(res))


def winner_words(res: Result) -> str:
    """One sentence of how sure the order is."""
    if res.winner_better is None or len(res.standings) < 2:
        return ""
    first, second = res.standings[0].name, res.standings[1].name
    return f"{first} is better than {second} with probability {res.winner_better:.2f}"
