"""`arena play`: one game between bots named on the command line (arena/play/single_game.py plays it)."""
from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Sequence

import click
from rich.console import Console

from arena.formats import default_format
from arena.play.players import Player
from arena.play.referee import play_game
from arena.play.single_game import (PlayError, Seat, choose_deal, failure_texts, in_process_players,
                                    ladder_bots_in_process, record_json, result_table, sandbox_players, stderr_texts,
                                    table_size_problem)
from engine import rules_for
from sandbox import Limits, SandboxError

from arena.human.player import HumanPlayer
from arena.human.terminal import Terminal
from arena.cli.stopping import stop_on_signals
from arena.cli.base import Context, UserError, check_writable_file, cli, echo, pass_context
from arena.cli.trust import EXEC, ResolvedBot, builtin_bot, ladder_bot, resolve_bot


@cli.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--variant", default=default_format().name, show_default=True, help="Rules variant or rules id.")
@click.option("--seed", type=int, default=None,
              help="Reproduce a game: the same seed plays the same deal with the same bot seeds on this database "
                   "(keyed with its secret, so a bot cannot guess the deal), and is the seed printed. "
                   "Default: fresh randomness, and no seed printed.")
@click.option("--deck-seed", type=click.IntRange(min=0, max=2**63 - 1), default=None,
              help="Deal this deck seed as it is: a game of a closed season shows its own (`arena game show`, "
                   "the site), so its deal can be played again by any bots; their own seeds are fresh.")
@click.option("--replay", "replay_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the game's replay (JSON) to this file.")
@click.option("--in-process", is_flag=True, help="Run the bots in this process (trusted bots only; no sandbox).")
@click.option("--unsafe", is_flag=True, help="Run bots that are not built in even when no sandbox tier is available.")
@click.option("--decision-ms", type=click.FloatRange(min=1), default=1000, show_default=True,
              help="Wall-clock limit per decision.")
@click.option("--bank-ms", type=click.FloatRange(min=0), default=10_000, show_default=True,
              help="Time bank per game for decisions that overrun.")
@click.option("--human-ms", type=click.FloatRange(min=1), default=None,
              help="A person's time per decision (default: no limit); past it their seat forfeits and the rules "
                   "play it to the end.")
@click.option("--rotation", type=click.IntRange(min=0), default=0, show_default=True,
              help="Rotate the seats K places: the seat named first sits K seats later, the others with it "
                   "(the same deal with --seed or --deck-seed: each rotation plays it from another seat).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--stderr", "show_stderr", is_flag=True,
              help="After the game, print what each sandboxed bot wrote to its standard error (its last 4,000 "
                   "characters), failed or not: your bot's own debugging output.")
