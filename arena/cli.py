"""The ``arena`` command line. Logging is configured here and nowhere else."""
from __future__ import annotations

import importlib
import json
import logging
import os
import secrets
import shlex
import signal
import sys
from pathlib import Path
from typing import Sequence

import click
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.db import DB_ENV, DEFAULT_DB, Bot, BotVersion, DatabaseError, Match, MatchSeat, Season, make_engine
from arena.executors import ExecutorError, executor_for
from arena.formats import format_of
from arena.ladder import LadderError, SeasonSettings, close_season, leaderboard, rerate, run_season
from arena.players import SandboxPlayer
from arena.progress import ProgressReporter
from arena.seeds import bot_seeds, database_key, keyed, random_seed
from arena.text import TextError, check_text, shown
from arena.submit import (SubmissionError, builtin_bots, check_author, check_name, check_source, existing_bot,
                          names_taken_by_submissions, register, register_bosses, smoke_failure, smoke_games)
from arena.referee import GameRecord, InProcessPlayer, Player, play_game
from engine import rules_for
from sandbox import Limits, SandboxError, Tier, detect_tier, strong_tier_missing

log = logging.getLogger("arena")

EXEC = "exec:"


class UserError(click.ClickException):
    """A mistake in what the user asked for: one line, exit status 2."""

    exit_code = 2


def builtin_bot(name: str) -> Path | None:
    """A built-in bot's file by name, ``greedy`` or ``greedy_bot``."""
    return builtin_bots().get(name.removesuffix("_bot"))


def resolve_bot(spec: str) -> tuple[str, str, bool]:
    """(name, source, trusted) for a bot given by built-in name or by path."""
    path = builtin_bot(spec)
    trusted = path is not None
    if path is None:
        path = Path(spec)
        if not path.is_file():
            known = ", ".join(builtin_bots())
            raise UserError(f"no bot {spec!r}: not a file and not a built-in bot ({known})")
    try:
        source = check_source(path.read_bytes(), str(path))
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    return path.stem, source, trusted


def setup_logging(verbose: int, quiet: bool, log_file: str | None) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(level=level, handlers=handlers, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Dask's own loggers (configured when it is imported, here and in its worker processes) follow ours
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", logging.getLevelName(level).lower())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", "db_url", envvar=DB_ENV, default=DEFAULT_DB, show_default=True,
              help=f"Database URL (also from ${DB_ENV}).")
@click.option("-v", "--verbose", count=True, help="More log output (-vv for protocol lines).")
@click.option("-q", "--quiet", is_flag=True, help="No progress output; only warnings and errors.")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Also write the log to this file.")
@click.version_option(package_name="bohnanza-arena")
@click.pass_context
def cli(ctx: click.Context, db_url: str, verbose: int, quiet: bool, log_file: str | None) -> None:
    """Bohnanza bot arena: play games between bots in a sandbox, run ladder seasons."""
    setup_logging(verbose, quiet, log_file)
    load_format_modules(os.environ.get(FORMATS_ENV, ""))
    ctx.obj = Context(db_url, quiet)


FORMATS_ENV = "ARENA_FORMATS"


def load_format_modules(names: str) -> None:
    """Import the modules named in ``$ARENA_FORMATS`` (comma-separated): each registers its formats
    with ``arena.formats.register`` (docs/formats.md). A module that cannot be imported is a user error."""
    for name in filter(None, (n.strip() for n in names.split(","))):
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - whatever the module raised, say which and why in one line
            raise UserError(f"${FORMATS_ENV}: cannot load format module {name!r}: {type(exc).__name__}: {exc}") from None


class Context:
    """Shared command state; the database is opened only by commands that use it."""

    def __init__(self, db_url: str, quiet: bool) -> None:
        self.db_url = db_url
        self.quiet = quiet
        self._engine: Engine | None = None

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            try:
                self._engine = make_engine(self.db_url)
            except DatabaseError as exc:
                raise click.ClickException(str(exc)) from None
        return self._engine


pass_context = click.make_pass_decorator(Context)


