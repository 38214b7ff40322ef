"""`arena test NEW --against OLD`: is a new version better? A test run: a sequential test on paired deals, stored in
the database as it runs: `arena test resume NAME` (or the same command again) continues a stopped test,
`arena test list` shows them, `arena site build` draws each."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable, NoReturn, Sequence

import click
from sqlmodel import Session

from arena.cli.base import Context, UserError, echo, cli, format_table, pass_context
from arena.cli.season import executor_for
from arena.cli.stopping import stop_on_signals
from arena.cli.trust import ResolvedBot, ladder_bot, resolve_bot, sandbox_tier
from arena.db import DatabaseError, exclusive_run
from arena.ladder.executors import ExecutorError
from arena.formats import default_format, format_of
from arena.play.tables import SeatEntry
from arena.testrun.sprt import Hypotheses, Verdict
from arena.text import TextError, check_text
from arena.testrun.run import PlayedPair, Progress, field_sizes, head_to_head, run_test
from arena.testrun.store import (Candidate, StoredTestRun, TestRunError, TestRunSettings, all_tests,
                                 changed_sources, create_test, finish_test, games_of, load_test, next_name,
                                 record_pair, role_name, verdict_text)
from sandbox import Limits, SandboxError

#: Exit codes: the verdict, for scripts (2 is a usage error, 1 any other error, an interruption included).
EXIT: dict[Verdict | None, int] = {Verdict.H1: 0, Verdict.H0: 3, None: 4}


@dataclass(frozen=True)
class Where:
    """Where a test's pairs are played: ``executor`` as a season's ``--executor`` (local, dask-local,
    dask://HOST:PORT) with ``workers``; ``unsafe`` allows the plain tier."""

    workers: int
    unsafe: bool
    executor: str


def where_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed((
        click.option("--workers", type=click.IntRange(min=1, max=64), default=2, show_default=True),
        click.option("--executor", "executor_spec", default="local", show_default=True,
                     help="Where the pairs are played, as for seasons: local, dask-local or dask://HOST:PORT."),
        click.option("--unsafe", is_flag=True, help="Run without a strong sandbox."),
    )):
        command = option(command)
    return command


class DefaultGroup(click.Group):
    """A group whose first argument, when it names none of its commands, goes to ``run``:
    ``arena test NEW --against OLD`` is ``arena test run NEW --against OLD`` (a bot file named like a
    command is given as ``./list``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["run", *args]
        return super().parse_args(ctx, args)


@cli.group("test", cls=DefaultGroup)
def test_group() -> None:
    """Is NEW better than OLD? `arena test NEW --against OLD [--name N]` runs (or resumes) a stored
    sequential test; `arena test resume N` continues one; `arena test list` shows them."""


@test_group.command("run")
@click.argument("new", required=False)
@click.option("--against", "old", help="The version to beat: a built-in name, a file or NAME@VERSION.")
@click.option("--name", default=None, help="Store the test under this name (default: test-N); "
              "the same command again resumes it.")
@click.option("--format", "variant", default=default_format().name, show_default=True,
              help="The format the pairs are played in; in a two-player format (duel) NEW plays OLD directly.")
@click.option("--field", default=None,
              help="The other seats of every table, comma-separated (3 bots: 4-player tables) "
                   "[default: the format's smoke opponents, none head to head].")
@click.option("--elo0", type=float, default=0.0, show_default=True, help="H0: NEW is at most this much better.")
@click.option("--elo1", type=float, default=5.0, show_default=True, help="H1: NEW is at least this much better.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Chance of H1 when H0 is true.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="Chance of H0 when H1 is true.")
@click.option("--max-pairs", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Stop undecided after this many pairs (4 games each; 2 head to head).")
@where_options
@pass_context
def test_run(ctx: Context, new: str | None, old: str | None, name: str | None, variant: str, field: str | None,
             elo0: float, elo1: float, alpha: float, beta: float, max_pairs: int, workers: int, unsafe: bool,
             executor_spec: str) -> None:
    """Play NEW and OLD on the same deals, from the same seats, against the same field (or, in a
    two-player format, against each other with the seats swapped), until a sequential probability
    ratio test says NEW is better (H1, exit 0), not better (H0, exit 3), or MAX-PAIRS pass undecided
    (exit 4). Fresh bots every game, in the sandbox. Every counted pair is stored as it arrives: after
    Ctrl-C, SIGTERM or a crash the same command (or `arena test resume NAME`) continues; a finished
    test says its verdict again without playing."""
    where = Where(workers, unsafe, executor_spec)
    if name is not None:
        try:
            check_text(name, "test name")
        except TextError as exc:
            raise UserError(str(exc)) from None
    engine = ctx.engine
    given = name
    with Session(engine) as session:
        stored = load_test(session, name) if name is not None else None
        name = name or next_name(session)
    if new is None:
        if stored is None:
            raise UserError(f"no test named {name!r}: start one with 'arena test NEW --against OLD --name {name}'"
                            if given else "give NEW --against OLD (or --name NAME of a stored test)")
        resume(ctx, stored, where)
        return
    if old is None:
        raise UserError("Missing option '--against': the version NEW has to beat")
    try:
        hypotheses = Hypotheses(elo0, elo1, alpha, beta)
        fmt = format_of(variant)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    low, high = field_sizes(fmt)
    if low > high:
        raise UserError(f"format {fmt.name!r} is played by {fmt.players[1]} player: "
                        "a test needs NEW and OLD at tables of two or more")
    if head_to_head(fmt) and field is not None:
        raise UserError(f"--field makes no sense in format {fmt.name!r}: its tables hold 2 players, "
                        "so NEW plays OLD directly (the same deal twice, seats swapped)")
    names = ([n.strip() for n in field.split(",") if n.strip()] if field is not None
             else list(fmt.smoke_opponents[:high]))
    if not low <= len(names) <= high:
        raise UserError(f"--field wants {low} to {high} bots (tables of {low + 1} to {high + 1} players), "
                        f"got {len(names)}: {field!r}")
    lookup = lambda spec: ladder_bot(engine, spec)  # noqa: E731
    bots = tuple(resolved(spec, lookup) for spec in (new, old, *names))
    settings = TestRunSettings(name, fmt.name, hypotheses, max_pairs, bots)
    if stored is not None:
        differences = settings.differences(stored.settings)
        if differences:
            raise UserError(f"test {name!r} was started with other settings: {'; '.join(differences)}; "
                            f"'arena test resume {name}' continues it, or choose another --name")
        resume(ctx, stored, where, current=bots)
        return
    if bots[0].source == bots[1].source:
        echo("note: NEW and OLD are the same code; the test can only end in H0 or undecided", err=True)
    play(ctx, settings, where, create=True)


@test_group.command("resume")
@click.argument("name")
@where_options
@pass_context
def test_resume(ctx: Context, name: str, workers: int, unsafe: bool, executor_spec: str) -> None:
    """Continue the stored test NAME with its counted pairs (or say its verdict again, if it ended).
    Refused if a bot's file, built-in or ladder version now holds other code than the test started with."""
    with Session(ctx.engine) as session:
        stored = load_test(session, name)
    if stored is None:
        raise UserError(f"no test named {name!r} (arena test list shows the stored ones)")
    resume(ctx, stored, Where(workers, unsafe, executor_spec))


@test_group.command("list")
@pass_context
def test_list(ctx: Context) -> None:
    """The stored tests, one line each: oldest first (games: those stored with the counted pairs, each shown
    on the site)."""
    with Session(ctx.engine) as session:
        tests = all_tests(session)
    if not tests:
        echo("no tests yet: start one with 'arena test NEW --against OLD'")
        return
    rows = [("test", "format", "NEW", "OLD", "pairs", "games", "LLR", "Elo", "state", "started")]
    for t in tests:
        elo, low, high = t.results.elo()
        rows.append((t.settings.name, t.settings.variant, t.settings.bots[0].name, t.settings.bots[1].name,
                     str(t.results.pairs), str(t.games), f"{t.results.llr(t.settings.hypotheses):.2f}",
                     f"{elo:+.1f} [{low:+.1f}, {high:+.1f}]", state_of(t), f"{t.row.created_at:%Y-%m-%d %H:%M}"))
    echo(format_table(rows))


def state_of(test: StoredTestRun) -> str:
    if not test.finished:
        return "stopped" if test.results.pairs or test.void else "not started"
    return {Verdict.H1: "H1: better", Verdict.H0: "H0: not better", None: "inconclusive"}[test.verdict]


def resolved(spec: str, lookup: Callable[[str], ResolvedBot | None]) -> Candidate:
    bot = resolve_bot(spec, lookup)
    return Candidate(spec, bot.name, bot.source, bot.language)


def current_bots(ctx: Context, stored: Sequence[Candidate]) -> list[Candidate | None]:
    """Each stored bot's spec resolved again (None where it no longer resolves: a file since removed)."""
    found: list[Candidate | None] = []
    for bot in stored:
        try:
            found.append(resolved(bot.spec, lambda s: ladder_bot(ctx.engine, s)))
        except UserError:
            found.append(None)
    return found


def resume(ctx: Context, stored: StoredTestRun, where: Where,
           current: Sequence[Candidate | None] | None = None) -> None:
    name = stored.settings.name
    if stored.finished:
        say_verdict(stored.settings, progress_of(stored), stored.verdict)
    now_ = list(current) if current is not None else current_bots(ctx, stored.settings.bots)
    changed = changed_sources(stored.settings.bots, now_)
    if changed:
        raise UserError(f"test {name!r} cannot resume: {', '.join(changed)} changed since it started "
                        "(other code than the stored one); start a new test with another --name")
    for role, (kept, found) in enumerate(zip(stored.settings.bots, now_)):
        if found is None and not ctx.quiet:
            echo(f"note: {role_name(role)} {kept.spec!r} is gone; playing the source stored with the test",
                       err=True)
    if not ctx.quiet:
        echo(f"test {name}: resuming at {stored.results.pairs} counted pairs", err=True)
    play(ctx, stored.settings, where)


def progress_of(stored: StoredTestRun) -> Progress:
    return Progress(stored.results, stored.settings.hypotheses, stored.void,
                    2 if head_to_head(format_of(stored.settings.variant)) else 4)


def play(ctx: Context, settings: TestRunSettings, where: Where, create: bool = False) -> None:
    """Play the test's pairs from where it stands (``create``: store it first, under the database's lock),
    each recorded as it arrives, then say the verdict."""
    engine = ctx.engine
    try:
        fmt = format_of(settings.variant)
    except ValueError as exc:
        raise UserError(f"test {settings.name!r}: {exc}") from None
    # no ladder version ids
    entries = [SeatEntry(-1 - i, b.name, b.source, b.language) for i, b in enumerate(settings.bots)]
    try:
        executor = executor_for(where.executor, where.workers)
    except ExecutorError as exc:
        raise UserError(str(exc)) from None

    def report(progress: Progress) -> None:
        stopped()
        if not ctx.quiet and (progress.results.pairs % 10 == 0 or progress.verdict):
            echo(progress.line(), err=True)

    def record(number: int, played: PlayedPair | None, progress: Progress) -> None:
        verdict = progress.verdict
        record_pair(engine, test_id, number, None if played is None else played.scores, verdict,
                    finished=verdict is not None or progress.results.pairs >= settings.max_pairs,
                    games=() if played is None else games_of(number, played.games))

    stopped = stop_on_signals()
    try:
        with exclusive_run(engine, f"arena test {settings.name!r}"):
            if create:
                with Session(engine) as session:
                    if load_test(session, settings.name) is not None:  # made by another run meanwhile
                        raise UserError(f"a test named {settings.name!r} was started meanwhile; "
                                        f"'arena test resume {settings.name}' continues it")
                create_test(engine, settings)
                if not ctx.quiet:
                    echo(f"test {settings.name}: stored; if it stops, 'arena test resume {settings.name}' "
                               "continues it", err=True)
            with Session(engine) as session:  # under the lock: the pairs another run may have counted meanwhile
                fresh = load_test(session, settings.name)
            if fresh is None:
                raise UserError(f"no test named {settings.name!r}")
            test_id = fresh.id
            if fresh.finished:
                say_verdict(settings, progress_of(fresh), fresh.verdict)
            engine.dispose()  # no database connection may cross the fork of the local pool
            result = run_test(entries[0], entries[1], entries[2:], settings.hypotheses, settings.max_pairs, executor,
                              Limits(), lambda started: sandbox_tier(where.unsafe, started.detect_tier()), fmt, report,
                              start=progress_of(fresh), on_pair=record)
            if result.verdict is None and result.results.pairs >= settings.max_pairs:
                finish_test(engine, test_id, None)
    except (DatabaseError, TestRunError, ExecutorError) as exc:
        raise click.ClickException(str(exc)) from None
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bots'): {exc}") from None
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM: the counted pairs are stored
        raise click.ClickException(f"interrupted; the counted pairs are saved: 'arena test resume {settings.name}' "
                                   "continues the test") from None
    say_verdict(settings, result, result.verdict)


def say_verdict(settings: TestRunSettings, progress: Progress, verdict: Verdict | None) -> NoReturn:
    """The one-line verdict on stdout, and the exit code that says it."""
    what = verdict_text(settings, verdict, progress.results.pairs)
    echo(f"{what} ({progress.line()})")
    sys.exit(EXIT[verdict])
