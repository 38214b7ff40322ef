"""`arena site build`: the static site."""
from __future__ import annotations

from pathlib import Path

import click

from arena.formats import default_format
from arena.paths import new_file_refused
from arena.text import plural

from arena.cli.base import Context, UserError, echo, cli, pass_context


@cli.group("site")
def site_group() -> None:
    """Build the static leaderboard site."""


@site_group.command("build")
@click.option("--out", "out", type=click.Path(file_okay=False), default="arena-site", show_default=True,
              help="Folder to write the site into (rewritten on every build).")
@click.option("--variant", default=default_format().name, show_default=True, help="Rules variant of the leaderboard.")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=None, help="Processes for game pages.")
@click.option("--private-logs", is_flag=True,
              help="Show failed bots' stderr on the pages (a site only its authors read; by default a bot's "
                   "output is its author's alone, through 'arena serve' or 'arena game show').")
@pass_context
def site_build(ctx: Context, out: str, variant: str, workers: int | None, private_logs: bool) -> None:
    """Render the leaderboard, bot, season and game pages (with replays) into OUT."""
    from arena.site import SiteError, build_site

    folder = Path(out)
    nearest = next(p for p in (folder, *folder.absolute().parents) if p.exists())
    refused = new_file_refused(nearest) if nearest.is_dir() else "not a folder"
    if refused is not None:
        raise UserError(f"cannot write the site to {out!r}: {str(nearest)!r} takes no new file ({refused})")
    engine = ctx.engine
    try:
        summary = build_site(engine, folder, variant, workers, private_logs)
    except SiteError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:  # e.g. a file inside that belongs to someone else, or a full disk
        raise click.ClickException(f"cannot write the site to {out!r}: {exc.strerror or exc}"
                                   + (f" ({exc.filename})" if exc.filename else "")) from None
    for warning in summary.warnings:  # a game whose page cannot be made is left out; the rest of the site is built
        echo(f"warning: {warning}", err=True)
    if not ctx.quiet:
        echo(f"{plural(summary.pages, 'page')} ({plural(summary.games, 'game')}) in {summary.seconds:.1f} s; "
             f"{plural(summary.written, 'file')} written, {summary.removed} removed", err=True)
    echo(str(summary.index.resolve()))

