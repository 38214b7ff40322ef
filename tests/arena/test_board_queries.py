"""The boards read a ladder in a few statements, whatever its size, and never read a version's source (up to
256 KiB each): ``roster`` (``arena bots``, the site, the service's ``/api/me``), the author's report and their view
of one game (``/api/me/games/N``)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from arena_helpers import db_url
from competition_helpers import entered, game
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.audit.store import rerate_all
from arena.db import Season, make_engine, now
from arena.db.queries import stored_id
from arena.ladder.roster import roster
from arena.service.owner import owner_game, owner_report
from arena.submissions.accounts import ensure_author
from arena.submissions.versions import register


def ladder(folder: Path, bots: int) -> Engine:
    """``bots`` bots of as many authors, each with two versions, that played 12 rated games."""
    engine = make_engine(db_url(folder / "ladder.sqlite"))
    names = [f"au{k}" for k in range(bots)]
    entered(engine, names, "classic")
    with Session(engine) as session:
        ids = {n: stored_id(register(session, f"{n}-bot", f"# {n}, version 2\n", ensure_author(session, n),
                                     variants=["classic"]).version) for n in names}
        season = Season(name="s", variant="classic", games=12, min_players=3, max_players=3, seed=1)
        session.add(season)
        session.flush()
        for k in range(12):
            seated = [names[(k + j) % bots] for j in range(3)]
            game(session, season, k, now(), {ids[n]: r for r, n in enumerate(seated, 1)})
        session.commit()
        rerate_all(session)
    return engine


def statements(engine: Engine, read: Any) -> list[str]:
    said: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        said.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        with Session(engine) as session:
            read(session)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    return said


def test_the_boards_take_as_many_statements_for_nine_bots_as_for_three_and_read_no_source(tmp_path: Path) -> None:
    counts = []
    for bots in (3, 9):
        (tmp_path / str(bots)).mkdir()
        engine = ladder(tmp_path / str(bots), bots)
        reads = (roster, lambda session: owner_report(session, "au1"), lambda session: owner_game(session, "au1", 1))
        for read in reads:
            said = statements(engine, read)
            assert not [s for s in said if "botversion.source" in s], "a board read a version's source"
            counts.append(len(said))
        with Session(engine) as session:
            assert len(roster(session).bots) == bots and all(b.current == 2 for b in roster(session).bots)
        engine.dispose()
    assert counts[:3] == counts[3:], counts  # no statement a bot
