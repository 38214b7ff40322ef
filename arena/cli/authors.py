"""`arena authors`: the operator's commands for author accounts (arena/submissions/accounts.py)."""
from __future__ import annotations

from typing import Callable, TypeVar

import click
from sqlmodel import Session

from arena.submissions.accounts import AccountError, add_author, list_authors, remove_author, rotate_token, transfer_bot
from arena.text import plural, shown

from arena.cli.base import Context, UserError, cli, echo, format_table, pass_context


T = TypeVar("T")


def _account_change(ctx: Context, change: Callable[[Session, str], T], name: str) -> T:
    """``change(session, name)``, its refusal one line."""
    with Session(ctx.engine) as session:
        try:
            return change(session, name)
        except AccountError as exc:
            raise UserError(str(exc)) from None


@cli.group("authors", invoke_without_command=True)
@click.pass_context
def authors(click_ctx: click.Context) -> None:
    """Author accounts: a bot belongs to the author who first submitted it, and only its owner (or the
    operator, with --operator) makes its next versions or retires it. Without a command: list them."""
    if click_ctx.invoked_subcommand is None:
        authors_list(click_ctx.ensure_object(Context))


@authors.command("add")
@click.argument("name")
@pass_context
def authors_add(ctx: Context, name: str) -> None:
    """Make the account NAME and print its token once, on the last line (only its hash is stored)."""
    author, token = _account_change(ctx, add_author, name)
    echo(f"author {shown(author.name)} added; their token (shown only now; 'arena authors rotate' makes a new one):")
    echo(token)


@authors.command("rotate")
@click.argument("name")
@pass_context
def authors_rotate(ctx: Context, name: str) -> None:
    """Give NAME a new token (printed once, on the last line); the old one stops working."""
    author, token = _account_change(ctx, rotate_token, name)
    echo(f"author {shown(author.name)} has a new token; the old one no longer works:")
    echo(token)


@authors.command("remove")
@click.argument("name")
@pass_context
def authors_remove(ctx: Context, name: str) -> None:
    """Close the account NAME: its token stops working and its name stays reserved (no new account takes it);
    its bots stay, and only the operator changes them or hands them over ('arena authors transfer')."""
    author, owned = _account_change(ctx, remove_author, name)
    echo(f"author {shown(author.name)} removed; {plural(owned, 'bot')} of theirs stay on the ladder, changed only "
         "by the operator ('arena authors transfer BOT --to AUTHOR' hands one over); the name stays reserved")


@authors.command("transfer")
@click.argument("bot")
@click.option("--to", "to", required=True, metavar="AUTHOR", help="The account that is to own the bot.")
@pass_context
def authors_transfer(ctx: Context, bot: str, to: str) -> None:
    """Hand the bot BOT (e.g. a removed account's) to the account AUTHOR, on purpose: from now on only AUTHOR
    makes its versions, retires it and reads its logs."""
    moved, before = _account_change(ctx, lambda session, name: transfer_bot(session, name, to), bot)
    echo(f"bot {moved.name} now belongs to {shown(moved.author)} (before: {shown(before) or 'no author'})")


def authors_list(ctx: Context) -> None:
    with Session(ctx.engine) as session:
        listed = list_authors(session)
    if not listed:
        echo("no author accounts yet: the operator makes one with 'arena authors add NAME'")
        return
    rows = [("author", "bots", "token", "since")]
    rows += [(shown(a.name), ", ".join(shown(b) for b in a.bots) or "-",
              f"removed {a.removed} (name reserved)" if a.removed else "yes" if a.has_token
              else "none (rotate to make one)", a.created) for a in listed]
    echo(format_table(rows))
