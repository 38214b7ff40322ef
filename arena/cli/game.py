"""`arena game show N` and `arena replay FILE`: a game in the terminal: its seats and, for a seat that
failed, why; turn by turn (``--turns``) or the position at one step (``--step``)."""
from __future__ import annotations

from pathlib import Path

import click
from sqlmodel import Session, col, select

from arena.play.replay_text import position_text, turns_text
from engine.errors import ReplayMismatch
from engine.replay import Replay

from arena.db import Bot, BotVersion, Match, MatchSeat, Season, SeatLog, SeatStatus
from arena.audit.flag_games import not_rated
from arena.ladder.seasons import deals_secret
from arena.ladder.random_seeds import database_key, deal_id
from arena.text import failure_text, shown, solo_result

from arena.formats import format_of
from arena.site.errors import SiteError
from arena.site.local_page import write_local_replay_page
from arena.cli.base import Context, UserError, echo, cli, format_table, pass_context


@cli.group()
def game() -> None:
    """Look at one recorded game."""


TURNS = click.option("--turns", is_flag=True, help="Then the whole game, one event a line, turn by turn.")
STEP = click.option("--step", type=click.IntRange(min=0), default=None,
                    help="Then the public position at this step: after this many actions (0: the deal); "
                         "a failed seat's evidence and the site's #step-K count the same way.")


def show_replay(replay: Replay, turns: bool, step: int | None) -> None:
    """Both texts are made before anything is printed: a replay whose actions the engine refuses (an
    edited file) or a step beyond the game is one line."""
    try:
        texts = ([turns_text(replay)] if turns else []) + ([position_text(replay, step)] if step is not None else [])
    except ReplayMismatch as exc:
        raise UserError(f"the replay does not play: {exc}") from None
    except ValueError as exc:  # a step beyond the game
        raise UserError(str(exc)) from None
    for text in texts:
        echo(text)


@game.command("show")
@click.argument("number", type=click.IntRange(min=1))
@TURNS
@STEP
@click.option("--stderr", "show_stderr", is_flag=True,
              help="Then every seat's own standard error of the game, as kept for its author "
                   "(arena/ladder/seat_logs.py).")
@pass_context
def game_show(ctx: Context, number: int, turns: bool, step: int | None, show_stderr: bool) -> None:
    """A game of the ladder (its number is on the site and in `season show`): seats, results, and
    the evidence of every failure (the request, the replay step, the bot's own last output)."""
    with Session(ctx.engine) as session:
        match = session.get(Match, number)
        if match is None:
            raise UserError(f"no game {number} in this database")
        season = session.get(Season, match.season_id)
        if season is not None and deals_secret(season):
            raise UserError(f"game {number} is of season {season.name!r}, whose deals stay secret until "
                            f"'arena season close {season.name}'")
        deal = deal_id(database_key(session), match.seed)
        rows = session.exec(select(MatchSeat, BotVersion, Bot).where(
            MatchSeat.match_id == match.id, MatchSeat.version_id == BotVersion.id, BotVersion.bot_id == Bot.id)
            .order_by(col(MatchSeat.seat))).all()
        taken = not_rated(session).get(number)
        logs = {log.seat: log.text for log in session.exec(select(SeatLog).where(SeatLog.match_id == match.id))}
    published = season is not None and season.closed_at is not None  # its deals are dealt no more
    head = (f"game {number}  {match.rules_id}  season {shown(season.name if season else '?')}  deal {deal}  "
            + (f"deck seed {match.seed}  " if published else "") + match.status)
    if match.void_reason:
        head += f" ({shown(match.void_reason, 500)})"
    if taken is not None:  # a flag took it back (arena/audit/flag_games.py)
        head += f" ({shown(taken.words())})"
    solo = len(rows) == 1
    table = [("seat", "bot", "version", format_of(match.rules_id).money, "result" if solo else "rank", "status",
              "detail")]
    for seat, version, bot in rows:
        table.append((str(seat.seat), shown(bot.name), str(version.number),
                      "-" if seat.coins is None else str(seat.coins),
                      solo_result(seat.rank) if solo else "-" if seat.rank is None else str(seat.rank),
                      seat.status or "-", shown(seat.detail, 200)))
    echo(head)
    echo(format_table(table))
    for seat, version, bot in rows:
        if seat.status not in (None, SeatStatus.OK):
            echo(failure_text(seat.seat, bot.name, seat.status, seat.detail, seat.failure_request,
                                    seat.failure_step, seat.failure_log))
    if show_stderr:
        for seat, _, bot in rows:
            text = logs.get(seat.seat, "")
            echo(f"seat {seat.seat} ({shown(bot.name)}) stderr" + (":" if text.strip() else ": none kept"))
            for line in text.rstrip("\n").splitlines() if text.strip() else []:
                echo("  | " + shown(line, 500))
    if turns or step is not None:
        if not match.replay:
            raise UserError(f"game {number} has no replay ({match.status})")
        try:
            replay = Replay.loads(match.replay)
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            raise UserError(f"game {number}: its stored replay cannot be read: {exc}") from None
        show_replay(replay, turns, step)


@cli.command("replay")
@click.argument("path", type=click.Path(dir_okay=False))
@TURNS
@STEP
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None, metavar="OUT",
              help="Also write the game as one page OUT.html with the site's replay viewer, everything inline: it "
                   "opens in a browser from the file, with no network.")
def replay_command(path: str, turns: bool, step: int | None, html_out: str | None) -> None:
    """A replay file (`arena play --replay FILE`): its seats and result, then --turns or --step (or --html)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        replay = Replay.loads(text)
    except OSError as exc:
        raise UserError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise UserError(f"{path!r} is not a replay: {exc}") from None
    result = replay.result
    echo(f"{replay.rules_id}  {len(replay.actions)} actions  " + ", ".join(
        f"{name}" + ((f" {result.coins[i]} ({solo_result(result.ranks[i])})" if len(replay.seats) == 1
                      else f" {result.coins[i]} (rank {result.ranks[i]})") if result else "")
        + (" forfeited" if i in replay.forfeits else "")
        for i, name in enumerate(replay.seats)))
    if html_out is not None:
        out = Path(html_out)
        try:
            write_local_replay_page(text, path, out)
        except SiteError as exc:
            raise UserError(f"{path!r}: {exc}") from None
        except OSError as exc:
            raise UserError(f"cannot write {html_out!r}: {exc.strerror or exc}") from None
        echo(f"replay page: {out.resolve()}")
    show_replay(replay, turns, step if step is not None or turns or html_out is not None else len(replay.actions))
