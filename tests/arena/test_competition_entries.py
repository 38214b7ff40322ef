"""A competition's entries, frozen at the deadline: placed as the ladder stood then (a rated board by the rating
after the last game by then; solo by the private deals, a late bot after those that played them all, ties by
gold); a bot that left the format does not enter with an older version; the format is audited first, so a pair
that fed right before the deadline enters without the games it shared; and a solo competition's places stay
secret, in every view, until it is closed."""
from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

from arena_helpers import db_url, run_arena
from competition_helpers import entered, game, past_deadline
from sqlmodel import Session, select

from arena.competition import create_competition, result, start_final
from arena.competition.entries import entries, entry_notes
from arena.db import AuditFlag, Bot, BotVersion, MatchSeat, RatingSnapshot, Season, make_engine, now
from arena.db.queries import stored_id
from arena.submissions.accounts import ensure_author
from arena.submissions.versions import register


def test_a_bot_that_left_the_format_by_the_deadline_does_not_enter_with_its_older_version(db: Path) -> None:
    """An author's bot rated high in classic gets a version that plays only the duel (its classic rating stops
    moving, its classic ticket is free) and a second bot takes that ticket: only the second one enters the classic
    competition, and the first one's older version, frozen at its high, takes no finalist's place."""
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        ids = {name: stored_id(register(session, f"{name}-bot", f"NAME = {name!r}\n", ensure_author(session, name),
                                        variants=["classic"], one_ticket=True).version)
               for name in ("ann", "bob", "cat", "dan")}
        ladder = Season(name="ladder", variant="classic", games=1, min_players=4, max_players=4, seed=1)
        session.add(ladder)
        session.flush()
        match = game(session, ladder, 1, now() - timedelta(minutes=30), {ids[n]: k for k, n in
                                                                         enumerate(("ann", "bob", "cat", "dan"), 1)})
        for name, mu in (("ann", 40.0), ("bob", 26.0), ("cat", 25.0), ("dan", 24.0)):
            session.add(RatingSnapshot(match_id=stored_id(match), version_id=ids[name], variant="classic", mu=mu,
                                       sigma=1.0, games=12))
        ann = ensure_author(session, "ann")
        moved = register(session, "ann-bot", "NAME = 'ann, the duel only'\n", ann, variants=["duel"], one_ticket=True)
        second = register(session, "ann-two", "NAME = 'ann-two'\n", ann, variants=["classic"], one_ticket=True)
        assert moved.new and second.new  # the classic ticket was free
        create_competition(session, "cup", "classic", now() + timedelta(hours=1), 3, 10)
        assert [n.entry for n in entry_notes(session, moved.version, {"classic"})] == [None]
        moved_id = stored_id(moved.version)
    past_deadline(engine, "cup")
    with Session(engine) as session:
        start_final(session, "cup")
        placed = [(e.name, e.finalist) for e in result(session, "cup").entries]
        version = session.get(BotVersion, moved_id)
        assert version is not None
        [note] = entry_notes(session, version, {"classic"})
    assert placed == [("bob-bot", True), ("cat-bot", True), ("dan-bot", True), ("ann-two", False)]
    assert (note.entry, note.enters) == (None, False)
    engine.dispose()


