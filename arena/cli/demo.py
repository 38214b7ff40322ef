"""`arena demo`: the example bots, a short sandboxed season, its leaderboard and the site (arena/demo.py)."""
from __future__ import annotations

from pathlib import Path

import click
from sqlmodel import Session

from arena.db import DatabaseError
from arena.demo import demo_season, enter_example_bots
from arena.audit.words import season_audit_lines
from arena.ladder.seasons import LadderError, leaderboard, run_season
from arena.ladder.progress import ProgressReporter
from sandbox import Limits, Tier, detect_tier, strong_tier_missing

from arena.cli.base import Context, board_table, cli, echo, pass_context


@cli.command()
@click.option("--games", type=click.IntRange(min=1), default=48, show_default=True)
@click.option("--workers", type=click.IntRange(min=1, max=64), default=2, show_default=True)
@click.option("--unsafe", is_flag=True, help="Run without a strong sandbox.")
@pass_context
def demo(ctx: Context, games: int, workers: int, unsafe: bool) -> None:
    """Register the example bots, run a short sandboxed season, print the leaderboard, build the site.

    The season plays seat-rotated deals (every bot starts afresh in every game).
    """
    tier = detect_tier()
    builtin_only = tier is Tier.PLAIN and not unsafe
    if builtin_only:
        echo(f"note: no strong sandbox here ({strong_tier_missing()}), so the demo seats only the built-in "
             "bots, in the plain tier (limits and a session of their own, no namespaces or seccomp); "
             "for the strong tier install bubblewrap (apt-get install -y bubblewrap)", err=True)
    with Session(ctx.engine) as session:
        taken = enter_example_bots(session)
    for name in taken:
        echo(f"warning: a submitted bot is named {name!r}; the built-in {name} is not entered as a boss", err=True)
    settings = demo_season(games, builtin_only)
    echo(f"running season {settings.name}: {games} games, {workers} workers, sandbox tier {tier.value}", err=True)
    try:
        progress = run_season(ctx.engine, settings, workers, Limits(), tier, ProgressReporter(quiet=ctx.quiet))
    except (LadderError, DatabaseError) as exc:
        raise click.ClickException(str(exc)) from None
    if progress.audited is not None:
        for line in season_audit_lines(settings.name, progress.audited, progress.flagged):
            echo(line, err=True)
    with Session(ctx.engine) as session:
        echo(board_table(leaderboard(session)))
    from arena.site import SiteError, build_site

    try:
        summary = build_site(ctx.engine, Path("arena-site"))
    except SiteError as exc:
        raise click.ClickException(str(exc)) from None
    echo(f"site: {summary.index.resolve()}")
