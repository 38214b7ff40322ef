"""`arena game show N`: one recorded game, its seats and, for a seat that failed, why."""
from __future__ import annotations

import click
from sqlmodel import Session, col, select

from arena.db import Bot, BotVersion, Match, MatchSeat, Season
from arena.text import failure_text, shown

from arena.cli.base import Context, UserError, cli, format_table, pass_context


@cli.group()
def game() -> None:
    """Look at one recorded game."""


@game.command("show")
@click.argument("number", type=click.IntRange(min=1))
@pass_context
def game_show(ctx: Context, number: int) -> None:
    """A game of the ladder (its number is on the site and in `season show`): seats, results, and
    the evidence of every failure (the request, the replay step, the bot's own last output)."""
    with Session(ctx.engine) as session:
        match = session.get(Match, number)
        if match is None:
            raise UserError(f"no game {number} in this database")
        season = session.get(Season, match.season_id)
        rows = session.exec(select(MatchSeat, BotVersion, Bot).where(
            MatchSeat.match_id == match.id, MatchSeat.version_id == BotVersion.id, BotVersion.bot_id == Bot.id)
            .order_by(col(MatchSeat.seat))).all()
    head = f"game {number}  {match.rules_id}  season {shown(season.name if season else '?')}  {match.status}"
    if match.void_reason:
        head += f" ({shown(match.void_reason, 500)})"
    table = [("seat", "bot", "version", "coins", "rank", "status", "detail")]
    for seat, version, bot in rows:
        table.append((str(seat.seat), shown(bot.name), str(version.number), "-" if seat.coins is None else str(seat.coins),
                      "-" if seat.rank is None else str(seat.rank), seat.status or "-", shown(seat.detail, 200)))
    click.echo(head)
    click.echo(format_table(table))
    for seat, version, bot in rows:
        if seat.status not in (None, "ok"):
            click.echo(failure_text(seat.seat, bot.name, seat.status, seat.detail, seat.failure_request,
                                    seat.failure_step, seat.failure_log))
