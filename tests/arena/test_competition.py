"""Competitions without playing a game: deadlines, the final's schedule, the bootstrap, entries frozen at the
deadline (a later version is no entry, and the service's report and `arena status` say so), the finalists (a
retired bot refused, a flagged pair never seated together), a same-deals final kept secret until closed, and every
user mistake of `arena competition` (one line, exit status 2, the database unchanged). The whole competition,
played in the sandbox, is tests/site/test_site_competition.py."""
from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from arena_helpers import db_url, run_arena
from competition_helpers import entered, past_deadline
from sqlmodel import Session, col, select

from arena.competition import (CompetitionError, Phase, close_competition, create_competition, parse_deadline,
                               result, schedule, start_final, winner_better)
from arena.competition.entries import entry_notes
from arena.competition.final import FinalPlanner
from arena.db import (AuditFlag, Bot, BotVersion, Competition, Match, MatchSeat, MatchStatus, Season,
                      SeatStatus, make_engine, now)
from arena.db.queries import stored_id
from arena.ladder.rankings import WinRateStanding, load_book
from arena.ladder.seasons import LadderError, close_season, leaderboard
from arena.service.owner import owner_report
from arena.service.owner_text import status_lines
from arena.submissions.accounts import ensure_author
from arena.submissions.versions import register, register_bosses, retire

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=timezone.utc)


def test_a_deadline_is_a_time_ahead_given_as_iso_or_from_now() -> None:
    assert parse_deadline("+90s", NOW) == NOW + timedelta(seconds=90)
    assert parse_deadline("+2h", NOW) == NOW + timedelta(hours=2)
    assert parse_deadline("2026-12-24T18:00", NOW) == datetime(2026, 12, 24, 18, 0, tzinfo=timezone.utc)
    assert parse_deadline("2026-12-24T18:00+01:00", NOW) == datetime(2026, 12, 24, 17, 0, tzinfo=timezone.utc)
    with pytest.raises(CompetitionError, match="--deadline wants .* got 'friday'"):
        parse_deadline("friday", NOW)
    with pytest.raises(CompetitionError, match="--deadline '2026-12-01' is 2026-12-01 00:00:00 UTC, not ahead"):
        parse_deadline("2026-12-01", NOW)


def test_every_pair_of_finalists_meets_equally_often_and_a_flagged_pair_never() -> None:
    for finalists, high in ((3, 2), (5, 4), (6, 5), (4, 5)):
        plan = schedule(list(range(finalists)), 2, high, set())
        meets = Counter(frozenset(p) for g in plan.groups for p in itertools.combinations(g, 2))
        assert plan.size == min(high, finalists)
        assert len(meets) == finalists * (finalists - 1) // 2 and len(set(meets.values())) == 1, (finalists, meets)
        assert plan.rounds(1) == 1 and plan.rounds(plan.games_per_round + 1) == 2
    kept = schedule([1, 2, 3, 4], 3, 4, {frozenset((1, 2))})
    assert kept.size == 3 and kept.groups == ((1, 3, 4), (2, 3, 4))
    with pytest.raises(CompetitionError, match="the pairs the audit flagged leave no table of 3 finalists"):
        schedule([1, 2, 3], 3, 3, {frozenset((1, 2))})


def test_the_bootstrap_is_seeded_and_says_how_sure_the_order_is() -> None:
    deals = [{1: (0.8, 10.0), 2: (0.2, 4.0)}, {1: (0.6, 7.0), 2: (0.4, 6.0)}, {1: (0.3, 3.0), 2: (0.7, 8.0)}]
    once = winner_better(deals, 1, 2, "competition/cup")
    assert once == winner_better(deals, 1, 2, "competition/cup") and 0.5 < once < 1.0
    assert winner_better([{1: (1.0, 0.0), 2: (0.0, 0.0)}] * 5, 1, 2, "s") == 1.0
    assert winner_better([{1: (0.5, 3.0), 2: (0.5, 3.0)}] * 5, 1, 2, "s") == 0.5


