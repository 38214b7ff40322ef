"""`arena play`, `arena submit`, `arena bots` and `arena demo`: games and bots."""
from __future__ import annotations

import json
import re
import secrets
import shlex
from pathlib import Path
from typing import Any, Sequence

import click
from sqlmodel import Session, select

from arena.db import Bot, BotVersion, DatabaseError
from arena.ladder import LadderError, SeasonSettings, leaderboard, run_season
from arena.players import SandboxPlayer
from arena.progress import ProgressReporter
from arena.formats import default_format, formats
from arena.rankings import RatedStanding, WinRateStanding
from arena.seeds import bot_seeds, database_key, keyed, random_seed
from arena.text import failure_text, plural, shown, solo_result
from arena.submit import (SubmissionError, builtin_bots, check_author, check_name, existing_bot, read_bot,
                          read_bot_file, plays_formats, retire,
                          names_taken_by_submissions, register, register_bosses, smoke_failure, smoke_games)
from arena.referee import GameRecord, InProcessPlayer, Player, play_game
from engine import rules_for
from sandbox import Limits, SandboxError, Tier, detect_tier, strong_tier_missing

from arena.cli.base import Context, UserError, echo, board_table, check_writable_file, cli, format_table, pass_context
from arena.cli.helps import bots_help
from arena.cli.trust import EXEC, builtin_bot, ladder_bot, resolve_bot, sandbox_tier


STDERR_SHOWN = 4000  # as much as a failure keeps (arena.referee.Failure)


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
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--stderr", "show_stderr", is_flag=True,
              help="After the game, print what each sandboxed bot wrote to its standard error (its last 4,000 "
                   "characters), failed or not: your bot's own debugging output.")
@pass_context
def play(ctx: Context, bots: Sequence[str], variant: str, seed: int | None, deck_seed: int | None,
         replay_path: str | None, in_process: bool, unsafe: bool, decision_ms: float, bank_ms: float,
         as_json: bool, show_stderr: bool) -> None:
    """Play one game between BOTS: built-in names such as 'random' and 'greedy', file paths, or bots of
    this ladder by name (their current version) or NAME@VERSION.

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
    if not rules.min_players <= len(bots) <= rules.max_players:
        need = (f"exactly {rules.min_players}" if rules.min_players == rules.max_players
                else f"{rules.min_players}-{rules.max_players}")
        raise UserError(f"{rules.id} needs {need} bot{'s' if rules.max_players > 1 else ''}, got {len(bots)}")
    programs = {i: shlex.split(spec[len(EXEC):]) for i, spec in enumerate(bots) if spec.startswith(EXEC)}
    if any(not argv for argv in programs.values()):
        raise UserError(f"{EXEC}COMMAND needs a command, e.g. \"{EXEC}perl bot.pl\"")
    if programs and not unsafe:
        raise UserError(f"{EXEC} bots run without the strong sandbox; add --unsafe to run your own program")
    if programs and in_process:
        raise UserError(f"{EXEC} bots are programs of their own: they cannot run --in-process")
    resolved = [(Path(programs[i][0]).stem, "", False, "") if i in programs
                else resolve_bot(spec, lambda spec: ladder_bot(ctx.engine, spec) if ctx.database_exists() else None)
                for i, spec in enumerate(bots)]
    if in_process and any(not trusted and not Path(spec).is_file() and i not in programs
                          for i, (spec, (_, _, trusted, _)) in enumerate(zip(bots, resolved))):
        raise UserError("bots of the ladder run in the sandbox only: drop --in-process")
    if deck_seed is not None:  # a published deal, as it is
        deck, seeds = deck_seed, None
    elif seed is None:  # nothing to reproduce: fresh randomness, no database needed
        deck, seeds = random_seed(), None
    else:  # reproducible on this database only: the chosen seed is keyed with its secret (arena/seeds.py)
        with Session(ctx.engine) as session:
            key = database_key(session)
        deck = keyed(key, "play", seed)
        seeds = bot_seeds(key, deck, len(bots))
    limits = Limits(decision_ms=decision_ms, bank_ms=bank_ms)
    players: list[Player] = []
    try:
        if in_process:
            untrusted = [name for name, _, trusted, _ in resolved if not trusted]
            if any(language not in ("python", "") for *_, language in resolved):
                raise UserError("--in-process runs Python bots only: drop it to run a bot in another language")
            if untrusted and not unsafe:
                raise UserError(f"--in-process runs bot code unsandboxed; {', '.join(untrusted)} "
                                "is not built in (add --unsafe if you trust it)")
            players = [InProcessPlayer(builtin_bot(spec) or Path(spec), name, limits)
                       for spec, (name, _, _, _) in zip(bots, resolved)]
        else:
            tier = detect_tier()
            if tier is Tier.PLAIN and not unsafe and not all(trusted for _, _, trusted, _ in resolved):
                raise UserError(f"no strong sandbox is available on this machine ({strong_tier_missing()}); "
                                "refusing to run bots that are not built in without --unsafe")
            for i, (name, source, _, language) in enumerate(resolved):
                if i in programs:
                    try:
                        players.append(SandboxPlayer.external(Path(programs[i][-1]).stem, programs[i], limits))
                    except SandboxError as exc:  # the user's program, not the machine
                        raise UserError(str(exc)) from None
                else:
                    players.append(SandboxPlayer(name, source, limits, tier, language))
        record = play_game(rules, deck, players, limits, seeds)
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
        said = [(i, p.name, p.process.stderr_tail) for i, p in enumerate(players) if isinstance(p, SandboxPlayer)]
        for seat, name, text in said:
            tail = text[-STDERR_SHOWN:]
            echo(f"seat {seat} ({name}) stderr" + (":" if tail.strip() else ": nothing"), err=True)
            for line in tail.splitlines():
                echo(f"  | {line}", err=True)
    if replay_path:
        try:
            Path(replay_path).write_text(record.replay_text, encoding="utf-8")
        except OSError as exc:  # checked before the game; the disk may still be full
            raise click.ClickException(f"--replay {replay_path!r}: {exc.strerror or exc}") from None
    if record.void:
        raise click.ClickException(f"game voided by a referee fault: {record.void}")


def record_json(record: GameRecord, seed: int | None) -> dict[str, Any]:
    """``seed`` is the chosen one (``--seed``), the only seed that replays the game; never the deck's."""
    return {
        "rules_id": record.rules_id, "seed": seed, "void": record.void,
        "seconds": round(record.seconds, 3),
        "seats": [{"seat": i, "name": s.name, "coins": s.coins, "rank": s.rank, "status": s.status.value,
                   "detail": s.detail, "decisions": s.decisions, "time_ms": s.time_ms,
                   "failure": None if s.failure is None else {"request": s.failure.request, "step": s.failure.step,
                                                              "log": s.failure.log}}
                  for i, s in enumerate(record.seats)],
    }


