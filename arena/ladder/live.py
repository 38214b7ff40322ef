"""The living ladder (`arena season run --live`): one season per format that plays until it is stopped.

A loop, not a batch. Each time a worker frees up it plans one table: a version still placing (fewer than its
format's ``ranked_after`` rated games, counting those already planned) first, seated against a spread of the
ladder (``Matchmaker.placement``, CodinGame's placement); else the uncertainty-driven matchmaker in the format
that has had the least of the workers' time. It reads the active versions every round, so a version that
``arena submit`` or the service accepted enters without a restart and a retired one leaves; a version whose
latest ``pause_after`` games all failed is paused (``BotVersion.paused``) and seated nowhere until its next
version. The audit and the site are side jobs in processes of their own (``SideJob``, arena/ladder/side_jobs.py)
that never hold up a game; the seasons it plays are arena/ladder/live_seasons.py's. Everything is in the
database: planned matches that were not recorded when the loop stopped are played first when it starts again,
and ``record_outcomes`` records each match once.
"""
from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from typing import Callable

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from arena.audit.words import givers_of, pair_words
from arena.db import (AuditFlag, Bot, BotVersion, Match, MatchSeat, MatchStatus, SeatStatus, exclusive_run, now,
                      one_line, seated_versions, stored_id)
from arena.formats import format_of
from arena.ladder.executors import ExecutorError, TableExecutor
from arena.ladder.live_seasons import LiveProgress, LiveSettings, current_live_season, prepare_live
from arena.ladder.planning import (LadderError, PlannedMatch, Planner, TooFewBots, check_enough_bots,
                                   planned_tables, table_task)
from arena.ladder.random_seeds import database_key
from arena.ladder.rankings import load_book
from arena.ladder.recording import record_or_void, void_unplayed
from arena.ladder.side_jobs import SideJob, arena_command
from arena.play.tables import MatchOutcome, SeatEntry
from sandbox import Limits, Status, Tier

log = logging.getLogger(__name__)

IDLE_SECONDS = 2.0  # how often a loop with no table to play looks for new bots
REPORT_EVERY = 60.0  # seconds between two progress lines


