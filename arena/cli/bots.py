"""`arena submit`, `arena bots` and `arena bots retire`: adding a bot to the ladder, listing the bots,
retiring one (arena/submit.py, arena/smoke_verdict.py and arena/roster.py hold what they do)."""
from __future__ import annotations

from pathlib import Path

import click
from sqlmodel import Session

from arena.formats import default_format
from arena.roster import roster
from arena.smoke_verdict import smoke_verdict, version_hint
from arena.text import shown
from arena.accounts import Actor
from arena.submit import (SubmissionError, check_may_change, check_name, plays_formats, read_bot, read_bot_file,
                          register, retire)
from sandbox import Limits, SandboxError

from arena.cli.base import Context, UserError, cli, echo, format_table, pass_context
from arena.cli.helps import bots_help
from arena.cli.trust import sandbox_tier


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--name", help="Bot name (default: the file name without .py).")
@click.option("--author", default="", help="Act as this author's account ('arena authors'): a new bot becomes "
              "theirs, and only its owner makes its next versions.")
@click.option("--operator", is_flag=True, help="Act as the operator: make a new version of any bot (recorded).")
@click.option("--unsafe", is_flag=True, help="Allow the smoke game without a strong sandbox.")
@pass_context
def submit(ctx: Context, path: str, name: str | None, author: str, operator: bool, unsafe: bool) -> None:
    """Check a bot file, play a smoke game of each format in the sandbox, and add it to the ladder.

    A new file under an existing name becomes that bot's next version (only its owner's, or the
    operator's with --operator): it keeps the rating mean and starts with a fresh uncertainty;
    older versions stop being scheduled.
    """
    file = Path(path)
    actor = acting(author, operator)
    try:
        data = read_bot_file(path)  # a link, a FIFO or an oversized file is refused before it is read
        named = name is not None
        name = check_name(name or file.stem)
        with Session(ctx.engine) as session:
            check_may_change(session, name, actor, "make a new version of")  # before the smoke games
            base = None if named else version_hint(session, name)
        if base is not None:
            echo(f"note: no bot is named {name!r}, so this is a new bot; to make it the next version "
                 f"of {base!r}, submit it with --name {base}", err=True)
        source, language = read_bot(data, path)
        verdict = smoke_verdict(name, source, Limits(), sandbox_tier(unsafe), language)
        passed = verdict.passed
        if not passed:  # the default format's failure names the reason; the bot's own output says why
            for text in verdict.failure_texts(default_format().name):
                echo(text, err=True)
            raise verdict.rejection(path)
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bot's): {exc}") from None
    with Session(ctx.engine) as session:
        try:
            done = register(session, name, source, actor, variants=passed, language=language)
        except SubmissionError as exc:  # e.g. a boss took the name during the smoke games
            raise UserError(str(exc)) from None
        if done.new:
            echo(f"{name} version {done.version.number} registered for {', '.join(passed)} "
                 f"(smoke games: {verdict.summary()})")
        else:
            plays = plays_formats(session, done.version)
            echo(f"{name} is unchanged: version {done.version.number} already has this source; nothing was "
                 f"stored and it still plays {', '.join(plays) or 'no format'}")
        for variant, why in verdict.failures.items():
            if why and not done.new and variant in plays:
                echo(f"its smoke game in {variant} failed this time ({why}); it still plays {variant}, as the "
                     "same code did before", err=True)
            elif why:
                echo(f"not scheduled in {variant}: {why}", err=True)
                for text in verdict.failure_texts(variant):
                    echo(text, err=True)


def acting(author: str, operator: bool) -> Actor:
    """Who a command acts as: ``--operator`` (with ``--author``: for that account), else the author named."""
    return Actor.operator(author) if operator else Actor.author(author)


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
        rows.append((bot.name + (" (boss)" if bot.builtin else ""), shown(bot.author), str(bot.current or "retired"),
                     str(bot.versions), *("-" if row is None or not row.games else row.brief()
                                          for row in bot.standings)))
    echo(format_table(rows))