@cli.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--variant", default="classic", show_default=True, help="Rules variant or rules id.")
@click.option("--seed", type=int, default=None,
              help="Reproduce a game: the same seed plays the same deal with the same bot seeds on this database "
                   "(keyed with its secret, so a bot cannot guess the deal). Default: fresh randomness.")
@click.option("--replay", "replay_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the game's replay (JSON) to this file.")
@click.option("--in-process", is_flag=True, help="Run the bots in this process (trusted bots only; no sandbox).")
@click.option("--unsafe", is_flag=True, help="Run bots that are not built in even when no sandbox tier is available.")
@click.option("--decision-ms", type=click.FloatRange(min=1), default=1000, show_default=True,
              help="Wall-clock limit per decision.")
@click.option("--bank-ms", type=click.FloatRange(min=0), default=10_000, show_default=True,
              help="Time bank per game for decisions that overrun.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_context
def play(ctx: Context, bots: Sequence[str], variant: str, seed: int | None, replay_path: str | None, in_process: bool,
         unsafe: bool, decision_ms: float, bank_ms: float, as_json: bool) -> None:
    """Play one game between BOTS (built-in names such as 'random' and 'greedy', or file paths).

    A bot written in another language is given as "exec:COMMAND" (e.g. "exec:perl bot.pl"); it
    speaks docs/protocol.md itself and runs with limits but without the strong sandbox, so it
    needs --unsafe. Exits 0 whenever the game was played to its end, bot failures included.
    """
    try:
        rules = rules_for(variant)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not rules.min_players <= len(bots) <= rules.max_players:
        need = (f"exactly {rules.min_players}" if rules.min_players == rules.max_players
                else f"{rules.min_players}-{rules.max_players}")
        raise UserError(f"{rules.id} needs {need} bot{'s' if rules.max_players > 1 else ''}, got {len(bots)}")
    programs = {i: shlex.split(spec[len(EXEC):]) for i, spec in enumerate(bots) if spec.startswith(EXEC)}
    if any(not argv for argv in programs.values()):
        raise UserError(f"{EXEC}COMMAND needs a command, e.g. \"{EXEC}perl bot.pl\"")
    if programs and not unsafe:
        raise UserError(f"{EXEC} bots run without the strong sandbox; add --unsafe to run your own program")
    if programs and in_process:
        raise UserError(f"{EXEC} bots are programs of their own: they cannot run --in-process")
    resolved = [(Path(programs[i][0]).stem, "", False) if i in programs else resolve_bot(spec)
                for i, spec in enumerate(bots)]
    if seed is None:  # nothing to reproduce: fresh randomness, no database needed
        deck, seeds = random_seed(), None
    else:  # reproducible on this database only: the chosen seed is keyed with its secret (arena/seeds.py)
        with Session(ctx.engine) as session:
            key = database_key(session)
        deck = keyed(key, "play", seed)
        seeds = bot_seeds(key, deck, len(bots))
    limits = Limits(decision_ms=decision_ms, bank_ms=bank_ms)
    players: list[Player] = []
    try:
        if in_process:
            untrusted = [name for name, _, trusted in resolved if not trusted]
            if untrusted and not unsafe:
                raise UserError(f"--in-process runs bot code unsandboxed; {', '.join(untrusted)} "
                                "is not built in (add --unsafe if you trust it)")
            players = [InProcessPlayer(builtin_bot(spec) or Path(spec), name, limits)
                       for spec, (name, _, _) in zip(bots, resolved)]
        else:
            tier = detect_tier()
            if tier is Tier.PLAIN and not unsafe and not all(trusted for _, _, trusted in resolved):
                raise UserError("no strong sandbox is available on this machine (bubblewrap + seccomp); "
                                "refusing to run bots that are not built in without --unsafe")
            for i, (name, source, _) in enumerate(resolved):
                if i in programs:
                    try:
                        players.append(SandboxPlayer.external(Path(programs[i][-1]).stem, programs[i], limits))
                    except SandboxError as exc:  # the user's program, not the machine
                        raise UserError(str(exc)) from None
                else:
                    players.append(SandboxPlayer(name, source, limits, tier))
        record = play_game(rules, deck, players, limits, seeds)
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bots'): {exc}") from None
    finally:
        for player in players:
            player.close()
    if replay_path:
        Path(replay_path).write_text(record.replay_text, encoding="utf-8")
    if as_json:
        click.echo(json.dumps(record_json(record), indent=2))
    else:
        click.echo(result_table(record))
    if record.void:
        raise click.ClickException(f"game voided by a referee fault: {record.void}")


def record_json(record: GameRecord) -> dict:
    return {
        "rules_id": record.rules_id, "seed": record.seed, "void": record.void,
        "seconds": round(record.seconds, 3),
        "seats": [{"seat": i, "name": s.name, "coins": s.coins, "rank": s.rank, "status": s.status.value,
                   "detail": s.detail, "decisions": s.decisions, "time_ms": s.time_ms}
                  for i, s in enumerate(record.seats)],
    }


def result_table(record: GameRecord) -> str:
    rows = [("seat", "bot", "coins", "rank", "status", "decisions", "time ms", "detail")]
    for i, s in enumerate(record.seats):
        rows.append((str(i), s.name, str(s.coins), str(s.rank), s.status.value, str(s.decisions),
                     f"{s.time_ms:.0f}", s.detail))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
    lines = [f"{record.rules_id}  seed {record.seed}  {record.seconds:.2f} s"]
    for r in rows:
        lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1])
    return "\n".join(line.rstrip() for line in lines)


