"""`arena bots` and `arena bots retire`: listing the bots, retiring one (arena/ladder/roster.py holds the list;
`arena submit` is arena/cli/submit.py)."""
from __future__ import annotations

import click
from sqlmodel import Session

from arena.ladder.roster import roster
from arena.text import shown
from arena.submissions.errors import SubmissionError
from arena.submissions.versions import retire

from arena.cli.base import Context, UserError, cli, echo, format_table, pass_context
from arena.cli.helps import bots_help
from arena.cli.trust import acting


@cli.group("bots", invoke_without_command=True, help=bots_help())
@click.pass_context
def bots_group(click_ctx: click.Context) -> None:
    """List bots and their versions (help: ``bots_help``); `arena bots retire NAME` stops one."""
    if click_ctx.invoked_subcommand is None:
        bots_list(click_ctx.ensure_object(Context))


@bots_group.command("retire")
@click.argument("name")
@click.option("--author", default="", help="Act as this author's account: only a bot's owner retires it.")
@click.option("--operator", is_flag=True, help="Act as the operator: retire any bot.")
@pass_context
def bots_retire(ctx: Context, name: str, author: str, operator: bool) -> None:
    """Stop scheduling bot NAME: it leaves the boards and new seasons; its games and ratings stay, and
    submitting it again makes its next version."""
    actor = acting(author, operator)
    with Session(ctx.engine) as session:
        try:
            version = retire(session, name, actor)
        except SubmissionError as exc:
            raise UserError(str(exc)) from None
    echo(f"{name} retired (version {version.number} was current); its games stay on the site")


def bots_list(ctx: Context) -> None:
    with Session(ctx.engine) as session:
        listed = roster(session)
    if not listed.bots:
        echo("no bots yet: add one with 'arena submit PATH'")
        return
    rows = [("bot", "author", "version", "versions", *(f"{f.name} (games)" for f in listed.formats))]
    for bot in listed.bots:
        current = f"{bot.current} (paused)" if bot.paused else str(bot.current or "retired")
        rows.append((bot.name + (" (boss)" if bot.builtin else ""), shown(bot.author), current,
                     str(bot.versions), *("-" if row is None or not row.games else row.brief()
                                          for row in bot.standings)))
    echo(format_table(rows))