def test_entries_are_placed_as_the_ladder_stood_at_the_deadline(db: Path) -> None:
    """A rated board: the rating after the last game by the deadline (a later game moves nothing); solo: the win
    rate on the private half of the ladder season's deals by the deadline."""
    from arena.db import RatingSnapshot
    from arena.ladder.random_seeds import private_deals, solo_seeds

    engine = make_engine(db_url(db))
    deadline = now() - timedelta(minutes=10)
    before, after = deadline - timedelta(minutes=5), deadline + timedelta(minutes=5)
    with Session(engine) as session:
        ids = {}
        for name in ("ann", "bob"):
            version = register(session, f"{name}-bot", f"# {name}\n", ensure_author(session, name),
                               variants=["duel", "solo"]).version
            version.created_at = deadline - timedelta(hours=1)
            session.add(version)
            ids[name] = stored_id(version)
        create_competition(session, "cup", "duel", deadline, 2, 2)
        create_competition(session, "solo-cup", "solo", deadline, 2, 2)
        ladder = Season(name="ladder", variant="duel", games=2, min_players=2, max_players=2, seed=1)
        solitaire = Season(name="solitaire", variant="solo", games=4, min_players=1, max_players=1, seed=7,
                           created_at=deadline - timedelta(hours=1))
        later = Season(name="solitaire-2", variant="solo", games=4, min_players=1, max_players=1, seed=8,
                       created_at=after)  # begun after the deadline (the first closed): not the one that counts
        session.add_all([ladder, solitaire, later])
        session.flush()
        for number, (finished, mus) in enumerate(((before, (30.0, 20.0)), (after, (10.0, 40.0))), start=1):
            match = game(session, ladder, number, finished, {ids["ann"]: 1, ids["bob"]: 2})
            for name, mu in zip(("ann", "bob"), mus):
                session.add(RatingSnapshot(match_id=stored_id(match), version_id=ids[name], variant="duel", mu=mu,
                                           sigma=2.0, games=number))
        private = private_deals(solitaire.seed, solitaire.games)
        for seed in solo_seeds(solitaire.seed, solitaire.games):
            best = "ann" if seed in private else "bob"  # ann wins the private deals, bob the public ones
            for name in ("ann", "bob"):  # a solo game seats one bot: won (rank 1) or not
                game(session, solitaire, seed, before, {ids[name]: 1 if name == best else 2})
        game(session, solitaire, next(iter(private)), after, {ids["bob"]: 1})  # after the deadline: not counted
        session.commit()
        rated = result(session, "cup").entries
        by_private = result(session, "solo-cup").entries
    assert [(e.name, e.score, e.games) for e in rated] == [("ann-bot", 24.0, 1), ("bob-bot", 14.0, 1)]
    assert [(e.name, e.score, e.games) for e in by_private] == [("ann-bot", 1.0, 2), ("bob-bot", 0.0, 2)]
    engine.dispose()


def test_a_solo_entry_that_came_late_and_won_its_few_deals_is_placed_after_those_that_played_them(
        db: Path) -> None:
    """Entries of a same-deals board: the bots that played at least half the private deals the most complete entry
    played come first (one whose last deal was a void game among them), by win rate, then average gold (a tie in
    wins is no tie by name); a bot that came late and won the one deal it played by the deadline comes after them.
    The season is the one that had results by the deadline, not one begun a minute before it."""
    from arena.ladder.random_seeds import private_deals, solo_seeds

    engine = make_engine(db_url(db))
    deadline = now() - timedelta(minutes=10)
    with Session(engine) as session:
        ids = {}
        for name in ("aaa", "rich", "poor", "late", "vee"):
            version = register(session, name, f"NAME = {name!r}\n", ensure_author(session, name),
                               variants=["solo"]).version
            version.created_at = deadline - timedelta(hours=1)
            session.add(version)
            ids[name] = stored_id(version)
        create_competition(session, "solo-cup", "solo", deadline, 2, 2)
        season = Season(name="solitaire", variant="solo", games=8, min_players=1, max_players=1, seed=7,
                        created_at=deadline - timedelta(hours=2))
        session.add(season)
        session.flush()
        private = sorted(private_deals(season.seed, season.games))
        assert len(private) == 4 and set(private) <= set(solo_seeds(season.seed, season.games))
        played = deadline - timedelta(minutes=5)
        for k, seed in enumerate(private):
            game(session, season, seed, played, {ids["aaa"]: 1 if k else 2})  # 3 of 4 won
            for name, coins in (("rich", 20), ("poor", 5)):  # 2 of 4 won each, different gold
                match = game(session, season, seed, played, {ids[name]: 1 if k % 2 else 2})
                seat = session.exec(select(MatchSeat).where(MatchSeat.match_id == match.id)).one()
                seat.coins = coins
                session.add(seat)
        game(session, season, private[0], played, {ids["late"]: 1})  # 1 of 1 won
        for seed in private[1:]:  # 3 of 3 won: its fourth deal was a void game (a machine's fault), never played again
            game(session, season, seed, played, {ids["vee"]: 1})
        session.add(Season(name="solitaire-2", variant="solo", games=8, min_players=1, max_players=1, seed=8,
                           created_at=deadline - timedelta(minutes=1)))  # begun a minute before: no results by then
        session.commit()
        shown = result(session, "solo-cup")
        placed = [(e.name, e.score, e.games) for e in entries(session, shown.competition)]
        page = db.parent / "site" / "competitions" / f"{stored_id(shown.competition)}.html"
    assert placed == [("vee", 1.0, 3), ("aaa", 0.75, 4), ("rich", 0.5, 4), ("poor", 0.5, 4), ("late", 1.0, 1)]
    # the places are the private deals' order: until the competition is closed, every view lists by name, no place
    assert not shown.shown and [(e["name"], e["place"], e["score"]) for e in shown.to_json()["entries"]] == [
        ("aaa", None, None), ("late", None, None), ("poor", None, None), ("rich", None, None), ("vee", None, None)]
    engine.dispose()
    said = run_arena("competition", "show", "solo-cup", db=db).stdout
    assert "entries (by name: their places on the private deals stay secret until the competition is closed):" in said
    table = [line.split() for line in said.splitlines() if line.split()[:1] == ["-"]]
    assert [row[1] for row in table] == ["aaa", "late", "poor", "rich", "vee"]
    assert {row[3] for row in table} == {"secret"}
    assert run_arena("site", "build", "--out", str(db.parent / "site"), db=db).returncode == 0
    rows = re.findall(r'<tr data-name="([^"]+)"><td class="num">([^<]*)</td>', page.read_text())
    assert rows == [(name, "secret") for name in ("aaa", "late", "poor", "rich", "vee")]