def test_entries_freeze_at_the_deadline_and_a_later_version_is_no_entry(db: Path) -> None:
    engine = make_engine(db_url(db))
    entered(engine, ["ann", "bob"])
    with Session(engine) as session:
        register_bosses(session, ["random"])
        create_competition(session, "cup", "duel", now() + timedelta(hours=1), 2, 4)
        ann = session.exec(select(BotVersion).join(Bot).where(Bot.name == "ann-bot")).one()
        assert [n.enters for n in entry_notes(session, ann, {"duel"})] == [True]  # before the deadline: it would
    past_deadline(engine, "cup")
    with Session(engine) as session:
        late = register(session, "ann-bot", "# ann, too late\n", ensure_author(session, "ann"), variants=["duel"])
        late.version.created_at = now() + timedelta(seconds=1)
        session.add(late.version)
        session.commit()
        res = result(session, "cup")
        assert res.phase is Phase.FROZEN
        assert [(e.name, e.version) for e in res.entries] == [("ann-bot", 1), ("bob-bot", 1)]  # no boss, no v2
        [note] = entry_notes(session, late.version, {"duel"})
        assert (note.competition, note.entry, note.enters) == ("cup", 1, False)
        report = owner_report(session, "ann")
    [bot] = report["bots"]
    assert bot["active"]["competitions"] == [{"competition": "cup", "format": "duel",
                                              "deadline": note.deadline.isoformat(), "entry": 1, "enters": False}]
    lines = status_lines(report)
    assert any(line.startswith("ann-bot: competition cup (duel): this version came after the deadline (")
               and line.endswith("and is not an entry; your entry is version 1") for line in lines), lines
    engine.dispose()


