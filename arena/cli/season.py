"""`arena season ...` and `arena leaderboard`: running, closing and listing seasons, and the boards."""
from __future__ import annotations

import json
from pathlib import Path

import click
from sqlalchemy import func
from sqlmodel import Session, col, select

from arena.audit.words import season_audit_lines
from arena.db import Bot, BotVersion, Competition, DatabaseError, Match, MatchSeat, MatchStatus, Season
from arena.ladder.dask_executor import DaskExecutor
from arena.ladder.executors import ExecutorError, LocalPoolExecutor, TableExecutor
from arena.formats import default_format, format_of
from arena.ladder.live import run_live
from arena.ladder.live_seasons import (AUDIT_EVERY, PAUSE_AFTER, RETRY_AFTER, SITE_EVERY, LiveProgress,
                                       LiveSettings)
from arena.paths import new_file_refused
from arena.ladder.seasons import (CLOSED_UNPLAYED, NOT_CLOSE_VOIDED, LadderError, SeasonProgress, TooFewBots,
                                  SeasonSettings, close_season, deals_secret, leaderboard, rerate, run_season)
from arena.ladder.progress import ProgressReporter, earlier_rate
from arena.ladder.random_seeds import database_key, deal_id
from arena.text import TextError, check_text, plural, shown
from arena.submissions.errors import SubmissionError
from arena.submissions.names import builtin_bots
from arena.submissions.versions import register_bosses
from engine.rules import rules_for
from sandbox import Limits

from arena.cli.base import Context, UserError, echo, board_table, cli, format_table, pass_context
from arena.cli.helps import (FormatsCommand, FormatsOption, games_help, leaderboard_help, leaderboard_season_help,
                             players_help, season_close_help, season_run_help, variant_help)
from arena.cli.stopping import stop_on_signals
from arena.cli.trust import sandbox_tier


def executor_for(spec: str, workers: int) -> TableExecutor:
    """The executor an ``--executor`` value names: ``local``, ``dask-local`` or ``dask://HOST:PORT``."""
    if spec == "local":
        return LocalPoolExecutor(workers)
    if spec == "dask-local":
        return DaskExecutor(None, workers)
    if spec.startswith("dask://"):
        rest = spec.removeprefix("dask://")
        host, _, port = rest.rpartition(":")
        if not host or not port.isdigit() or "/" in rest:
            raise ExecutorError(f"--executor {spec!r}: want dask://HOST:PORT")
        return DaskExecutor(f"tcp://{rest}", workers)
    raise ExecutorError(f"--executor wants local, dask-local or dask://HOST:PORT, got {spec!r}")


def parse_players(text: str) -> tuple[int, int]:
    try:
        low, _, high = text.partition("-")
        bounds = int(low), int(high or low)
    except ValueError:
        raise UserError(f"--players wants N or N-M, got {text!r}") from None
    if bounds[0] > bounds[1]:
        raise UserError(f"--players range {text!r} is empty")
    return bounds


def parse_bosses(text: str) -> list[str]:
    """``all`` or comma-separated built-in bot names; unknown names are the caller's to report."""
    names = list(builtin_bots()) if text.strip() == "all" else [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UserError(f"--bosses wants built-in bot names or 'all', got {text!r}")
    return names


@cli.group()
def season() -> None:
    """Run and inspect ladder seasons."""


@season.command("run", cls=FormatsCommand, help_from=season_run_help)
@click.option("--name", default=None, help="Season name; an existing season resumes.  [default: season-1; "
              "with --live: live, whose seasons are live-classic, live-duel, live-solo]")
@click.option("--games", type=click.IntRange(min=1), default=None,
              cls=FormatsOption, help_from=games_help)
@click.option("--workers", type=click.IntRange(min=1, max=64), default=2, show_default=True,
              help="Parallel matches (local pool processes, or dask-local worker processes).")
@click.option("--executor", "executor_spec", default="local", show_default=True,
              help="Where tables are played: local (a process pool), dask-local (a Dask LocalCluster), "
                   "or dask://HOST:PORT (a Dask scheduler; its workers decide the parallelism).")
@click.option("--players", default=None, cls=FormatsOption, help_from=players_help)
@click.option("--variant", default=None, cls=FormatsOption, help_from=variant_help)
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="New seasons: play every deal once per seat rotation (same deck, luck cancels out; "
                   "every game starts every bot afresh).")
@click.option("--seed", type=int, default=None,
              help="Season seed, keyed with the database's secret and the season's name (default: random).")
@click.option("--bosses", default=None, metavar="NAMES",
              help="Enter built-in bots as fixed reference points first: comma-separated names "
                   "(random, greedy, trader, search) or 'all'. They stay on the ladder, marked (boss).")
