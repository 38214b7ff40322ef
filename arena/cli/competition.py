"""`arena competition ...`: a deadline, frozen entries, a final among the best, the result (arena/competition/)."""
from __future__ import annotations

import json

import click
from sqlmodel import Session

from arena.competition import (CompetitionError, Phase, Result, all_competitions, close_competition,
                               create_competition, parse_deadline, phase, result, run_final,
                               start_final, utc)
from arena.competition.final import FLAGGED
from arena.db import DatabaseError
from arena.formats import default_format, format_of
from arena.ladder.executors import ExecutorError
from arena.ladder.progress import ProgressReporter
from arena.ladder.seasons import SeasonProgress
from arena.text import plural, shown
from sandbox import Limits

from arena.cli.base import Context, UserError, cli, echo, format_table, pass_context
from arena.cli.season import executor_for
from arena.cli.stopping import stop_on_signals
from arena.cli.trust import sandbox_tier


@cli.group()
def competition() -> None:
    """Competitions: an open ladder until a deadline, then a final among the best entries."""


@competition.command("create")
@click.argument("name")
@click.option("--variant", default=default_format().name, show_default=True, help="The format it is played in.")
@click.option("--deadline", required=True, metavar="WHEN",
              help="When entries freeze: 2026-12-24T18:00 (UTC unless it names its zone) or +30m (s, m, h, d).")
@click.option("--finalists", type=int, default=4, show_default=True, help="How many of the best entries play the "
              "final.")
@click.option("--final-games", type=int, default=120, show_default=True,
              help="Games the final plays at least, rounded up to whole rounds so that every pair of finalists "
                   "meets equally often (a format of the same deals: deals each finalist plays).")
@pass_context
def competition_create(ctx: Context, name: str, variant: str, deadline: str, finalists: int, final_games: int) -> None:
    """Make a competition: the ladder of VARIANT is its open phase until the deadline."""
    with Session(ctx.engine) as session:
        try:
            row = create_competition(session, name, variant, parse_deadline(deadline), finalists, final_games)
        except CompetitionError as exc:
            raise UserError(str(exc)) from None
        echo(f"competition {row.name} ({row.variant}): entries freeze at {utc(row.deadline):%Y-%m-%d %H:%M:%S} UTC; "
             f"then 'arena competition final {row.name}' plays the final of the best {row.finalists}")


@competition.command("list")
@pass_context
def competition_list(ctx: Context) -> None:
    """List the competitions."""
    with Session(ctx.engine) as session:
        rows = [("competition", "format", "deadline (UTC)", "finalists", "phase")]
        for row in all_competitions(session):
            rows.append((row.name, row.variant, f"{utc(row.deadline):%Y-%m-%d %H:%M:%S}", str(row.finalists),
                         phase(session, row).value))
    echo(format_table(rows) if len(rows) > 1 else "no competitions yet: make one with 'arena competition create'")


def result_lines(res: Result) -> list[str]:
    """`arena competition show` in words: the phase, the entries, the final's standings and the podium."""
    c = res.competition
    lines = [f"competition {res.name}: {res.variant}, deadline {utc(c.deadline):%Y-%m-%d %H:%M:%S} UTC, "
             f"{c.finalists} finalists, {res.phase.value}"]
    if res.phase is Phase.OPEN:
        lines.append("open: the ladder decides who enters; every author's current version at the deadline is "
                     "their entry")
        return lines
    rows: list[tuple[str, ...]] = [("place", "bot", "version", "score", "games", "")]
    for e in res.entries:
        rows.append((str(e.place) if res.shown else "-", shown(e.name), str(e.version),
                     f"{e.score:.2f}" if res.shown else "secret",
                     str(e.games) if res.shown else "-",
                     "retired" if e.retired else "finalist" if e.finalist else ""))
    title = ("entries (the ladder at the deadline):" if res.shown else
             "entries (by name: their places on the private deals stay secret until the competition is closed):")
    lines += [title, format_table(rows) if res.entries else "  none"]
    if res.season is None:
        lines.append(f"'arena competition final {res.name}' plays the final")
        return lines
    lines.append(f"final (season {res.season}): {res.games}/{res.planned} games"
                 + (" (standings so far: 'arena competition final' goes on)" if res.phase is Phase.FINAL else ""))
    for a, b, why in res.kept_apart:
        reason = "were flagged by the audit" if why == FLAGGED else "are bots of one author"
        lines.append(f"{shown(a)} and {shown(b)} {reason}: never seated together in the final")
    if not res.shown:
        lines.append(f"its results stay secret until 'arena competition close {res.name}' (every finalist plays "
                     "the same deals)")
        return lines
    what = ("mu", "95% interval") if res.rated else ("win rate", "95% interval")
    rows = [("rank", "bot", "version", *what, "games", "wins", "failures")]  # a new list: other columns
    for s in res.standings:
        rows.append((str(s.rank), shown(s.name), str(s.version), f"{s.value:.3f}", f"{s.low:.2f}-{s.high:.2f}",
                     str(s.games), str(s.wins), str(s.failures)))
    lines.append(format_table(rows))
    if res.podium:
        lines.append("podium: " + ", ".join(f"{s.rank}. {shown(s.name)}" for s in res.podium))
    if res.winner_better is not None and len(res.standings) > 1:
        lines.append(f"{shown(res.standings[0].name)} is better than {shown(res.standings[1].name)} with probability "
                     f"{res.winner_better:.2f} (bootstrap over the final's deals)")
    return lines