class LiveLoop:
    """The loop's state between two tables: a planner per format, what is in flight, the side jobs."""

    def __init__(self, engine: Engine, settings: LiveSettings, executor: TableExecutor, limits: Limits, tier: Tier,
                 progress: LiveProgress, note: Callable[[str], None]) -> None:
        self.engine, self.settings, self.executor, self.limits, self.tier = engine, settings, executor, limits, tier
        self.progress, self.note = progress, note
        self.session = Session(engine)
        self.key = database_key(self.session)
        self.entries: dict[int, SeatEntry] = {}  # the bots of the tables sent so far, by version id
        self.planners: dict[str, Planner] = {}
        self.backlog: list[tuple[str, list[PlannedMatch]]] = []
        self.in_flight: dict[int, tuple[str, tuple[int, ...]]] = {}  # match id: (format, its versions)
        self.fault_until = 0.0  # after a write the database refused, the loop plans nothing until then
        self.stale = False  # the planners' counts may hold what a refused write did not store
        self._load()
        if self.backlog:
            self.note(f"live: resuming {len(self.backlog)} planned table{'s' if len(self.backlog) != 1 else ''}")
        self.tables_in_flight: Counter[str] = Counter()
        self.busy: Counter[str] = Counter()  # milliseconds of the workers' time each format had in this run
        self.table_seconds: dict[str, float] = {}  # each format's latest table time
        self.roster: dict[str, frozenset[int]] = {}
        self.waiting: dict[str, str] = {}  # format: why it plans nothing now (said once)
        self.last_flag = max((i for i in self.session.exec(select(AuditFlag.id)).all() if i is not None), default=0)
        self.jobs = self._side_jobs()

    def _load(self) -> None:
        """Planners from what the database holds, and its planned matches that are not in flight as the backlog
        (at the start: what the last run left; after a refused write: what it did not record)."""
        self.session.rollback()
        self.session.expire_all()
        self.planners = {}
        prepare_live(self.engine, self.settings)  # a season closed meanwhile (solo) has its successor
        for fmt in self.settings.formats():
            season = current_live_season(self.session, self.settings, fmt)[1]
            assert season is not None
            self.planners[fmt.name] = Planner(self.session, season, load_book(self.session, fmt.name),
                                              self.settings.builtin_only)
        self.backlog = []
        for variant, planner in self.planners.items():
            self.backlog.extend((variant, table) for table in planned_tables(
                self.session, planner.spec.id, self.in_flight))
        self.roster = {}
        self.stale = False

    def step(self) -> None:
        """One round: plan what the free workers can take (stored in one commit before any is handed over), then
        record the next table that finishes with those that finished meanwhile (one commit a format)."""
        planned: list[tuple[str, list[PlannedMatch]]] = []
        try:
            if time.monotonic() >= self.fault_until:
                if self.stale:
                    self._load()
                self.refresh()
                while self.tables_in_flight.total() < 2 * self.executor.slots():
                    chosen = self.next_table()
                    if chosen is None:
                        break
                    self.track(*chosen)  # counted now: the next table's placement knows it
                    planned.append(chosen)
                self.session.commit()
        except DBAPIError as exc:
            for variant, table in planned:  # none was handed over; the next round plans from the database again
                self.untrack(variant, table)
            planned = []
            self.fault(exc)
        handed = 0
        try:
            for _, table in planned:
                self.executor.submit(table_task(self.session, table, self.limits, self.tier, self.key, self.entries))
                handed += 1
        except DBAPIError as exc:  # reading a bot's source failed: the tables not handed over stay planned, and the
            for variant, table in planned[handed:]:  # next round's ``_load`` finds them again
                self.untrack(variant, table)
            self.fault(exc)
        self.poll_jobs()
        if not self.tables_in_flight.total():
            time.sleep(IDLE_SECONDS)  # nothing to play: look again for bots (or a database back) soon
            return
        try:
            tables = [self.executor.next_result(), *self.executor.ready_results()]
        except ExecutorError as exc:
            raise LadderError(str(exc)) from None
        self.take(tables)
        self.poll_jobs()

    def fault(self, exc: DBAPIError) -> None:
        """A write the database refused (a full disk, a lost server): the tables in flight play on, what was
        not recorded stays planned and is played again, and no table is planned for ``settings.retry_after`` s."""
        self.session.rollback()
        self.stale = True
        self.fault_until = time.monotonic() + self.settings.retry_after
        log.error("the database refused a write (%s): finished games are kept, the games not recorded are "
                  "played again; new tables wait %.0f s", one_line(exc.orig or exc), self.settings.retry_after)

    # ------------------------------------------------------------- side jobs
    def _side_jobs(self) -> dict[str, SideJob]:
        env = dict(os.environ, ARENA_DB=self.engine.url.render_as_string(hide_password=False))
        env.pop("ARENA_TESTS_IN_PROCESS", None)
        jobs = {}
        if self.settings.site is not None:
            jobs["site"] = SideJob("the site build", arena_command("site", "build", "--out", str(self.settings.site)),
                                   self.settings.site_every, env)
        for variant in self.planners:
            if format_of(variant).players[1] > 1:  # the audit compares what seats gave each other
                audit = SideJob(f"the audit of {variant}", arena_command("audit", "--variant", variant),
                                self.settings.audit_every, env, self._audited)
                audit.wanted = False  # until its format has new games
                jobs[f"audit {variant}"] = audit
        return jobs

    def _audited(self, job: SideJob, code: int) -> None:
        """Say which pairs the audit flagged since the last look: they are kept apart from the next table on."""
        self.session.expire_all()
        names = {stored_id(b): b.name for b in self.session.exec(select(Bot)).all()}
        for flag in self.session.exec(select(AuditFlag).where(col(AuditFlag.id) > self.last_flag)
                                      .order_by(col(AuditFlag.id))).all():
            self.last_flag = stored_id(flag)
            pair = (names[flag.bot_a], names[flag.bot_b])
            self.note(f"audit: {pair_words(pair, givers_of(json.loads(flag.evidence)))}; "
                      "they are no longer seated together and the games they shared are not rated")
            for variant, planner in self.planners.items():  # the audit recomputed the ratings without those games
                planner.book.take(load_book(self.session, variant))

    def poll_jobs(self) -> None:
        clock = time.monotonic()
        for job in self.jobs.values():
            job.poll(clock)

    def stop_jobs(self) -> None:
        for job in self.jobs.values():
            job.stop()

    # ------------------------------------------------------------- planning
    def refresh(self) -> None:
        """Read who plays where now: versions that entered, left or were paused since the last round."""
        self.session.expire_all()
        closed = {v: p.season.name for v, p in self.planners.items() if p.season.closed_at is not None}
        if closed:  # the operator closed a season of the same deals: its format goes on in the next one
            for variant in closed:  # what this loop planned there as the close committed is void too
                void_unplayed(self.session, self.planners[variant].spec.id)
            self.session.commit()
            self._load()
            for variant, name in closed.items():
                self.note(f"live: {name} was closed; {variant} goes on in {self.planners[variant].season.name}")
        for variant, planner in self.planners.items():
            versions = seated_versions(self.session, variant, self.settings.builtin_only)
            roster = frozenset(v.version_id for v in versions)
            if roster != self.roster.get(variant):
                planner.refresh()
                entered = roster - self.roster.get(variant, frozenset())
                if variant in self.roster and entered:
                    shown = ", ".join(sorted(f"{v.name} v{v.number}" for v in versions if v.version_id in entered))
                    self.note(f"live: {shown} entered {variant}")
                self.roster[variant] = roster
                # the bots of the tables to come: a version that left keeps no source in memory for the rest of the run
                seated = frozenset().union(*self.roster.values())
                self.entries = {v: entry for v, entry in self.entries.items() if v in seated}

    def placing(self, variant: str) -> list[int]:
        """Versions still placing in ``variant`` that are not already seated in enough planned games, the
        fewest games first (then the oldest submission)."""
        fmt = format_of(variant)
        need = fmt.ranking.ranked_after if fmt.ranking.rated and not fmt.same_deals else 0
        if not need:
            return []
        book = self.planners[variant].book
        pending = Counter(v for f, versions in self.in_flight.values() if f == variant for v in versions)
        counts = {v: book.get(v).games + pending[v] for v in self.roster.get(variant, ())}
        return sorted((v for v, n in counts.items() if n < need), key=lambda v: (counts[v], v))

    def can_plan(self, variant: str) -> bool:
        planner = self.planners[variant]
        if planner.same_deals:
            ready = planner.remaining() > 0
            why = "" if ready else "every version has played this season's deals"
        else:
            try:
                check_enough_bots(self.session, planner.spec.name, variant, planner.spec.min_players,
                                  self.settings.builtin_only)
                ready, why = True, ""
            except TooFewBots as exc:
                ready, why = False, f"waits for bots: {exc}"
        if why and self.waiting.get(variant) != why and not planner.same_deals:
            self.note(f"live: {variant} {why}")
        self.waiting[variant] = why
        return ready

    def next_table(self) -> tuple[str, list[PlannedMatch]] | None:
        """Plan the next table, or None when no format has one to play now."""
        if self.backlog:
            return self.backlog.pop(0)
        eligible = [v for v in self.planners if self.can_plan(v)]
        placing = [v for v in eligible if self.placing(v)]
        for variant in sorted(placing or eligible, key=self._share):
            planner = self.planners[variant]
            newcomers = self.placing(variant)
            try:  # stored with the round's other tables (``step`` commits them)
                return variant, planner.plan(newcomers[0] if newcomers else None, commit=False)
            except LadderError as exc:  # e.g. the pairs the audit flagged leave no table: this format waits (its
                # table was refused before anything of it was written: the round's tables planned so far stay)
                if self.waiting.get(variant) != str(exc):
                    self.note(f"live: {variant} plans no table now: {exc}")
                self.waiting[variant] = str(exc)
        return None

    def _share(self, variant: str) -> float:
        """The workers' time ``variant`` had in this run, its tables in flight counted at their latest length."""
        return self.busy[variant] / 1000 + self.tables_in_flight[variant] * self.table_seconds.get(variant, 1.0)

    def track(self, variant: str, table: list[PlannedMatch]) -> None:
        """Count a table as in flight (it is handed over once the round's tables are stored)."""
        for match in table:
            self.in_flight[match.id] = (variant, match.versions)
        self.tables_in_flight[variant] += 1

    def untrack(self, variant: str, table: list[PlannedMatch]) -> None:
        for match in table:
            self.in_flight.pop(match.id, None)
        self.tables_in_flight[variant] -= 1

    # ------------------------------------------------------------- recording
    def take(self, tables: list[list[MatchOutcome]]) -> None:
        """Record finished tables' games, those of a format in one transaction; a database that refuses the writes
        costs those tables (they stay planned, and are played again), never the loop."""
        by_format: dict[str, tuple[list[MatchOutcome], dict[int, tuple[str, tuple[int, ...]] | None]]] = {}
        for outcomes in tables:
            variants = {self.in_flight[o.match_id][0] for o in outcomes if o.match_id in self.in_flight}
            variant = variants.pop() if variants else None
            if variant is not None:
                self.tables_in_flight[variant] -= 1
                seconds = sum(o.record.seconds for o in outcomes if o.record is not None)
                self.busy[variant] += round(seconds * 1000)
                self.table_seconds[variant] = max(seconds, 0.01)
            entries = {o.match_id: self.in_flight.pop(o.match_id, None) for o in outcomes}
            if outcomes:
                group = by_format.setdefault(variant or self._format_of(outcomes[0].match_id), ([], {}))
                group[0].extend(outcomes)
                group[1].update(entries)
        if self.stale:  # since a refused write, the ratings held here may be ahead of the stored ones: the games
            return      # stay planned, and are played again once the planners are reloaded (``_load``)
        for variant, (outcomes, entries) in by_format.items():
            planner = self.planners[variant]
            try:
                recorded = record_or_void(self.session, planner.book, planner.spec.variant, outcomes)
            except DBAPIError as exc:
                self.fault(exc)
                return
            for outcome, done in recorded:
                entry = entries.get(outcome.match_id)
                record = outcome.record
                if not done:
                    continue
                if record is None or record.void is not None:
                    self.progress.void += 1
                    continue
                self.progress.games[planner.spec.variant] += 1
                for job in self.jobs.values():
                    if job.name in ("the site build", f"the audit of {planner.spec.variant}"):
                        job.wanted = True
                failed = [seat for seat, result in zip(entry[1] if entry else (), record.seats)
                          if result.status is not Status.OK]
                self.progress.failures += len(failed)
                for version_id in failed:
                    self._maybe_pause(version_id)

    def _format_of(self, match_id: int) -> str:
        """The format of a match that came back without being in flight (a Dask task run twice)."""
        match = self.session.get(Match, match_id)
        return format_of(match.rules_id).name if match is not None else next(iter(self.planners))

    def _maybe_pause(self, version_id: int) -> None:
        """Pause a version whose latest ``pause_after`` games all failed: it takes no seat until its next version."""
        k = self.settings.pause_after
        rows = self.session.exec(
            select(MatchSeat.status, MatchSeat.detail).join(Match, col(Match.id) == MatchSeat.match_id)
            .where(MatchSeat.version_id == version_id, Match.status == MatchStatus.DONE)
            .order_by(col(Match.rated_order).desc()).limit(k)).all()
        if len(rows) < k or any(status == SeatStatus.OK for status, _ in rows):
            return
        version = self.session.get(BotVersion, version_id)
        bot = self.session.get(Bot, version.bot_id) if version is not None else None
        if version is None or bot is None or version.paused is not None:
            return
        statuses = Counter(str(status) for status, _ in rows)
        what = ", ".join(f"{status} {count}" for status, count in statuses.most_common())
        version.paused = (f"its latest {k} games all failed ({what}); the last: {rows[0][1][:200]}; "
                          "it takes no seat until its next version")
        version.paused_at = now()
        self.session.add(version)
        self.session.commit()
        shown = f"{bot.name} v{version.number}"
        self.note(f"live: {shown} paused: {version.paused}")