def failure_texts(record: GameRecord, seats: Sequence[int] | None = None) -> list[str]:
    """Why each failed seat (of ``seats``, by default all) failed, as ``arena.text.failure_text``."""
    return [failure_text(i, s.name, s.status.value, s.detail, s.failure.request, s.failure.step, s.failure.log)
            for i, s in enumerate(record.seats) if s.failure is not None and (seats is None or i in seats)]


def result_table(record: GameRecord, seed: int | None) -> str:
    solo = len(record.seats) == 1  # alone at the table: won or lost, not "rank 2" of one
    rows = [("seat", "bot", "coins", "result" if solo else "rank", "status", "decisions", "time ms", "detail")]
    for i, s in enumerate(record.seats):
        rows.append((str(i), s.name, str(s.coins), solo_result(s.rank) if solo else str(s.rank), s.status.value,
                     str(s.decisions), f"{s.time_ms:.0f}", s.detail))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
    lines = [f"{record.rules_id}  " + (f"seed {seed}  " if seed is not None else "") + f"{record.seconds:.2f} s"]
    for r in rows:
        lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1])
    return "\n".join(line.rstrip() for line in lines)


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--name", help="Bot name (default: the file name without .py).")
@click.option("--author", default="", help="Who wrote it.")
@click.option("--unsafe", is_flag=True, help="Allow the smoke game without a strong sandbox.")
@pass_context
def submit(ctx: Context, path: str, name: str | None, author: str, unsafe: bool) -> None:
    """Check a bot file, play a smoke game of each format in the sandbox, and add it to the ladder.

    A new file under an existing name becomes that bot's next version: it keeps the rating mean
    and starts with a fresh uncertainty; older versions stop being scheduled.
    """
    file = Path(path)
    try:
        data = read_bot_file(path)  # a link, a FIFO or an oversized file is refused before it is read
        named = name is not None
        name = check_name(name or file.stem)
        check_author(author)
        with Session(ctx.engine) as session:
            if existing_bot(session, name) is None and not named:
                base = re.sub(r"[-_.]?v?\d+$", "", name)
                if base and base != name and existing_bot(session, base) is not None:
                    echo(f"note: no bot is named {name!r}, so this is a new bot; to make it the next version "
                               f"of {base!r}, submit it with --name {base}", err=True)
        source, language = read_bot(data, path)
        smoke = smoke_games(name, source, Limits(), sandbox_tier(unsafe), language)
        records = {variant: record for variant, (_, record) in smoke.items()}
        mine = {variant: table.seat for variant, (table, _) in smoke.items()}
        failures = {variant: smoke_failure(record, mine[variant]) for variant, record in records.items()}
        passed = [variant for variant, failure in failures.items() if not failure]
        if not passed:  # the default format's failure names the reason; the bot's own output says why
            first = default_format().name
            record, failure = records[first], failures[first] or ""
            detail = record.seats[mine[first]].detail
            for text in failure_texts(record, [mine[first]]):
                echo(text, err=True)
            raise SubmissionError(f"{path!r} rejected: {failure}" + ("" if detail in failure else f" ({detail})"))
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bot's): {exc}") from None
    with Session(ctx.engine) as session:
        try:
            done = register(session, name, source, author, variants=passed, language=language)
        except SubmissionError as exc:  # e.g. a boss took the name during the smoke games
            raise UserError(str(exc)) from None
        games = "; ".join(f"{variant} {plural(r.seats[mine[variant]].coins, 'coin')}, " + (
            f"rank {r.seats[mine[variant]].rank} of {len(r.seats)}" if len(r.seats) > 1
            else solo_result(r.seats[0].rank))
            for variant, r in records.items() if variant in passed)
        if done.new:
            echo(f"{name} version {done.version.number} registered for {', '.join(passed)} (smoke games: {games})")
        else:
            plays = plays_formats(session, done.version)
            echo(f"{name} is unchanged: version {done.version.number} already has this source; nothing was "
                 f"stored and it still plays {', '.join(plays) or 'no format'}")
        for variant, why in failures.items():
            if why and not done.new and variant in plays:
                echo(f"its smoke game in {variant} failed this time ({why}); it still plays {variant}, as the "
                     "same code did before", err=True)
            elif why:
                echo(f"not scheduled in {variant}: {why}", err=True)
                for text in failure_texts(records[variant], [mine[variant]]):
                    echo(text, err=True)