def test_a_pair_that_fed_right_before_the_deadline_enters_without_the_games_it_fed(db: Path) -> None:
    """The living ladder audits every ten minutes: a pair that feeds in the last minutes before the deadline is
    flagged only after the entries were placed. The freeze audits the format first, so the games the pair shared
    are taken back from the places, as from the board."""
    from arena.audit.store import rerate_all

    engine = make_engine(db_url(db))
    ids = entered(engine, ["fed", "pal", "ann", "bob", "cy"], "classic")
    deadline = now() - timedelta(minutes=1)
    with Session(engine) as session:
        ladder = Season(name="ladder", variant="classic", games=40, min_players=4, max_players=4, seed=1,
                        created_at=deadline - timedelta(hours=1))
        session.add(ladder)
        session.flush()
        honest = ("ann", "bob", "cy")
        for k in range(40):
            fed = k < 30  # the feeder at 30 of pal's 40 tables, giving it 6 coins of value each time
            seated = ["pal", "fed" if fed else honest[k % 3], *[h for h in honest if fed or h != honest[k % 3]][:2]]
            match = game(session, ladder, k, deadline - timedelta(seconds=40 - k), {ids[n]: r for r, n in
                                                                                      enumerate(seated, 1)})
            match.flows = json.dumps([[1, 0, 6.0]] if fed else [[1, 2, 0.5]])
            session.add(match)
        session.commit()
        rerate_all(session)  # as the ladder rated the games
        create_competition(session, "cup", "classic", deadline + timedelta(hours=1), 3, 4)
        assert session.exec(select(AuditFlag)).all() == []  # the ladder's audit has not run since
    past_deadline(engine, "cup")
    with Session(engine) as session:
        entered_now = {e.name: e.games for e in result(session, "cup").entries}
        names = {stored_id(b): b.name for b in session.exec(select(Bot)).all()}
        flagged = [{names[f.bot_a], names[f.bot_b]} for f in session.exec(select(AuditFlag)).all()]
    assert flagged == [{"fed-bot", "pal-bot"}]  # stored at the freeze
    assert entered_now["pal-bot"] == 10 and entered_now["fed-bot"] == 0  # the 30 games they shared taken back
    engine.dispose()