@click.option("--unsafe", is_flag=True, help="Run without a strong sandbox.")
@click.option("--decision-ms", type=click.FloatRange(min=1), default=1000, show_default=True)
@click.option("--bank-ms", type=click.FloatRange(min=0), default=10_000, show_default=True)
@click.option("--live", is_flag=True,
              help="A living ladder: play every format that has enough bots (or --variant's) until SIGTERM or "
                   "Ctrl-C; new versions enter and play their placement games first, retired ones leave.")
@click.option("--site", "site_dir", type=click.Path(file_okay=False), default=None,
              help="With --live: rebuild the static site in DIR as games come in (in a process of its own).")
@click.option("--site-every", type=click.FloatRange(min=1), default=SITE_EVERY, show_default=True,
              help="With --live --site: seconds between two site builds, at most.")
@click.option("--audit-every", type=click.FloatRange(min=1), default=AUDIT_EVERY, show_default=True,
              help="With --live: seconds between two audits of a format that had new games.")
@click.option("--pause-after", type=click.IntRange(min=1), default=PAUSE_AFTER, show_default=True,
              help="With --live: a version whose latest N games all failed is paused until its next version.")
@click.option("--retry-after", type=click.FloatRange(min=0), default=RETRY_AFTER, show_default=True,
              help="With --live: seconds new tables wait after the database refused a write (a full disk).")