@cli.group("bots", invoke_without_command=True, help=bots_help())
@click.pass_context
def bots_group(click_ctx: click.Context) -> None:
    """List bots and their versions (help: ``bots_help``); `arena bots retire NAME` stops one."""
    if click_ctx.invoked_subcommand is None:
        bots_list(click_ctx.ensure_object(Context))


@bots_group.command("retire")
@click.argument("name")
@pass_context
def bots_retire(ctx: Context, name: str) -> None:
    """Stop scheduling bot NAME: it leaves the boards and new seasons; its games and ratings stay, and
    submitting it again makes its next version."""
    with Session(ctx.engine) as session:
        try:
            version = retire(session, name)
        except SubmissionError as exc:
            raise UserError(str(exc)) from None
    echo(f"{name} retired (version {version.number} was current); its games stay on the site")


def bots_list(ctx: Context) -> None:
    with Session(ctx.engine) as session:
        shown_formats = list(formats())
        boards = {f.name: {row.name: row for row in leaderboard(session, f.name)} for f in shown_formats}
        bots = session.exec(select(Bot)).all()
        versions = {bot.id: session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)).all() for bot in bots}
    if not bots:
        echo("no bots yet: add one with 'arena submit PATH'")
        return

    def standing(fmt_name: str, bot: Bot) -> str:
        row = boards[fmt_name].get(bot.name)
        if row is None or not row.games:
            return "-"
        if isinstance(row, RatedStanding):
            return f"{row.score:.2f} ({row.games})"
        return f"{row.win_rate:.0%} ({row.games})" if isinstance(row, WinRateStanding) else "-"

    first = default_format().name
    def place(bot: Bot) -> int:
        row = boards[first].get(bot.name)
        return 10**9 if row is None or row.rank is None else row.rank

    order = sorted(bots, key=lambda bot: (place(bot), bot.name))
    rows = [("bot", "author", "version", "versions", *(f"{f.name} (games)" for f in shown_formats))]
    for bot in order:
        current = max((v.number for v in versions[bot.id] if v.active), default=None)
        rows.append((bot.name + (" (boss)" if bot.builtin else ""), shown(bot.author), str(current or "retired"),
                     str(len(versions[bot.id])), *(standing(f.name, bot) for f in shown_formats)))
    echo(format_table(rows))


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
    with Session(ctx.engine) as session:  # the example bots play every variant (tests/bots)
        names = list(builtin_bots())
        taken = names_taken_by_submissions(session, names)
        for name in taken:
            echo(f"warning: a submitted bot is named {name!r}; the built-in {name} is not entered as a boss",
                       err=True)
        register_bosses(session, [name for name in names if name not in taken])
    name = f"demo-{secrets.token_hex(3)}"
    echo(f"running season {name}: {games} games, {workers} workers, sandbox tier {tier.value}", err=True)
    low, high = default_format().players
    settings = SeasonSettings(name=name, games=games, min_players=low, max_players=high, rotate=True,
                              builtin_only=builtin_only)
    try:
        run_season(ctx.engine, settings, workers, Limits(), tier, ProgressReporter(quiet=ctx.quiet))
    except (LadderError, DatabaseError) as exc:
        raise click.ClickException(str(exc)) from None
    with Session(ctx.engine) as session:
        echo(board_table(leaderboard(session)))
    from arena.site import SiteError, build_site

    try:
        summary = build_site(ctx.engine, Path("arena-site"))
    except SiteError as exc:
        raise click.ClickException(str(exc)) from None
    echo(f"site: {summary.index.resolve()}")
