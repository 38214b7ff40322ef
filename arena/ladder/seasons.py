"""Seasons: run them on an executor (a local pool or Dask), record each result once, rate it
(planning the tables is ``arena/ladder/planning.py``).

Only the coordinator writes the database. A match row is written as ``planned`` before it is
sent to a worker and becomes ``done`` (or ``void``) in the same transaction that stores its
seats, replay and ratings, so a killed run loses at most the games in flight, and a resumed
run replays exactly the planned ones.
"""
from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from arena.audit.report import AuditReport
from arena.audit.stats import PairFinding
from arena.audit.teams import TeamFinding
from arena.audit.store import run_audit
from arena.db import (Competition, DatabaseError, Match, MatchSeat, MatchStatus, Season, SeatStatus, exclusive_run, now,
                      one_line, stored_id)
from arena.ladder.executors import ExecutorError, LocalPoolExecutor, TableExecutor
from arena.formats import format_of
from arena.play.tables import MatchOutcome, SeatEntry, TableTask
from arena.ladder.planning import (LadderError, Planner, SeasonSettings, TooFewBots, check_enough_bots,
                                   get_or_create_season, planned_tables, table_task)
from arena.ladder.rankings import RankingError, Standing, load_book
from arena.ladder.ratings import RatingBook
from arena.ladder.recording import (CLOSED_UNPLAYED, NOT_CLOSE_VOIDED, record_or_void, record_outcome,
                                    void_unplayed)
from arena.ladder.random_seeds import database_key
from engine.rules import rules_for
from sandbox import Limits, Status, Tier

log = logging.getLogger(__name__)

#: the most tables a season records in one transaction (as many as it has workers, up to this): each transaction
#: costs the coordinator about as much as the games in it (bench/coordinator.py), and a killed coordinator plays
#: the tables it had not recorded again
RECORD_TABLES = 4


def deals_secret(season: Season) -> bool:
    """Whether a season's games stay unpublished: a format where every bot plays the same deals
    (solo) keeps them secret until the season is closed, or a later version could learn them."""
    return format_of(season.variant).same_deals and season.closed_at is None


def close_season(session: Session, name: str) -> tuple[Season, int]:
    """Close season ``name``: it plays no more games, and its deals may be published. Its games still planned
    (none, unless a run was stopped or is still playing it, as the live ladder does) become void in the same
    transaction (``void_unplayed``), so that its board stands as it was at the close and no game waits for ever;
    returns the season and how many became void. A game in flight at the close is not recorded when it ends
    (arena/ladder/recording.py records no game of a closed season)."""
    season = session.exec(select(Season).where(Season.name == name)).first()
    if season is None:
        raise LadderError(f"no season named {name!r}")
    final_of = session.exec(select(Competition.name).where(Competition.season_id == season.id)).first()
    if final_of is not None and season.closed_at is None:  # closed by hand, it would void the final's games
        raise LadderError(f"season {name!r} is the final of competition {final_of!r}: "
                          f"'arena competition close {final_of}' closes it once its final is over")
    voided = 0
    if season.closed_at is None:
        season.closed_at = now()
        session.add(season)
        voided = void_unplayed(session, stored_id(season))
        session.commit()
    return season, voided


def rerate(session: Session, variant: str, write: bool) -> list[str]:
    """Recompute what ``variant``'s ranking stored from the recorded games (``Ranking.rerate``)."""
    return format_of(variant).ranking.rerate(session, variant, write)