def run_live(engine: Engine, settings: LiveSettings, executor: TableExecutor, limits: Limits,
             tier: Tier | Callable[[TableExecutor], Tier], progress: LiveProgress,
             note: Callable[[str], None] = lambda line: None, check_stop: Callable[[], None] = lambda: None,
             prepare: Callable[[Session], object] | None = None) -> None:
    """Play the live seasons of ``settings`` until ``check_stop`` raises (or a signal's KeyboardInterrupt comes);
    what it did is in ``progress``. The executor is started here, after the database lock is taken, and closed
    on the way out with the side jobs; the matches in flight stay planned, and the next run plays them first."""
    with exclusive_run(engine, f"live season {settings.name!r}"):
        if prepare is not None:
            with Session(engine) as session:
                prepare(session)
        prepare_live(engine, settings)
        engine.dispose()  # no database connection may cross the fork of a local pool
        loop: LiveLoop | None = None
        try:
            executor.start()
            if callable(tier):
                tier = tier(executor)
            loop = LiveLoop(engine, settings, executor, limits, tier, progress, note)
            reported = time.monotonic()
            while True:
                check_stop()
                loop.step()
                if time.monotonic() - reported >= REPORT_EVERY:
                    reported = time.monotonic()
                    note(progress.line())
        finally:
            executor.close()
            if loop is not None:
                loop.session.rollback()  # a signal may have cut a statement short; side jobs' ends read the database
                loop.stop_jobs()
                loop.session.close()
