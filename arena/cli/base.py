"""The ``arena`` command group, its shared state and errors. Logging is configured here and nowhere else."""
from __future__ import annotations

import importlib
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import click

from arena.db import DB_ENV, DEFAULT_DB, database_url, shown_url
from arena.paths import new_file_refused
from arena.text import plural, terminal

if TYPE_CHECKING:  # the database, the formats and their boards are imported by the commands that use them: an
    # author's client (`arena submit --to`, `arena status --to`) starts without SQLAlchemy (arena/db/__init__.py)
    from sqlalchemy.engine import Engine

    from arena.ladder.rankings import Standing


class UserError(click.ClickException):
    """A mistake in what the user asked for: one line, exit status 2."""

    exit_code = 2

    def format_message(self) -> str:
        return terminal(super().format_message())  # it may quote a file's or a bot's text


def check_writable_file(path: str, what: str) -> None:
    """Refuse, before any work is done, a file that could not be written: its folder is missing or not writable."""
    folder = Path(path).absolute().parent
    if not folder.is_dir():
        raise UserError(f"{what} {path!r}: the folder {str(folder)!r} does not exist")
    refused = new_file_refused(folder)
    if refused is not None or (Path(path).exists() and not os.access(path, os.W_OK)):
        raise UserError(f"{what} {path!r}: not writable here" + (f" ({refused})" if refused else ""))


def echo(message: str, err: bool = False) -> None:
    """``click.echo`` through the one terminal sanitiser: a bot's name, output or replay file prints no control
    character."""
    click.echo(terminal(message), err=err)


class TerminalFormatter(logging.Formatter):
    """Log lines quote bot output and names: printed as ``echo`` prints."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal(super().format(record))


def setup_logging(verbose: int, quiet: bool, log_file: str | None) -> None:
    level = logging.WARNING if quiet else (
        logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        try:
            handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
        except OSError as exc:
            raise UserError(f"cannot write the log file {log_file!r}: {exc.strerror or exc}") from None
    handlers[0].setFormatter(TerminalFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=handlers, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Dask's own loggers (configured when it is imported, here and in its worker processes) follow ours
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", logging.getLevelName(level).lower())


@dataclass(frozen=True)
class Listed:
    """A command of the group as ``arena --help`` lists it without importing it: the module of ``arena.cli`` that
    defines it (imported when the command is run or asked for its own help) and its line in the list."""

    module: str
    summary: str


#: each command of the group: ``arena --help`` lists them from here (importing every command's module for its
#: docstring cost ~1 s), each command's own help is its docstring
COMMANDS: dict[str, Listed] = {
    "audit": Listed("audit", "Audit the recorded games for colluding pairs and teams."),
    "authors": Listed("authors", "Author accounts: who owns which bot."),
    "backup": Listed("backup", "Copy the SQLite database, consistently, even while it runs."),
    "bots": Listed("bots", "List bots, their versions and their standing."),
    "competition": Listed("competition", "Competitions: an open ladder, then a final."),
    "demo": Listed("demo", "Register the example bots, play a season, build the site."),
    "game": Listed("game", "Look at one recorded game."),
    "ladder": Listed("ladder", "The ladder's settings."),
    "leaderboard": Listed("season", "A format's board: each bot's current version ranked."),
    "play": Listed("play", "Play one game between bots, or take a seat yourself."),
    "replay": Listed("game", "Show a replay file: its seats, result and steps."),
    "season": Listed("season", "Run and inspect ladder seasons."),
    "serve": Listed("serve", "Run the submission service for authors' uploads."),
    "site": Listed("site", "Build the static leaderboard site."),
    "status": Listed("status", "Your bots on the ladder: ranks, pauses, failures."),
    "submit": Listed("submit", "Check a bot file and add it to the ladder."),
    "test": Listed("testrun", "Is NEW better than OLD? A stored sequential test."),
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is run or asked for its help: ``arena
    status`` or ``arena play`` does not pay for importing the site builder, the audit's statistics and every other
    command (docs/benchmarks.md, "The command line's start"), nor does ``arena --help``."""

    def __init__(self, *args: Any, listed: dict[str, Listed], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.listed = listed

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.listed:
            importlib.import_module(f"arena.cli.{self.listed[cmd_name].module}")  # its decorators register it here
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.listed})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.listed[name].summary if name in self.listed else
                 self.commands[name].get_short_help_str(formatter.width)) for name in self.list_commands(ctx)
                if name in self.listed or not self.commands[name].hidden]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, listed=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
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
            raise UserError(f"${FORMATS_ENV}: cannot load format module {name!r}: "
                            f"{type(exc).__name__}: {exc}") from None


class Context:
    """Shared command state; the database is opened only by commands that use it."""

    def __init__(self, db_url: str, quiet: bool) -> None:
        self.db_url = db_url
        self.quiet = quiet
        self._engine: Engine | None = None

    def database_exists(self) -> bool:
        """Whether the database is there already (an SQLite file that does not exist is made on first use)."""
        url = database_url(self.db_url)
        if not url.startswith("sqlite"):
            return True
        from sqlalchemy.engine import make_url

        name = make_url(url).database or ""
        return name == ":memory:" or (bool(name) and Path(name).exists())

    def _upgraded(self, old: int, new: int) -> None:
        echo(f"database {shown_url(database_url(self.db_url))}: schema upgraded from version {old} to {new}", err=True)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            from arena.db import DatabaseError, make_engine

            try:
                self._engine = make_engine(self.db_url, on_upgrade=self._upgraded)
            except DatabaseError as exc:
                raise click.ClickException(str(exc)) from None
            # closed with the command, not at exit: SQLite writes its log back into the file on the last close
            click.get_current_context().call_on_close(self._engine.dispose)
        return self._engine


pass_context = click.make_pass_decorator(Context)


def board_table(rows: Sequence[Standing], variant: str | None = None) -> str:
    """A format's board as text (its ranking says which columns; None: the default format's)."""
    from arena.formats import format_of
    from arena.ladder.rankings import WinRateStanding

    variant = variant or format_of(variant).name
    if not rows:
        return "no bots on the ladder yet"
    if not any(row.games for row in rows):  # ranks 1..N on priors alone would look like results
        names = ", ".join(row.shown_name for row in rows)
        return (f"no {variant} games yet, so nobody is ranked; {plural(len(rows), 'bot')} "
                f"{'plays' if len(rows) == 1 else 'play'} {variant}: {names}")
    ranking = format_of(variant).ranking
    table = format_table(ranking.table(rows))
    if any(isinstance(row, WinRateStanding) and row.half == "public" for row in rows):
        table += ("\npublic half: while its season is open, the board shows the results on half of its deals; the "
                  "other half ranks the season and is shown once it is closed ('arena season close')")
    if any(row.games < ranking.ranked_after for row in rows):
        table += (f"\nnew: fewer than {ranking.ranked_after} rated games, listed below the ranked bots and not ranked "
                  "yet (a few lucky first games give a score no one could trust)")
    for row in rows:  # games a flag took back (arena/audit/flag_games.py): `arena audit list` says which pair
        out = getattr(row, "not_counted", 0)
        if out:
            table += f"\n{row.shown_name}: {plural(out, 'game')} not counted (audit)"
    return table


def format_table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows)


def main() -> None:
    cli(prog_name="arena")