def sandbox_tier(unsafe: bool, tier: Tier | None = None) -> Tier:
    """The tier to run submitted bots in (``tier``: as detected where they run); refuses PLAIN unless ``unsafe``."""
    tier = detect_tier() if tier is None else tier
    if tier is Tier.PLAIN and not unsafe:
        raise click.ClickException("no strong sandbox is available on this machine (bubblewrap + seccomp); "
                                   "refusing to run submitted bots without --unsafe")
    return tier


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--name", help="Bot name (default: the file name without .py).")
@click.option("--author", default="", help="Who wrote it.")
@click.option("--unsafe", is_flag=True, help="Allow the smoke game without a strong sandbox.")
@pass_context
def submit(ctx: Context, path: str, name: str | None, author: str, unsafe: bool) -> None:
    """Check a bot file, play a smoke game in the sandbox, and add it to the ladder.

    A new file under an existing name becomes that bot's next version: it keeps the rating mean
    and starts with a fresh uncertainty; older versions stop being scheduled.
    """
    file = Path(path)
    try:
        if not file.is_file():
            raise SubmissionError(f"no such file: {path!r}")
        name = check_name(name or file.stem)
        check_author(author)
        with Session(ctx.engine) as session:
            existing_bot(session, name)
        source = check_source(file.read_bytes(), path)
        smoke = smoke_games(name, source, Limits(), sandbox_tier(unsafe))
        records = {variant: record for variant, (_, record) in smoke.items()}
        mine = {variant: table.seat for variant, (table, _) in smoke.items()}
        failures = {variant: smoke_failure(record, mine[variant]) for variant, record in records.items()}
        passed = [variant for variant, failure in failures.items() if not failure]
        if not passed:  # the classic game's failure names the reason
            record, failure = records["classic"], failures["classic"] or ""
            detail = record.seats[mine["classic"]].detail
            raise SubmissionError(f"{path!r} rejected: {failure}" + ("" if detail in failure else f" ({detail})"))
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bot's): {exc}") from None
    with Session(ctx.engine) as session:
        try:
            done = register(session, name, source, author, variants=passed)
        except SubmissionError as exc:  # e.g. a boss took the name during the smoke games
            raise UserError(str(exc)) from None
        games = "; ".join(f"{variant} {r.seats[mine[variant]].coins} coins, " + (
            f"rank {r.seats[mine[variant]].rank} of {len(r.seats)}" if len(r.seats) > 1
            else "won" if r.seats[0].rank == 1 else "lost")
            for variant, r in records.items() if variant in passed)
        if done.new:
            click.echo(f"{name} version {done.version.number} registered for {', '.join(passed)} (smoke games: {games})")
        else:
            click.echo(f"{name} is unchanged: version {done.version.number} already has this source "
                       f"(plays {', '.join(passed)})")
        for variant, failure in failures.items():
            if failure:
                click.echo(f"not scheduled in {variant}: {failure}", err=True)


