"""`arena ladder`: the ladder's settings, stored in its database so that `arena submit` and the submission
service (`arena serve`) apply the same rules (arena/submissions/tickets.py)."""
from __future__ import annotations

import click
from sqlmodel import Session

from arena.submissions.tickets import (DEFAULT_BOTS_PER_AUTHOR, MAX_BOTS_PER_AUTHOR, TicketError, bots_per_author,
                           set_bots_per_author)

from arena.cli.base import Context, UserError, cli, echo, pass_context


@cli.group("ladder", invoke_without_command=True)
@click.pass_context
def ladder(click_ctx: click.Context) -> None:
    """The ladder's settings; without a command, show them."""
    if click_ctx.invoked_subcommand is None:
        ctx = click_ctx.ensure_object(Context)
        with Session(ctx.engine) as session:
            count = bots_per_author(session)
        echo(f"bots-per-author {count}: active bots one author may have in a format (default "
             f"{DEFAULT_BOTS_PER_AUTHOR}; built-in bots, bots of no account and --operator are not held to it)")


@ladder.command("set")
@click.argument("setting", type=click.Choice(["bots-per-author"]))
@click.argument("value", type=click.IntRange(1, MAX_BOTS_PER_AUTHOR))
@pass_context
def ladder_set(ctx: Context, setting: str, value: int) -> None:
    """Set SETTING to VALUE. bots-per-author: how many active bots one author may have in a format (a new name
    over it is refused; bots already above a lowered cap stay until retired)."""
    with Session(ctx.engine) as session:
        try:
            count = set_bots_per_author(session, value)
        except TicketError as exc:
            raise UserError(str(exc)) from None
    echo(f"bots-per-author {count}")