@pass_context
def play(ctx: Context, bots: Sequence[str], variant: str, seed: int | None, deck_seed: int | None,
         replay_path: str | None, in_process: bool, unsafe: bool, decision_ms: float, bank_ms: float,
         human_ms: float | None, rotation: int, as_json: bool, show_stderr: bool) -> None:
    """Play one game between BOTS: built-in names such as 'random' and 'greedy', file paths, or bots of
    this ladder by name (their current version) or NAME@VERSION. 'human' (or 'human:NAME') is a seat for
    you: you play it at this terminal, with your view of the table and the legal options numbered.

    A bot written in another language is given as "exec:COMMAND" (e.g. "exec:perl bot.pl"); it
    speaks docs/protocol.md itself and runs with limits but without the strong sandbox, so it
    needs --unsafe. Bots in JavaScript (.js) and C (.c) are files like Python ones and run in the
    sandbox (docs/protocol.md). Exits 0 whenever the game was played to its end, bot failures included.
    """
    if seed is not None and deck_seed is not None:
        raise UserError("--seed and --deck-seed both choose the deal: give one")
    if replay_path:
        check_writable_file(replay_path, "--replay")  # before the game, not after it
    try:
        rules = rules_for(variant)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    problem = table_size_problem(rules, len(bots))
    if problem is not None:
        raise UserError(problem)
    turn = rotation % len(bots)
    bots = tuple(bots[len(bots) - turn:]) + tuple(bots[:len(bots) - turn])  # each seat moves ``turn`` later
    person = human_seat(bots)
    programs = {i: shlex.split(spec[len(EXEC):]) for i, spec in enumerate(bots) if spec.startswith(EXEC)}
    if any(not argv for argv in programs.values()):
        raise UserError(f"{EXEC}COMMAND needs a command, e.g. \"{EXEC}perl bot.pl\"")
    if programs and not unsafe:
        raise UserError(f"{EXEC} bots run without the strong sandbox; add --unsafe to run your own program")
    if programs and in_process:
        raise UserError(f"{EXEC} bots are programs of their own: they cannot run --in-process")

    def lookup(spec: str) -> ResolvedBot | None:
        return ladder_bot(ctx.engine, spec) if ctx.database_exists() else None

    seats = [Seat(Path(programs[i][-1]).stem, "", False, "", argv=tuple(programs[i])) if i in programs
             else seat_of(spec, resolve_bot(spec, lookup)) for i, spec in enumerate(bots)
             if person is None or i != person[0]]
    if in_process and ladder_bots_in_process(seats):
        raise UserError("bots of the ladder run in the sandbox only: drop --in-process")
    stopped = stop_on_signals(hangup=True)  # a closed terminal or a SIGTERM ends the game as Ctrl-C: every bot closed
    deal = choose_deal(ctx.engine, len(bots), seed, deck_seed)
    limits = Limits(decision_ms=decision_ms, bank_ms=bank_ms)
    players: list[Player] = []
    try:
        if in_process:
            players = in_process_players(seats, unsafe, limits)
        else:
            sandbox_players(seats, unsafe, limits, players)
        if person is not None:
            names = [seat.name for seat in seats]
            names.insert(person[0], person[1])
            # with --json, stdout holds the JSON alone
            screen = Terminal(Console(highlight=False, stderr=as_json), stop=stopped)
            players.insert(person[0], HumanPlayer(person[1], screen, shown_names(names), human_ms))
        record = play_game(rules, deal.deck, players, limits, deal.seeds)
        if person is not None:
            human = players[person[0]]
            assert isinstance(human, HumanPlayer)
            human.finish(record.replay.events)
    except KeyboardInterrupt:
        echo("")  # end the line of the prompt that was waiting
        echo(ABANDONED, err=True)
        raise click.exceptions.Exit(130) from None
    except PlayError as exc:
        raise UserError(str(exc)) from None
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bots'): {exc}") from None
    finally:
        for player in players:
            player.close()
    if as_json:
        echo(json.dumps(record_json(record, seed), indent=2))
    else:
        echo(result_table(record, seed))
        for text in failure_texts(record):
            echo(text, err=True)
    if show_stderr:  # read after closing: what a bot wrote on "end" is in too
        for line in stderr_texts(players):
            echo(line, err=True)
    if replay_path:
        try:
            Path(replay_path).write_text(record.replay_text, encoding="utf-8")
        except OSError as exc:  # checked before the game; the disk may still be full
            raise click.ClickException(f"--replay {replay_path!r}: {exc.strerror or exc}") from None
    if record.void:
        raise click.ClickException(f"game voided by a referee fault: {record.void}")


def seat_of(spec: str, bot: ResolvedBot) -> Seat:
    """The seat of a bot given as a built-in name or a file (its ``path``: it may run in this process), or
    as a bot of the ladder (no file)."""
    path = builtin_bot(spec) or (Path(spec) if Path(spec).is_file() else None)
    return Seat(bot.name, bot.source, bot.trusted, bot.language, path)


HUMAN = "human"
ABANDONED = "arena: game abandoned (Ctrl-C, the input closed or a stop signal): no result"


def human_seat(specs: Sequence[str]) -> tuple[int, str] | None:
    """The person's seat among ``specs`` (``human`` or ``human:NAME``) and their name, or None."""
    seats = [(i, spec.partition(":")[2] or HUMAN) for i, spec in enumerate(specs)
             if spec == HUMAN or spec.startswith(HUMAN + ":")]
    if len(seats) > 1:
        raise UserError(f"one person per table: {HUMAN!r} is named {len(seats)} times")
    if seats and not (seats[0][1].isprintable() and len(seats[0][1]) <= 32):
        raise UserError(f"{specs[seats[0][0]]!r}: a person's name is at most 32 printable characters")
    return seats[0] if seats else None


def shown_names(names: Sequence[str]) -> list[str]:
    """Names as the person reads them in sentences: a name two seats share gets its seat's number."""
    return [n if names.count(n) == 1 else f"{n} (seat {k})" for k, n in enumerate(names)]  # seats count from 0