@cli.command("bots")
@pass_context
def bots_command(ctx: Context) -> None:
    """List bots, their versions and ratings."""
    with Session(ctx.engine) as session:
        rows = [("bot", "author", "version", "versions", "score", "mu", "sigma", "games")]
        board = {row["name"]: row for row in leaderboard(session)}
        for bot in session.exec(select(Bot).order_by(Bot.name)).all():
            versions = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)).all()
            row = board.get(bot.name)
            rows.append((bot.name + (" (boss)" if bot.builtin else ""), shown(bot.author), str(row["version"] if row else "-"),
                         str(len(versions)), f"{row['score']:.2f}" if row else "-", f"{row['mu']:.2f}" if row else "-",
                         f"{row['sigma']:.2f}" if row else "-", str(row["games"]) if row else "0"))
    click.echo(format_table(rows) if len(rows) > 1 else "no bots yet: add one with 'arena submit PATH'")


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


@season.command("run")
@click.option("--name", default="season-1", show_default=True, help="Season name; an existing season resumes.")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Games in the season (new seasons: 100); solo: deals every bot plays (new seasons: 50). "
                   "A larger number extends an existing season.")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=2, show_default=True,
              help="Parallel matches (local pool processes, or dask-local worker processes).")
@click.option("--executor", "executor_spec", default="local", show_default=True,
              help="Where tables are played: local (a process pool), dask-local (a Dask LocalCluster), "
                   "or dask://HOST:PORT (a Dask scheduler; its workers decide the parallelism).")
@click.option("--players", default=None, help="Table size, N or N-M (default: the variant's, classic 3-5, duel 2, solo 1).")
@click.option("--variant", default=None, help="classic, duel or solo (default: the season's own, classic for a new one).")
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="New seasons: play every deal once per seat rotation (same deck, luck cancels out; "
                   "every game starts every bot afresh).")
@click.option("--seed", type=int, default=None,
              help="Season seed, keyed with the database's secret (default: random).")
@click.option("--bosses", default=None, metavar="NAMES",
              help="Enter built-in bots as fixed reference points first: comma-separated names "
                   "(random, greedy, trader, search) or 'all'. They stay on the ladder, marked (boss).")