@pass_context
def season_run(ctx: Context, name: str | None, games: int | None, workers: int, executor_spec: str,
               players: str | None, variant: str | None, rotate: bool, seed: int | None, bosses: str | None,
               unsafe: bool, decision_ms: float, bank_ms: float, live: bool, site_dir: str | None, site_every: float,
               audit_every: float, pause_after: int, retry_after: float) -> None:
    """Run a season (or resume it where it stopped), then print the leaderboard (help: ``season_run_help``)."""
    boss_names = parse_bosses(bosses) if bosses is not None else []
    if live:
        return live_run(ctx, name or "live", games, workers, executor_spec, players, variant, rotate, seed,
                        boss_names, unsafe, Limits(decision_ms=decision_ms, bank_ms=bank_ms), site_dir, site_every,
                        audit_every, pause_after, retry_after)
    if site_dir is not None:
        raise UserError("--site goes with --live (a batch season's site is built with 'arena site build')")
    name = name or "season-1"
    try:
        check_text(name, "season name")
    except TextError as exc:
        raise UserError(str(exc)) from None
    try:
        executor = executor_for(executor_spec, workers)
    except ExecutorError as exc:
        raise UserError(str(exc)) from None
    with Session(ctx.engine) as session:  # an existing season keeps its own variant
        existing = session.exec(select(Season).where(Season.name == name)).first()
        final_of = existing and session.exec(select(Competition.name)
                                             .where(Competition.season_id == existing.id)).first()
    if final_of:  # planned by its own schedule, never by the matchmaker
        raise UserError(f"season {name!r} is the final of competition {final_of!r}: "
                        f"'arena competition final {final_of}' plays it")
    try:
        rules = rules_for(variant or (existing.variant if existing else default_format().name))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if existing is not None and existing.variant != rules.variant:
        raise UserError(f"season {name!r} is a {existing.variant} season, not {rules.variant}")
    low, high = parse_players(players) if players is not None else (rules.min_players, rules.max_players)
    if not rules.min_players <= low <= high <= rules.max_players:
        raise UserError(f"--players {players!r} does not fit {rules.id}, played by "
                        f"{rules.min_players}-{rules.max_players} players")
    variant = rules.variant
    settings = SeasonSettings(name=name, variant=variant, games=games, min_players=low, max_players=high,
                              rotate=rotate, seed=seed)
    limits = Limits(decision_ms=decision_ms, bank_ms=bank_ms)
    engine = ctx.engine
    with Session(engine) as session:
        pace = earlier_rate(session, variant)
    stopped = stop_on_signals()
    reporter = ProgressReporter(quiet=ctx.quiet, earlier_rate=pace)

    def report(progress: SeasonProgress) -> None:
        stopped()
        reporter(progress)

    try:
        progress = run_season(engine, settings, executor, limits,
                              lambda started: sandbox_tier(unsafe, started.detect_tier()), report,
                              prepare=(lambda session: register_bosses(session, boss_names)) if boss_names else None)
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    except TooFewBots as exc:
        hint = ("enter the built-in bots with --bosses all (or some of "
                f"{','.join(builtin_bots())}), or submit more bots with 'arena submit'")
        raise UserError(f"{exc}: {hint}" if not boss_names else str(exc)) from None
    except (LadderError, DatabaseError, ExecutorError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (systemd, Kubernetes, timeout): the same clean stop
        raise click.ClickException(f"interrupted; finished games are saved: 'arena season run --name {name}' resumes")
    if not ctx.quiet:
        echo(f"season {name}: {plural(progress.done, 'game')} rated, {progress.void} void; "
                   f"bot failures this run: {progress.failure_summary()}")
    if progress.audited is not None:
        summary, *flags = season_audit_lines(name, progress.audited, progress.flagged)
        for line in ([] if ctx.quiet else [summary]) + flags:
            echo(line, err=True)
    with Session(engine) as session:
        echo(board_table(leaderboard(session, variant, name if format_of(variant).same_deals else None), variant))


def live_run(ctx: Context, name: str, games: int | None, workers: int, executor_spec: str, players: str | None,
             variant: str | None, rotate: bool, seed: int | None, boss_names: list[str], unsafe: bool, limits: Limits,
             site_dir: str | None, site_every: float, audit_every: float, pause_after: int,
             retry_after: float) -> None:
    """`arena season run --live`: the living ladder until a signal; one line when it stops (arena/ladder/live.py)."""
    if games is not None:
        raise UserError("--games counts a batch season's games; a --live season plays until it is stopped")
    if seed is not None:
        raise UserError("--seed chooses a batch season's deals; a --live season's are always fresh")
    try:
        check_text(name, "season name")
        variants: tuple[str, ...] = (rules_for(variant).variant,) if variant is not None else ()
    except (TextError, ValueError) as exc:
        raise UserError(str(exc)) from None
    low = high = None
    if players is not None:
        if variant is None:
            raise UserError("--players goes with --variant under --live (each format has its own table sizes)")
        rules = rules_for(variants[0])
        low, high = parse_players(players)
        if not rules.min_players <= low <= high <= rules.max_players:
            raise UserError(f"--players {players!r} does not fit {rules.id}, played by "
                            f"{rules.min_players}-{rules.max_players} players")
    site = Path(site_dir) if site_dir is not None else None
    if site is not None:
        nearest = next(p for p in (site, *site.absolute().parents) if p.exists())
        refused = new_file_refused(nearest) if nearest.is_dir() else "not a folder"
        if refused is not None:
            raise UserError(f"cannot write the site to {site_dir!r}: {str(nearest)!r} takes no new file ({refused})")
    try:
        executor = executor_for(executor_spec, workers)
    except ExecutorError as exc:
        raise UserError(str(exc)) from None
    settings = LiveSettings(name=name, variants=variants, min_players=low, max_players=high, rotate=rotate,
                            site=site, site_every=site_every, audit_every=audit_every, pause_after=pause_after,
                            retry_after=retry_after)
    progress = LiveProgress()

    def note(line: str) -> None:
        if not ctx.quiet:
            echo(line, err=True)

    stopped = stop_on_signals()
    try:
        run_live(ctx.engine, settings, executor, limits,
                 lambda started: sandbox_tier(unsafe, started.detect_tier()), progress, note, stopped,
                 prepare=(lambda session: register_bosses(session, boss_names)) if boss_names else None)
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    except (LadderError, DatabaseError, ExecutorError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:  # the way a live season ends: SIGTERM (systemd, Kubernetes) or Ctrl-C
        games = sum(progress.games.values())
        echo(f"live season {name} stopped: {plural(games, 'game')} recorded this run, finished games are saved; "
             f"'arena season run --live{'' if name == 'live' else ' --name ' + shown(name)}' resumes", err=True)


@season.command("close", cls=FormatsCommand, help_from=season_close_help)
@click.argument("name")
@pass_context
def season_close(ctx: Context, name: str) -> None:
    """Close a season: it plays no more games (help: ``season_close_help``)."""
    with Session(ctx.engine) as session:
        try:
            closed, voided = close_season(session, name)
        except LadderError as exc:
            raise UserError(str(exc)) from None
        what = ("its deals are published by the next 'arena site build'" if format_of(closed.variant).same_deals
                else "it plays no more games")
        verb = "is" if voided == 1 else "are"
        unplayed = f"; {plural(voided, 'game')} it had not played {verb} void" if voided else ""
        echo(f"season {name} closed on {closed.closed_at:%Y-%m-%d %H:%M}: {what}{unplayed}")


@season.command("list")
@pass_context
def season_list(ctx: Context) -> None:
    """List seasons."""
    with Session(ctx.engine) as session:
        rows = [("season", "variant", "players", "games", "done", "void", "created", "finished", "closed")]
        for s in session.exec(select(Season).order_by(col(Season.id))).all():
            counts = season_counts(session, s)
            rows.append((s.name, s.variant, f"{s.min_players}-{s.max_players}",
                         f"{s.games} deals/bot" if format_of(s.variant).same_deals else str(s.games),
                         str(counts.get(MatchStatus.DONE, 0)), str(counts.get(MatchStatus.VOID, 0)),
                         f"{s.created_at:%Y-%m-%d %H:%M}",
                         f"{s.finished_at:%Y-%m-%d %H:%M}" if s.finished_at else "-",
                         f"{s.closed_at:%Y-%m-%d %H:%M}" if s.closed_at else "-"))
    echo(format_table(rows) if len(rows) > 1 else "no seasons yet: start one with 'arena season run'")


@season.command("show")
@click.argument("name")
@pass_context
def season_show(ctx: Context, name: str) -> None:
    """Show a season's settings, progress and latest games."""
    with Session(ctx.engine) as session:
        s = session.exec(select(Season).where(Season.name == name)).first()
        if s is None:
            raise UserError(f"no season named {name!r}")
        counts = season_counts(session, s)
        done = (f"{plural(counts.get(MatchStatus.DONE, 0), 'game')} done on {plural(s.games, 'deal')} per bot"
                if format_of(s.variant).same_deals else f"{counts.get(MatchStatus.DONE, 0)}/{s.games} games done")
        unplayed = session.exec(select(func.count()).select_from(Match).where(
            Match.season_id == s.id, Match.void_reason == CLOSED_UNPLAYED)).one()
        void = f"{counts.get(MatchStatus.VOID, 0)} void" + (f" ({unplayed} not played: the season was closed)"
                                                             if unplayed else "")
        echo(f"season {s.name}: {s.variant}, {s.min_players}-{s.max_players} players, {done}, {void}, "
             f"{counts.get(MatchStatus.PLANNED, 0)} planned{', seat-rotated deals' if s.rotate else ''}")
        if deals_secret(s):  # a bot entered later would play these deals knowing them
            echo(f"its games stay secret until 'arena season close {s.name}'; "
                       f"'arena leaderboard --variant {s.variant} --season {s.name}' shows the standings")
            return
        key = database_key(session)
        matches = session.exec(select(Match).where(Match.season_id == s.id, Match.status != MatchStatus.PLANNED,
                                                   NOT_CLOSE_VOIDED)
                               .order_by(col(Match.number).desc()).limit(10)).all()
        rows = [("match", "deal", "status", "seats (coins, status)")]
        for m in matches:
            seats = session.exec(select(MatchSeat, BotVersion, Bot).where(
                MatchSeat.match_id == m.id, MatchSeat.version_id == BotVersion.id, BotVersion.bot_id == Bot.id)
                .order_by(col(MatchSeat.seat))).all()
            rows.append((str(m.id), deal_id(key, m.seed),
                         f"void: {shown(m.void_reason, 120)}" if m.status == MatchStatus.VOID else m.status,
                         ", ".join(f"{b.name} {ms.coins} {ms.status}" for ms, _, b in seats)))
        echo(format_table(rows))


def season_counts(session: Session, s: Season) -> dict[MatchStatus, int]:

    return {MatchStatus(status): count for status, count in session.exec(
        select(Match.status, func.count()).where(Match.season_id == s.id).group_by(Match.status)).all()}


@cli.command("leaderboard", cls=FormatsCommand, help_from=leaderboard_help)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of rows.")
@click.option("--variant", default=default_format().name, show_default=True)
@click.option("--rerate", "do_rerate", is_flag=True, help="Recompute every rating from the recorded games first.")
@click.option("--season", "season_name", default=None, cls=FormatsOption, help_from=leaderboard_season_help)
@pass_context
def leaderboard_command(ctx: Context, as_json: bool, variant: str, do_rerate: bool, season_name: str | None) -> None:
    """The ladder: each bot's current version on a format's board (help: ``leaderboard_help``)."""
    try:
        variant = rules_for(variant).variant
    except ValueError as exc:
        raise UserError(str(exc)) from None
    with Session(ctx.engine) as session:
        if do_rerate:
            differences = rerate(session, variant, write=True)
            echo(f"rerated {variant}: {len(differences)} ratings differed from the stored ones", err=True)
        try:
            rows = leaderboard(session, variant, season_name)
        except LadderError as exc:
            raise UserError(str(exc)) from None
    echo(json.dumps([row.to_json() for row in rows], indent=2) if as_json else board_table(rows, variant))
