"""One game between bots a person names (``arena play``): its deal, its seats (in this process or in the
sandbox), and its result as text and JSON."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.formats import format_of
from arena.play.players import InProcessPlayer, Player, SandboxPlayer, warm_sandboxes
from arena.play.records import GameRecord
from arena.ladder.random_seeds import bot_seeds, database_key, keyed, random_seed
from arena.text import failure_text, solo_result
from engine import Rules
from sandbox import Limits, SandboxError, Tier, detect_tier, strong_tier_missing

STDERR_SHOWN = 4000  # as much as a failure keeps (arena.play.records.Failure)


class PlayError(ValueError):
    """A game cannot be played as asked (the person's mistake, not the machine's)."""


@dataclass(frozen=True)
class Seat:
    """A bot to seat: a file or a built-in (``path``: its file, for a trusted in-process run), a ladder
    bot (its ``source``), or a program of the person's own (``argv``: ``exec:COMMAND``)."""

    name: str
    source: str
    trusted: bool
    language: str
    path: Path | None = None
    argv: tuple[str, ...] = ()


@dataclass(frozen=True)
class Deal:
    """The deck seed a game is dealt from, and the bots' own seeds (None: fresh ones)."""

    deck: int
    seeds: tuple[int, ...] | None = None


def table_size_problem(rules: Rules, bots: int) -> str | None:
    """Why ``bots`` bots cannot sit at a table of ``rules``, or None."""
    if rules.min_players <= bots <= rules.max_players:
        return None
    need = (f"exactly {rules.min_players}" if rules.min_players == rules.max_players
            else f"{rules.min_players}-{rules.max_players}")
    return f"{rules.id} needs {need} bot{'s' if rules.max_players > 1 else ''}, got {bots}"


def choose_deal(engine: Engine, bots: int, seed: int | None, deck_seed: int | None) -> Deal:
    """``deck_seed``: a published deal, as it is; ``seed``: reproducible on this database only (keyed with
    its secret, arena/ladder/random_seeds.py); neither: fresh randomness, and no database needed."""
    if deck_seed is not None:
        return Deal(deck_seed)
    if seed is None:
        return Deal(random_seed())
    with Session(engine) as session:
        key = database_key(session)
    deck = keyed(key, "play", seed)
    return Deal(deck, bot_seeds(key, deck, bots))


def ladder_bots_in_process(seats: Sequence[Seat]) -> bool:
    """Whether a bot of the ladder (no file: its code is in the database) would run in this process."""
    return any(seat.path is None and not seat.argv for seat in seats)


def in_process_players(seats: Sequence[Seat], unsafe: bool, limits: Limits) -> list[Player]:
    """Seats' bots run in this process: Python files only, and files not built in only when ``unsafe``
    (bots of the ladder never: ``ladder_bots_in_process`` is asked first)."""
    untrusted = [seat.name for seat in seats if not seat.trusted]
    if any(seat.language not in ("python", "") for seat in seats):
        raise PlayError("--in-process runs Python bots only: drop it to run a bot in another language")
    if untrusted and not unsafe:
        raise PlayError(f"--in-process runs bot code unsandboxed; {', '.join(untrusted)} "
                        "is not built in (add --unsafe if you trust it)")
    players: list[Player] = []
    for seat in seats:
        if seat.path is None:
            raise PlayError("bots of the ladder run in the sandbox only: drop --in-process")
        players.append(InProcessPlayer(seat.path, seat.name, limits))
    return players


def sandbox_players(seats: Sequence[Seat], unsafe: bool, limits: Limits, players: list[Player]) -> None:
    """Start each seat's bot in the sandbox, appended to ``players`` as it starts (so that the caller
    closes those started when a later one fails); bots not built in need a strong tier or ``unsafe``."""
    tier = detect_tier()
    if tier is Tier.PLAIN and not unsafe and not all(seat.trusted for seat in seats):
        raise PlayError(f"no strong sandbox is available on this machine ({strong_tier_missing()}); "
                        "refusing to run bots that are not built in without --unsafe")
    warm_sandboxes([seat.language for seat in seats if not seat.argv], limits, tier)
    for seat in seats:
        if seat.argv:
            try:
                players.append(SandboxPlayer.external(seat.name, seat.argv, limits))
            except SandboxError as exc:  # the user's program, not the machine
                raise PlayError(str(exc)) from None
        else:
            players.append(SandboxPlayer(seat.name, seat.source, limits, tier, seat.language))


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
    money = format_of(record.rules_id).money
    rows = [("seat", "bot", money, "result" if solo else "rank", "status", "decisions", "time ms", "detail")]
    for i, s in enumerate(record.seats):
        rows.append((str(i), s.name, str(s.coins), solo_result(s.rank) if solo else str(s.rank), s.status.value,
                     str(s.decisions), f"{s.time_ms:.0f}", s.detail))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
    lines = [f"{record.rules_id}  " + (f"seed {seed}  " if seed is not None else "")
             + f"played in {record.seconds:.2f} s of wall clock (from the first hello to the end; time ms: the time "
             "each bot took to answer, summed)"]
    for r in rows:
        lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1])
    return "\n".join(line.rstrip() for line in lines)


def stderr_texts(players: Sequence[Player]) -> list[str]:
    """What each sandboxed bot wrote to its standard error (its last ``STDERR_SHOWN`` characters), a
    heading line and the lines it wrote; read after closing, so that what it wrote on "end" is in too."""
    lines = []
    for seat, player in enumerate(players):
        if isinstance(player, SandboxPlayer):
            tail = player.process.stderr_tail[-STDERR_SHOWN:]
            lines.append(f"seat {seat} ({player.name}) stderr" + (":" if tail.strip() else ": nothing"))
            lines.extend(f"  | {line}" for line in tail.splitlines())
    return lines