@click.option("--unsafe", is_flag=True, help="Run without a strong sandbox.")
@click.option("--decision-ms", type=click.FloatRange(min=1), default=1000, show_default=True)
@click.option("--bank-ms", type=click.FloatRange(min=0), default=10_000, show_default=True)
@pass_context
def season_run(ctx: Context, name: str, games: int | None, workers: int, executor_spec: str, players: str | None,
               variant: str | None, rotate: bool, seed: int | None, bosses: str | None, unsafe: bool,
               decision_ms: float, bank_ms: float) -> None:
    """Run a season (or resume it where it stopped), then print the leaderboard.

    Solo seasons: every bot that plays solo plays the same deals, ranked by win rate.
    """
    boss_names = parse_bosses(bosses) if bosses is not None else []
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
    try:
        rules = rules_for(variant or (existing.variant if existing else "classic"))
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
    stop_on_sigterm()
    try:
        progress = run_season(engine, settings, executor, limits,
                              lambda started: sandbox_tier(unsafe, started.detect_tier()),
                              ProgressReporter(quiet=ctx.quiet),
                              prepare=(lambda session: register_bosses(session, boss_names)) if boss_names else None)
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    except (LadderError, DatabaseError, ExecutorError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (systemd, Kubernetes, timeout): the same clean stop
        raise click.ClickException(f"interrupted; finished games are saved: 'arena season run --name {name}' resumes")
    if not ctx.quiet:
        click.echo(f"season {name}: {progress.done} games rated, {progress.void} void; "
                   f"bot failures this run: {progress.failure_summary()}")
    with Session(engine) as session:
        click.echo(board_table(leaderboard(session, variant, name if format_of(variant).same_deals else None), variant))


@season.command("close")
@click.argument("name")
@pass_context
def season_close(ctx: Context, name: str) -> None:
    """Close a season: it plays no more games, and a solo season's deals are published by the next site build."""
    with Session(ctx.engine) as session:
        try:
            closed = close_season(session, name)
        except LadderError as exc:
            raise UserError(str(exc)) from None
        what = ("its deals are published by the next 'arena site build'" if format_of(closed.variant).same_deals
                else "it plays no more games")
        click.echo(f"season {name} closed on {closed.closed_at:%Y-%m-%d %H:%M}: {what}")


@season.command("list")
@pass_context
def season_list(ctx: Context) -> None:
    """List seasons."""
    with Session(ctx.engine) as session:
        rows = [("season", "variant", "players", "games", "done", "void", "created", "finished")]
        for s in session.exec(select(Season).order_by(Season.id)).all():
            counts = season_counts(session, s)
            rows.append((s.name, s.variant, f"{s.min_players}-{s.max_players}",
                         f"{s.games} deals/bot" if format_of(s.variant).same_deals else str(s.games), str(counts.get("done", 0)),
                         str(counts.get("void", 0)), f"{s.created_at:%Y-%m-%d %H:%M}",
                         f"{s.finished_at:%Y-%m-%d %H:%M}" if s.finished_at else "-"))
    click.echo(format_table(rows) if len(rows) > 1 else "no seasons yet: start one with 'arena season run'")


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
        done = (f"{counts.get('done', 0)} games done on {s.games} deals per bot" if format_of(s.variant).same_deals
                else f"{counts.get('done', 0)}/{s.games} games done")
        click.echo(f"season {s.name}: {s.variant}, {s.min_players}-{s.max_players} players, "
                   f"{done}, {counts.get('void', 0)} void, "
                   f"{counts.get('planned', 0)} planned{', seat-rotated deals' if s.rotate else ''}")
        matches = session.exec(select(Match).where(Match.season_id == s.id, Match.status != "planned")
                               .order_by(Match.number.desc()).limit(10)).all()  # type: ignore[union-attr]
        rows = [("match", "seed", "status", "seats (coins, status)")]
        for m in matches:
            seats = session.exec(select(MatchSeat, BotVersion, Bot).where(
                MatchSeat.match_id == m.id, MatchSeat.version_id == BotVersion.id, BotVersion.bot_id == Bot.id)
                .order_by(MatchSeat.seat)).all()
            rows.append((str(m.id), str(m.seed), f"void: {shown(m.void_reason, 120)}" if m.status == "void" else m.status,
                         ", ".join(f"{b.name} {ms.coins} {ms.status}" for ms, _, b in seats)))
        click.echo(format_table(rows))


def stop_on_sigterm() -> None:
    """Make SIGTERM stop a season the way Ctrl-C does (one line, resumable), in this process only:
    forked workers set their own signal handling."""
    main_pid = os.getpid()

    def stop(signum: int, frame: object) -> None:
        if os.getpid() == main_pid:
            raise KeyboardInterrupt
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def season_counts(session: Session, s: Season) -> dict[str, int]:
    from sqlalchemy import func

    return dict(session.exec(select(Match.status, func.count()).where(Match.season_id == s.id)
                             .group_by(Match.status)).all())


@cli.command("leaderboard")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of rows.")
@click.option("--variant", default="classic", show_default=True)
@click.option("--rerate", "do_rerate", is_flag=True, help="Recompute every rating from the recorded games first.")
@click.option("--season", "season_name", default=None, help="Solo: the season whose deals rank the bots (default: the latest).")
@pass_context
def leaderboard_command(ctx: Context, as_json: bool, variant: str, do_rerate: bool, season_name: str | None) -> None:
    """The ladder: score (mu - 3 sigma), mu, sigma and games of each bot's current version.

    Solo: win rate with its 95% Wilson interval and average gold on one season's deals.
    """
    try:
        variant = rules_for(variant).variant
    except ValueError as exc:
        raise UserError(str(exc)) from None
    with Session(ctx.engine) as session:
        if do_rerate:
            differences = rerate(session, variant, write=True)
            click.echo(f"rerated {variant}: {len(differences)} ratings differed from the stored ones", err=True)
        try:
            rows = leaderboard(session, variant, season_name)
        except LadderError as exc:
            raise UserError(str(exc)) from None
    click.echo(json.dumps(rows, indent=2) if as_json else board_table(rows, variant))


def board_table(rows: list[dict], variant: str = "classic") -> str:
    """A format's board as text (its ranking says which columns)."""
    if not rows:
        return "no bots on the ladder yet"
    return format_table(format_of(variant).ranking.table(rows))


def format_table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows)


