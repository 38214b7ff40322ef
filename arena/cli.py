"""The ``arena`` command line. Logging is configured here and nowhere else."""
from __future__ import annotations

import json
import logging
import secrets
import sys
from pathlib import Path
from typing import Sequence

import click

from arena.players import PROJECT, SandboxPlayer
from arena.referee import GameRecord, InProcessPlayer, Player, play_game
from engine import rules_for
from sandbox import Limits, SandboxError, Tier, detect_tier

log = logging.getLogger("arena")

BUILTIN_BOTS = PROJECT / "bots"
MAX_BOT_BYTES = 256 * 1024


class UserError(click.ClickException):
    """A mistake in what the user asked for: one line, exit status 2."""

    exit_code = 2


def builtin_bot(name: str) -> Path | None:
    for candidate in (name, f"{name}_bot"):
        path = BUILTIN_BOTS / f"{candidate}.py"
        if path.is_file():
            return path
    return None


def resolve_bot(spec: str) -> tuple[str, str, bool]:
    """(name, source, trusted) for a bot given by built-in name or by path."""
    path = builtin_bot(spec)
    trusted = path is not None
    if path is None:
        path = Path(spec)
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in BUILTIN_BOTS.glob("*.py")))
            raise UserError(f"no bot {spec!r}: not a file and not a built-in bot ({known})")
    data = path.read_bytes()
    if len(data) > MAX_BOT_BYTES:
        raise UserError(f"bot file {str(path)!r} is {len(data)} bytes; the limit is {MAX_BOT_BYTES}")
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"bot file {str(path)!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return path.stem, source, trusted


def setup_logging(verbose: int, quiet: bool, log_file: str | None) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(level=level, handlers=handlers, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", count=True, help="More log output (-vv for protocol lines).")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings and errors.")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Also write the log to this file.")
@click.version_option(package_name="bohnanza-arena")
def cli(verbose: int, quiet: bool, log_file: str | None) -> None:
    """Bohnanza bot arena: play games between bots in a sandbox, run ladder seasons."""
    setup_logging(verbose, quiet, log_file)


@cli.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--variant", default="classic", show_default=True, help="Rules variant or rules id.")
@click.option("--seed", type=int, default=None, help="Deck seed (default: a random 63-bit number).")
@click.option("--replay", "replay_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the game's replay (JSON) to this file.")
@click.option("--in-process", is_flag=True, help="Run the bots in this process (trusted bots only; no sandbox).")
@click.option("--unsafe", is_flag=True, help="Run bots that are not built in even when no sandbox tier is available.")
@click.option("--decision-ms", type=click.FloatRange(min=1), default=1000, show_default=True,
              help="Wall-clock limit per decision.")
@click.option("--bank-ms", type=click.FloatRange(min=0), default=10_000, show_default=True,
              help="Time bank per game for decisions that overrun.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def play(bots: Sequence[str], variant: str, seed: int | None, replay_path: str | None, in_process: bool,
         unsafe: bool, decision_ms: float, bank_ms: float, as_json: bool) -> None:
    """Play one game between BOTS (built-in names such as 'random' and 'greedy', or file paths).

    Exits 0 whenever the game was played to its end, bot failures included.
    """
    try:
        rules = rules_for(variant)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not rules.min_players <= len(bots) <= rules.max_players:
        raise UserError(f"{rules.id} needs {rules.min_players}-{rules.max_players} bots, got {len(bots)}")
    resolved = [resolve_bot(spec) for spec in bots]
    seed = secrets.randbits(63) if seed is None else seed
    limits = Limits(decision_ms=decision_ms, bank_ms=bank_ms)
    players: list[Player] = []
    try:
        if in_process:
            untrusted = [name for name, _, trusted in resolved if not trusted]
            if untrusted and not unsafe:
                raise UserError(f"--in-process runs bot code unsandboxed; {', '.join(untrusted)} "
                                "is not built in (add --unsafe if you trust it)")
            players = [InProcessPlayer(builtin_bot(spec) or Path(spec), name, limits)
                       for spec, (name, _, _) in zip(bots, resolved)]
        else:
            tier = detect_tier()
            if tier is Tier.PLAIN and not unsafe and not all(trusted for _, _, trusted in resolved):
                raise UserError("no strong sandbox is available on this machine (bubblewrap + seccomp); "
                                "refusing to run bots that are not built in without --unsafe")
            for name, source, _ in resolved:
                players.append(SandboxPlayer(name, source, limits, tier))
        record = play_game(rules, seed, players, limits)
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bots'): {exc}") from None
    finally:
        for player in players:
            player.close()
    if replay_path:
        Path(replay_path).write_text(record.replay.dumps(), encoding="utf-8")
    if as_json:
        click.echo(json.dumps(record_json(record), indent=2))
    else:
        click.echo(result_table(record))
    if record.void:
        raise click.ClickException(f"game voided by a referee fault: {record.void}")


def record_json(record: GameRecord) -> dict:
    return {
        "rules_id": record.rules_id, "seed": record.seed, "void": record.void,
        "seconds": round(record.seconds, 3),
        "seats": [{"seat": i, "name": s.name, "coins": s.coins, "rank": s.rank, "status": s.status.value,
                   "detail": s.detail, "decisions": s.decisions, "time_ms": s.time_ms}
                  for i, s in enumerate(record.seats)],
    }


def result_table(record: GameRecord) -> str:
    rows = [("seat", "bot", "coins", "rank", "status", "decisions", "time ms", "detail")]
    for i, s in enumerate(record.seats):
        rows.append((str(i), s.name, str(s.coins), str(s.rank), s.status.value, str(s.decisions),
                     f"{s.time_ms:.0f}", s.detail))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
    lines = [f"{record.rules_id}  seed {record.seed}  {record.seconds:.2f} s"]
    for r in rows:
        lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1])
    return "\n".join(line.rstrip() for line in lines)


def main() -> None:
    cli(prog_name="arena")