# ----------------------------------------------------------------- running
@dataclass
class SeasonProgress:
    planned: int
    done: int = 0
    void: int = 0
    failures: int = 0  # seats that ended with a status other than ok
    played_now: int = 0
    #: this run's failed seats by bot name and status, e.g. {"mybot": {"protocol": 2}}
    failures_by_bot: dict[str, Counter[SeatStatus]] = field(default_factory=dict)
    #: the audit of the whole season at its end (None until then), and the pairs and teams it newly flagged
    audited: AuditReport | None = None
    flagged: tuple[PairFinding | TeamFinding, ...] = ()

    def count(self, outcome: MatchOutcome) -> None:
        """Add one recorded match."""
        record = outcome.record
        void = record is None or record.void is not None
        self.void += void
        self.done += not void
        self.played_now += 1
        for seat in record.seats if record is not None else ():
            if seat.status is not Status.OK:
                self.failures += 1
                self.failures_by_bot.setdefault(seat.name, Counter())[SeatStatus.of(seat.status)] += 1

    def failure_summary(self) -> str:
        """``mybot 3 (protocol 2, timeout 1), other 1 (crash 1)``, worst first; ``none`` without failures."""
        rows = sorted(self.failures_by_bot.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        return ", ".join(f"{name} {sum(c.values())} ({', '.join(f'{k} {v}' for k, v in c.most_common())})"
                         for name, c in rows) or "none"


def run_season(engine: Engine, settings: SeasonSettings, executor: TableExecutor | int, limits: Limits,
               tier: Tier | Callable[[TableExecutor], Tier],
               on_progress: Callable[[SeasonProgress], None] = lambda p: None,
               prepare: Callable[[Session], object] | None = None,
               planner: Callable[[Session, Season, RatingBook, bool], Planner] = Planner) -> SeasonProgress:
    """Run (or resume) a season until every planned game is recorded, then audit it (``run_audit``: a flagged
    pair's shared games leave the ratings; ``SeasonProgress.audited`` and ``flagged`` say what it found).

    ``executor`` plays the tables (a number: a local pool of that many workers); it is started
    here, after the database lock is taken, and closed at the end. ``tier`` may be a function of
    the started executor (a Dask cluster probes its workers' machines). ``prepare`` runs under the
    lock before anything else (e.g. entering bosses), so a refused run changes nothing. ``planner`` makes the
    season's planner (a competition's final plans its own fixed schedule: arena/competition/final.py).
    """
    if isinstance(executor, int):
        executor = LocalPoolExecutor(executor)
    try:
        return _run_season(engine, settings, executor, limits, tier, on_progress, prepare, planner)
    except DBAPIError as exc:  # e.g. a full disk under the database: what was committed stays, the rest is replanned
        raise DatabaseError(f"season {settings.name!r} stopped: the database refused a write "
                            f"({one_line(exc.orig or exc)}); finished games are saved, and the same command "
                            "resumes the season once that is fixed") from None


def _run_season(engine: Engine, settings: SeasonSettings, executor: TableExecutor, limits: Limits,
                tier: Tier | Callable[[TableExecutor], Tier], on_progress: Callable[[SeasonProgress], None],
                prepare: Callable[[Session], object] | None,
                make_planner: Callable[[Session, Season, RatingBook, bool], Planner]) -> SeasonProgress:
    with exclusive_run(engine, f"season run {settings.name!r}"):
        with Session(engine) as session:
            if prepare is not None:
                prepare(session)
            if session.exec(select(Season).where(Season.name == settings.name)).first() is None:
                check_enough_bots(session, settings.name, settings.variant,
                                  settings.min_players or rules_for(settings.variant).min_players,
                                  settings.builtin_only)
            season_id = get_or_create_season(session, settings).id
        engine.dispose()  # no database connection may cross the fork of a local pool
        try:
            executor.start()
            if callable(tier):
                tier = tier(executor)
            with Session(engine) as session:
                season = session.get(Season, season_id)
                assert season is not None
                key = database_key(session)
                planner = make_planner(session, season, load_book(session, season.variant), settings.builtin_only)
                progress = _progress_of(session, season)
                if planner.same_deals:  # deals × bots, not season.games
                    progress.planned = planner.number + planner.remaining()
                backlog = planned_tables(session, stored_id(season))
                if backlog:
                    log.info("season %s: resuming %d planned tables", season.name, len(backlog))
                elif planner.remaining() > 0 and not planner.same_deals and planner.seats_active:  # before any line
                    check_enough_bots(session, season.name, season.variant, season.min_players, settings.builtin_only)
                on_progress(progress)
                variant = planner.spec.variant
                entries: dict[int, SeatEntry] = {}  # the bots of the tables sent so far, by version id
                batch = max(1, min(executor.slots(), RECORD_TABLES))
                # two per worker, so that no worker waits for the coordinator, and the tables a batch waits for
                in_flight_goal = 2 * executor.slots() + batch - 1
                tables_in_flight = 0
                while True:
                    if session.exec(select(Season.closed_at).where(Season.id == season_id)).one() is not None:
                        voided = void_unplayed(session, stored_id(season))  # planned by this run as the close committed
                        session.commit()
                        raise LadderError(f"season {season.name!r} was closed while it ran: it plays no more games"
                                          + (f" ({voided} planned game{'s' if voided != 1 else ''} void)"
                                             if voided else ""))
                    # the tables that replace those just recorded are planned in the recording's transaction, and
                    # committed with it before they are handed over: one commit a round (bench/coordinator.py)
                    tasks: list[TableTask] = []
                    try:
                        with planner.one_round():
                            while tables_in_flight + len(tasks) < in_flight_goal and backlog:
                                tasks.append(table_task(session, backlog.pop(0), limits, tier, key, entries))
                            wanted = in_flight_goal - tables_in_flight - len(tasks)
                            tasks += [table_task(session, table, limits, tier, key, entries)
                                      for table in (planner.plan_many(wanted, commit=False) if wanted > 0 else ())]
                    except LadderError:  # no table can be planned (a flag left too few bots): what was recorded stays
                        session.commit()
                        raise
                    session.commit()
                    for task in tasks:
                        executor.submit(task)
                    tables_in_flight += len(tasks)
                    if not tables_in_flight:
                        break
                    finished: list[MatchOutcome] = []  # the games of ``batch`` tables (or the last), recorded together
                    tables_back = 0
                    stop: BaseException | None = None
                    while tables_in_flight and tables_back < batch:
                        try:
                            tables = [executor.next_result(), *executor.ready_results()]  # and those done meanwhile
                        except (ExecutorError, KeyboardInterrupt) as exc:  # what came back is recorded first
                            stop = exc
                            break
                        tables_back += len(tables)
                        tables_in_flight -= len(tables)
                        finished += [outcome for table in tables for outcome in table]
                    for outcome, recorded in record_or_void(session, planner.book, variant, finished,
                                                            commit=stop is not None):
                        if recorded:
                            progress.count(outcome)
                            on_progress(progress)
                        else:
                            log.warning("match %d was not recorded: it was recorded once already, or its season "
                                        "was closed", outcome.match_id)
                    if isinstance(stop, ExecutorError):
                        raise LadderError(str(stop)) from None
                    if stop is not None:
                        raise stop
                season.finished_at = now()
                session.add(season)
                session.commit()
                report, flagged = run_audit(session, season=season.name)
                progress.audited, progress.flagged = report, tuple(flagged)
        finally:
            executor.close()
    return progress


def _progress_of(session: Session, season: Season) -> SeasonProgress:
    counts = dict(session.exec(select(Match.status, func.count()).where(Match.season_id == season.id)
                               .group_by(Match.status)).all())
    failures = session.exec(select(func.count()).select_from(MatchSeat).where(
        MatchSeat.match_id == Match.id, Match.season_id == season.id,
        col(MatchSeat.status).is_not(None), MatchSeat.status != SeatStatus.OK)).one()
    return SeasonProgress(planned=season.games, done=counts.get(MatchStatus.DONE, 0),
                          void=counts.get(MatchStatus.VOID, 0), failures=int(failures))


def leaderboard(session: Session, variant: str | None = None, season: str | None = None) -> Sequence[Standing]:
    """The board of ``variant`` (None: the default format), best first (``Ranking.standings``:
    ``RatedStanding`` rows for a rated format, ``WinRateStanding`` rows otherwise; ``season`` names the
    season of a format where every bot plays the same deals, by default its latest)."""
    fmt = format_of(variant)
    try:
        return fmt.ranking.standings(session, fmt.name if variant is None else variant, season)
    except RankingError as exc:
        raise LadderError(str(exc)) from None


__all__ = ["CLOSED_UNPLAYED", "NOT_CLOSE_VOIDED", "DatabaseError", "LadderError", "SeasonProgress", "SeasonSettings",
           "TooFewBots", "close_season", "deals_secret", "leaderboard", "record_outcome", "rerate", "run_season"]