@competition.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the competition as JSON (entries, podium, standings).")
@pass_context
def competition_show(ctx: Context, name: str, as_json: bool) -> None:
    """Show a competition: its phase, entries, final and podium."""
    with Session(ctx.engine) as session:
        try:
            res = result(session, name)
        except CompetitionError as exc:
            raise UserError(str(exc)) from None
    echo(json.dumps(res.to_json(), indent=2) if as_json else "\n".join(result_lines(res)))


@competition.command("final")
@click.argument("name")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=2, show_default=True)
@click.option("--executor", "executor_spec", default="local", show_default=True,
              help="Where tables are played: local, dask-local or dask://HOST:PORT (as 'arena season run').")
@click.option("--unsafe", is_flag=True, help="Run without a strong sandbox.")
@click.option("--decision-ms", type=click.FloatRange(min=1), default=1000, show_default=True)
@click.option("--bank-ms", type=click.FloatRange(min=0), default=10_000, show_default=True)
@pass_context
def competition_final(ctx: Context, name: str, workers: int, executor_spec: str, unsafe: bool, decision_ms: float,
                      bank_ms: float) -> None:
    """Play the final (or resume it where it stopped): the best entries at the deadline against each other."""
    try:
        executor = executor_for(executor_spec, workers)
    except ExecutorError as exc:
        raise UserError(str(exc)) from None
    with Session(ctx.engine) as session:
        try:
            comp, notes = start_final(session, name)
        except CompetitionError as exc:
            raise UserError(str(exc)) from None
        for line in notes:
            echo(line, err=True)
        if phase(session, comp) is not Phase.FINAL:
            echo(f"the final of {name} is over: 'arena competition show {name}'", err=True)
            return
    stopped = stop_on_signals()
    reporter = ProgressReporter(quiet=ctx.quiet)

    def report(progress: SeasonProgress) -> None:
        stopped()
        reporter(progress)

    try:
        progress = run_final(ctx.engine, name, executor, Limits(decision_ms=decision_ms, bank_ms=bank_ms),
                             lambda started: sandbox_tier(unsafe, started.detect_tier()), report)
    except CompetitionError as exc:
        raise click.ClickException(str(exc)) from None
    except (DatabaseError, ExecutorError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        raise click.ClickException(f"interrupted; finished games are saved: 'arena competition final {name}' "
                                   "resumes") from None
    if not ctx.quiet:
        echo(f"final of {name}: {plural(progress.done, 'game')} played, {progress.void} void; "
             f"bot failures this run: {progress.failure_summary()}", err=True)
    with Session(ctx.engine) as session:
        echo("\n".join(result_lines(result(session, name))))


@competition.command("close")
@click.argument("name")
@pass_context
def competition_close(ctx: Context, name: str) -> None:
    """Close a competition whose final is over: its result stands, a same-deals final's deals are shown."""
    with Session(ctx.engine) as session:
        try:
            closed = close_competition(session, name)
        except CompetitionError as exc:
            raise UserError(str(exc)) from None
        what = ("its final's deals are published by the next 'arena site build'"
                if format_of(closed.variant).same_deals else "its result stands")
        echo(f"competition {name} closed: {what}")
