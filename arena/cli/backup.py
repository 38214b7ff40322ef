"""`arena backup`: a consistent copy of the SQLite database, also while a season runs."""
from __future__ import annotations

from pathlib import Path

import click

from arena.cli.base import Context, UserError, echo, cli, pass_context


@cli.command("backup")
@click.option("--to", "target", type=click.Path(dir_okay=False), required=True, help="The new file to write.")
@pass_context
def backup(ctx: Context, target: str) -> None:
    """Copy the SQLite database into a new file, consistently, even while a season runs."""
    from arena.backup import BackupError, backup_sqlite

    try:
        pages = backup_sqlite(ctx.engine, Path(target))
    except BackupError as exc:
        raise UserError(str(exc)) from None
    echo(f"copied {pages} pages to {Path(target).resolve()}")
