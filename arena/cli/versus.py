"""`arena test NEW --against OLD`: is a new version better? A sequential test on paired deals."""
from __future__ import annotations

import sys

import click

from arena.cli.base import Context, UserError, cli, pass_context
from arena.cli.trust import ladder_bot, resolve_bot, sandbox_tier
from arena.sprt import Hypotheses
from arena.match import SeatEntry
from arena.versus import Progress, run_test
from sandbox import Limits, SandboxError

#: Exit codes: the verdict, for scripts (2 is a usage error, 1 any other error).
EXIT = {"H1": 0, "H0": 3, None: 4}


@cli.command("test")
@click.argument("new")
@click.option("--against", "old", required=True, help="The version to beat: a built-in name, a file or NAME@VERSION.")
@click.option("--field", default="random,greedy,trader", show_default=True,
              help="The other seats of every table, comma-separated (3 bots: 4-player tables).")
@click.option("--elo0", type=float, default=0.0, show_default=True, help="H0: NEW is at most this much better.")
@click.option("--elo1", type=float, default=5.0, show_default=True, help="H1: NEW is at least this much better.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Chance of H1 when H0 is true.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="Chance of H0 when H1 is true.")
@click.option("--max-pairs", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Stop undecided after this many pairs (4 games each).")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=2, show_default=True)
@click.option("--unsafe", is_flag=True, help="Run without a strong sandbox.")
@pass_context
def test_command(ctx: Context, new: str, old: str, field: str, elo0: float, elo1: float, alpha: float, beta: float,
                 max_pairs: int, workers: int, unsafe: bool) -> None:
    """Play NEW and OLD on the same deals, from the same seats, against the same field, until a
    sequential probability ratio test says NEW is better (H1, exit 0), not better (H0, exit 3), or
    MAX-PAIRS pass undecided (exit 4). Classic, fresh bots every game, in the sandbox."""
    try:
        hypotheses = Hypotheses(elo0, elo1, alpha, beta)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    lookup = lambda spec: ladder_bot(ctx.engine, spec) if ctx.database_exists() else None  # noqa: E731
    names = [n.strip() for n in field.split(",") if n.strip()]
    if not 2 <= len(names) <= 4:
        raise UserError(f"--field wants 2 to 4 bots (tables of 3 to 5 players), got {len(names)}: {field!r}")
    new_bot, old_bot, *field_bots = [SeatEntry(-1 - i, *resolve_bot(spec, lookup)[:2])  # no ladder version ids
                                     for i, spec in enumerate((new, old, *names))]
    if new_bot.source == old_bot.source:
        click.echo("note: NEW and OLD are the same code; the test can only end in H0 or undecided", err=True)
    tier = sandbox_tier(unsafe)

    def report(progress: Progress) -> None:
        if not ctx.quiet and (progress.results.pairs % 10 == 0 or progress.verdict):
            click.echo(progress.line(), err=True)

    try:
        result = run_test(new_bot, old_bot, field_bots, hypotheses, max_pairs, workers, Limits(), tier, report)
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bots'): {exc}") from None
    verdict = result.verdict
    what = {"H1": f"H1: {new_bot.name} is better than {old_bot.name}",
            "H0": f"H0: {new_bot.name} is not better than {old_bot.name} by {elo1:g} Elo",
            None: f"inconclusive after {result.results.pairs} pairs"}[verdict]
    click.echo(f"{what} ({result.line()})")
    sys.exit(EXIT[verdict])
