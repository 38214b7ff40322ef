"""The statuses the tables store: StrEnums kept as their plain text, read back as members."""
from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text
from sqlmodel import Session, select

from arena.db import Bot, BotVersion, Match, MatchSeat, MatchStatus, Season, SeatStatus, make_engine
from sandbox import Status


def test_a_seat_status_is_the_sandboxs_status_as_stored() -> None:
    assert [s.value for s in SeatStatus] == [s.value for s in Status]
    assert all(SeatStatus.of(s) == s.value for s in Status)


def test_statuses_are_stored_as_their_text_and_read_back_as_members(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'ladder.sqlite'}")
    with Session(engine) as session:
        session.add(Season(id=1, name="spring", variant="classic", games=1, min_players=2, max_players=2, seed=1))
        session.add(Bot(id=1, name="alpha"))
        session.flush()
        session.add(BotVersion(id=1, bot_id=1, number=1, source="", sha256="", prior_sigma=1.0))
        session.add(Match(id=1, season_id=1, number=0, table=0, seed=1, rules_id="classic-v2",
                          status=MatchStatus.VOID))
        session.flush()
        session.add(MatchSeat(match_id=1, seat=0, version_id=1, status=SeatStatus.CRASH))
        session.add(MatchSeat(match_id=1, seat=1, version_id=1))
        session.commit()
    with engine.connect() as conn:
        assert conn.execute(text('SELECT status FROM "match"')).one() == ("void",)
        assert sorted(conn.execute(text("SELECT status FROM matchseat")).all(), key=str) == [("crash",), (None,)]
    with Session(engine) as session:
        match = session.exec(select(Match).where(Match.status == MatchStatus.VOID)).one()
        assert match.status is MatchStatus.VOID and json.dumps(match.status) == '"void"' and f"{match.status}" == "void"
        seat = session.exec(select(MatchSeat).where(MatchSeat.status == SeatStatus.CRASH)).one()
        assert seat.status is SeatStatus.CRASH
    engine.dispose()