@cli.command()
@click.option("--games", type=click.IntRange(min=1), default=48, show_default=True)
@click.option("--workers", type=click.IntRange(min=1, max=64), default=2, show_default=True)
@click.option("--unsafe", is_flag=True, help="Run without a strong sandbox.")
@pass_context
def demo(ctx: Context, games: int, workers: int, unsafe: bool) -> None:
    """Register the example bots, run a short sandboxed season, print the leaderboard, build the site.

    The season plays seat-rotated deals, so each table's bot processes serve several games.
    """
    tier = detect_tier()
    builtin_only = tier is Tier.PLAIN and not unsafe
    if builtin_only:
        click.echo(f"note: no strong sandbox here ({strong_tier_missing()}), so the demo seats only the built-in "
                   "bots, in the plain tier (limits and a session of their own, no namespaces or seccomp); "
                   "for the strong tier install bubblewrap (apt-get install -y bubblewrap) and run as root", err=True)
    with Session(ctx.engine) as session:  # the example bots play every variant (tests/bots)
        names = list(builtin_bots())
        taken = names_taken_by_submissions(session, names)
        for name in taken:
            click.echo(f"warning: a submitted bot is named {name!r}; the built-in {name} is not entered as a boss",
                       err=True)
        register_bosses(session, [name for name in names if name not in taken])
    name = f"demo-{secrets.token_hex(3)}"
    click.echo(f"running season {name}: {games} games, {workers} workers, sandbox tier {tier.value}", err=True)
    settings = SeasonSettings(name=name, games=games, min_players=3, max_players=5, rotate=True,
                              builtin_only=builtin_only)
    try:
        run_season(ctx.engine, settings, workers, Limits(), tier, ProgressReporter(quiet=ctx.quiet))
    except (LadderError, DatabaseError) as exc:
        raise click.ClickException(str(exc)) from None
    with Session(ctx.engine) as session:
        click.echo(board_table(leaderboard(session), "classic"))
    from arena.site import SiteError, build_site

    try:
        summary = build_site(ctx.engine, Path("arena-site"))
    except SiteError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"site: {summary.index.resolve()}")


@cli.group("site")
def site_group() -> None:
    """Build the static leaderboard site."""


@site_group.command("build")
@click.option("--out", "out", type=click.Path(file_okay=False), default="arena-site", show_default=True,
              help="Folder to write the site into (rewritten on every build).")
@click.option("--variant", default="classic", show_default=True, help="Rules variant of the leaderboard.")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=None, help="Processes for game pages.")
@pass_context
def site_build(ctx: Context, out: str, variant: str, workers: int | None) -> None:
    """Render the leaderboard, bot, season and game pages (with replays) into OUT."""
    from arena.site import SiteError, build_site

    try:
        summary = build_site(ctx.engine, Path(out), variant, workers)
    except SiteError as exc:
        raise UserError(str(exc)) from None
    if not ctx.quiet:
        click.echo(f"{summary.pages} pages ({summary.games} games) in {summary.seconds:.1f} s", err=True)
    click.echo(str(summary.index.resolve()))


def main() -> None:
    cli(prog_name="arena")