def test_a_retired_bot_is_no_finalist_and_a_flagged_pair_never_sits_together(db: Path) -> None:
    engine = make_engine(db_url(db))
    ids = entered(engine, ["ann", "bob", "cat", "dan", "eve"], "classic")
    with Session(engine) as session:
        create_competition(session, "cup", "classic", now() + timedelta(hours=1), 4, 10)
        retire(session, "eve-bot", ensure_author(session, "eve"))
        bots = {b.name: stored_id(b) for b in session.exec(select(Bot)).all()}
        session.add(AuditFlag(bot_a=bots["ann-bot"], bot_b=bots["bob-bot"], scope="variant classic", evidence="{}"))
        session.commit()
    past_deadline(engine, "cup")
    with Session(engine) as session:
        competition, notes = start_final(session, "cup")
        assert notes == ["eve-bot is retired: not a finalist"]
        assert json.loads(competition.kept_apart) == [["ann-bot", "bob-bot", "audit"]]
        season = session.get(Season, competition.season_id)
        assert season is not None and (season.min_players, season.max_players) == (3, 3)
        planner = FinalPlanner(session, season, load_book(session, "classic"))
        while planner.remaining() > 0:
            planner.plan()
        seatings = [[s.version_id for s in session.exec(select(MatchSeat).where(MatchSeat.match_id == m.id)
                                                        .order_by(col(MatchSeat.seat))).all()]
                    for m in session.exec(select(Match).where(Match.season_id == season.id)).all()]
    assert len(seatings) == season.games >= 10 and season.games % 6 == 0  # whole rounds: 2 tables of 3 games
    assert ids["eve"] not in {v for s in seatings for v in s}
    assert not any(ids["ann"] in s and ids["bob"] in s for s in seatings)
    assert Counter(tuple(sorted(s)) for s in seatings) == {
        tuple(sorted((ids["ann"], ids["cat"], ids["dan"]))): season.games // 2,
        tuple(sorted((ids["bob"], ids["cat"], ids["dan"]))): season.games // 2}
    assert {s[0] for s in seatings} == {ids[n] for n in ("ann", "bob", "cat", "dan")}  # seats rotate
    engine.dispose()
    matchmade = run_arena("season", "run", "--name", "final-cup", db=db)  # its schedule is its own
    assert matchmade.returncode == 2 and matchmade.stderr == (
        "Error: season 'final-cup' is the final of competition 'cup': 'arena competition final cup' plays it\n")


def test_two_finalists_of_one_author_never_sit_together(db: Path) -> None:
    engine = make_engine(db_url(db))
    ids = entered(engine, ["ann", "bob", "cat"], "classic")
    with Session(engine) as session:
        ids["ann-two"] = stored_id(register(session, "ann-two", "# ann's second\n", ensure_author(session, "ann"),
                                            variants=["classic"]).version)
        create_competition(session, "cup", "classic", now() + timedelta(hours=1), 4, 1)
    past_deadline(engine, "cup")
    with Session(engine) as session:
        competition, _ = start_final(session, "cup")
        assert json.loads(competition.kept_apart) == [["ann-bot", "ann-two", "author"]]
        season = session.get(Season, competition.season_id)
        assert season is not None
        planner = FinalPlanner(session, season, load_book(session, "classic"))
        while planner.remaining() > 0:
            planner.plan()
        tables = {frozenset(s.version_id for s in session.exec(select(MatchSeat).where(MatchSeat.match_id == m.id)))
                  for m in session.exec(select(Match).where(Match.season_id == season.id)).all()}
        lines = result(session, "cup").kept_apart
    assert tables == {frozenset((ids["ann"], ids["bob"], ids["cat"])),
                      frozenset((ids["ann-two"], ids["bob"], ids["cat"]))}
    assert lines == (("ann-bot", "ann-two", "author"),)
    engine.dispose()


def test_a_same_deals_final_is_secret_until_closed(db: Path) -> None:
    engine = make_engine(db_url(db))
    ids = entered(engine, ["ann", "bob", "cat"], "solo")
    with Session(engine) as session:
        create_competition(session, "solo-cup", "solo", now() + timedelta(hours=1), 2, 3)
    past_deadline(engine, "solo-cup")
    with Session(engine) as session:
        competition, _ = start_final(session, "solo-cup")
        season = session.get(Season, competition.season_id)
        assert season is not None
        planner = FinalPlanner(session, season, load_book(session, "solo"))
        while planner.remaining() > 0:
            planner.plan()
        matches = session.exec(select(Match).where(Match.season_id == season.id)).all()
        seats = {m.id: session.exec(select(MatchSeat).where(MatchSeat.match_id == m.id)).one() for m in matches}
        finalists = {ids["ann"], ids["bob"]}  # the first two by name: no ladder games, equal places
        assert {s.version_id for s in seats.values()} == finalists and len(matches) == 6
        assert Counter(m.seed for m in matches) == {seed: 2 for seed in {m.seed for m in matches}}  # the same deals
        with pytest.raises(LadderError) as refused:  # closed by hand, the final's games would be void
            close_season(session, season.name)
        assert str(refused.value) == (f"season {season.name!r} is the final of competition 'solo-cup': "
                                      "'arena competition close solo-cup' closes it once its final is over")
        assert session.exec(select(Season.closed_at).where(Season.id == season.id)).one() is None
        assert {m.status for m in session.exec(select(Match).where(Match.season_id == season.id)).all()} == \
            {MatchStatus.PLANNED}
        for m in matches:  # as record_outcome stores them: bob wins every deal, ann none
            seat = seats[m.id]
            seat.rank, seat.coins = (1, 9) if seat.version_id == ids["bob"] else (2, 3)
            seat.status = SeatStatus.OK
            m.status = MatchStatus.DONE
            session.add_all([seat, m])
        season.finished_at = now()
        session.add(season)
        session.commit()
        board = leaderboard(session, "solo")  # a final is no season of the board
        assert {row.season for row in board if isinstance(row, WinRateStanding)} == {None} and board
        hidden = result(session, "solo-cup")
        assert hidden.phase is Phase.FINISHED and not hidden.shown
        assert hidden.to_json()["standings"] == [] and hidden.to_json()["podium"] == []
        assert {(e["score"], e["games"]) for e in hidden.to_json()["entries"]} == {(None, None)}  # private deals
        bots = {stored_id(b): b.name for b in session.exec(select(Bot)).all()}
        built = run_arena("site", "build", "--out", str(db.parent / "site"), db=db)
        assert built.returncode == 0, built.stderr
        page = (db.parent / "site" / "competitions" / f"{stored_id(competition)}.html").read_text()
        sections = [bots[int(i)] for i in re.findall(r'<section class="finalist" id="finalist-(\d+)">', page)]
        assert sections == ["ann-bot", "bob-bot"]  # by name, not by the secret standings (bob leads)
        close_competition(session, "solo-cup")
        assert close_season(session, season.name)[1] == 0  # closed with its competition: nothing to say, none void
        shown = result(session, "solo-cup").to_json()
    assert shown["phase"] == "closed" and [p["name"] for p in shown["podium"]] == ["bob-bot", "ann-bot"]
    assert [(s["name"], s["value"], s["games"]) for s in shown["standings"]] == [("bob-bot", 1.0, 3),
                                                                                 ("ann-bot", 0.0, 3)]
    assert shown["winner_better"] == 1.0 and {e["games"] for e in shown["entries"]} == {0}
    engine.dispose()


def test_user_mistakes_are_one_line_and_change_nothing(db: Path) -> None:
    engine = make_engine(db_url(db))
    entered(engine, ["ann", "bob"])
    engine.dispose()
    assert run_arena("competition", "create", "cup", "--variant", "duel", "--deadline", "+1h",
                     "--finalists", "3", db=db).returncode == 0
    listed = run_arena("competition", "list", db=db).stdout
    mistakes = {
        ("competition", "show", "ghost"): "no competition named 'ghost' (there are: cup)",
        ("competition", "final", "ghost"): "no competition named 'ghost'",
        ("competition", "create", "x", "--deadline", "soon"): "--deadline wants a time such as",
        ("competition", "create", "x", "--deadline", "2001-01-01"): "--deadline '2001-01-01' is 2001-01-01 00:00:00",
        ("competition", "create", "cup", "--deadline", "+1h"): "a competition named 'cup' exists already",
        ("competition", "create", "x", "--deadline", "+1h", "--variant", "chess"): "unknown variant 'chess'",
        ("competition", "create", "x", "--deadline", "+1h", "--finalists", "1"): "--finalists 1: a classic final",
        ("competition", "create", "x", "--deadline", "+1h", "--final-games", "0"): "--final-games 0: at least 1",
        ("competition", "create", "x", "--deadline", "+1h", "--finalists", "13"):
            "--finalists 13: one round of a classic final seats every group of 5 of them at a seat-rotated deal, "
            "6,435 games; at most 5,000",
        ("competition", "final", "cup"): "competition 'cup' is open until its deadline",
        ("competition", "close", "cup"): "competition 'cup' cannot be closed: its final is not over (open",
    }
    for args, words in mistakes.items():
        out = run_arena(*args, db=db)
        assert out.returncode == 2 and out.stderr.startswith(f"Error: {words}"), (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr, out.stderr
    assert run_arena("competition", "list", db=db).stdout == listed
    engine = make_engine(db_url(db))
    past_deadline(engine, "cup")
    engine.dispose()
    few = run_arena("competition", "final", "cup", db=db)  # two entries for three finalists
    assert few.returncode == 2 and few.stderr == ("Error: competition 'cup' has 2 entries that can play, fewer than "
                                                  "its 3 finalists (--finalists at create)\n")
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        assert session.exec(select(Season)).all() == []  # no final was made

        assert session.exec(select(Competition.season_id)).all() == [None]
    engine.dispose()
