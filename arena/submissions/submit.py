"""One submission from bytes to a stored version, as `arena submit` and the submission service both run it:
the name and the owner checked before any game, the file read, a smoke game per format, the version stored.
The outcome is data (the lines to show), so that the CLI prints it and the service keeps it for its author."""
from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.competition.entries import entry_notes
from arena.formats import formats
from arena.play.referee import OutOfTime
from arena.submissions.accounts import Actor
from arena.submissions.bot_file import read_bot
from arena.submissions.errors import SubmissionError
from arena.submissions.names import check_may_change, check_name, version_hint
from arena.submissions.smoke import smoke_verdict
from arena.submissions.versions import check_program, check_tickets, plays_formats, register
from arena.submissions.tickets import TicketError
from arena.submissions import BUDGET_SECONDS
from sandbox import Limits, Tier


@dataclass(frozen=True)
class Outcome:
    """What a submission printed: ``out`` (the verdict) and ``err`` (notes and why a format failed);
    ``version`` the number stored or kept, None when refused (``refusal`` says why; nothing was stored)."""

    out: tuple[str, ...]
    err: tuple[str, ...]
    version: int | None = None
    refusal: str | None = None

    @property
    def lines(self) -> tuple[str, ...]:
        return self.out + self.err + ((self.refusal,) if self.refusal else ())


def submit_bytes(engine: Engine, data: bytes, filename: str, name: str, actor: Actor, limits: Limits, tier: Tier,
                 named: bool = True, budget: float | None = BUDGET_SECONDS) -> Outcome:
    """Check, play and store ``data`` (the file ``filename``) as bot ``name`` for ``actor``. A refusal is an
    ``Outcome`` with ``refusal`` set; a sandbox that cannot start raises ``SandboxError`` (the machine's fault,
    to be retried), a database that cannot be written raises its error. Smoke games still running ``budget``
    seconds after the start are cut off (their bots ended) and the submission refused: nothing is stored."""
    err: list[str] = []
    deadline = None if budget is None else time.monotonic() + budget
    try:
        name = check_name(name)
        with Session(engine) as session:
            check_may_change(session, name, actor, "make a new version of")  # before the smoke games
            check_tickets(session, name, actor)
            base = None if named else version_hint(session, name)
        if base is not None:
            err.append(f"note: no bot is named {name!r}, so this is a new bot; to make it the next version "
                       f"of {base!r}, submit it with --name {base}")
        source, language = read_bot(data, filename)
        with Session(engine) as session:
            check_program(session, name, actor, source, language)
        try:
            verdict = smoke_verdict(name, source, limits, tier, language, deadline)
        except OutOfTime as exc:
            return Outcome((), tuple(err), refusal=over_budget(filename, budget or 0.0, str(exc)))
        passed = verdict.passed
        if not passed:  # the default format's failure names the reason; the bot's own output says why
            for variant in verdict.failures:  # each format's failure in the bot's own words
                err.extend(f"in {variant}: {text}" for text in verdict.failure_texts(variant))
            return Outcome((), tuple(err), refusal=str(verdict.rejection(filename)))
        with Session(engine) as session:
            done = register(session, name, source, actor, variants=passed, language=language, one_ticket=True)
            plays = plays_formats(session, done.version)
            held = check_tickets(session, name, actor)  # the formats it passed and may not play (another bot's)
            late = [note for note in entry_notes(session, done.version, set(plays)) if not note.enters]
    except (SubmissionError, TicketError) as exc:
        return Outcome((), tuple(err), refusal=str(exc))
    if done.new:
        out = (f"{name} version {done.version.number} registered for {', '.join(plays)} "
               f"(smoke games: {verdict.summary()})"
               + (f"; it is the same file as version {done.same_as}, which it replaces as a new version (its "
                  "rating mean kept, its uncertainty fresh)" if done.same_as is not None else ""))
    else:
        out = (f"{name} is unchanged: version {done.version.number} already has this source; nothing was "
               f"stored and it still plays {', '.join(plays) or 'no format'}")
    err.extend(held.why_not(variant) for variant, _ in held.full if variant in passed and variant not in plays)
    for variant, why in verdict.failures.items():
        if why and not done.new and variant in plays:
            err.append(f"its smoke game in {variant} failed this time ({why}); it still plays {variant}, as the "
                       "same code did before")
        elif why:
            err.append(f"not scheduled in {variant}: {why}")
            err.extend(verdict.failure_texts(variant))
    for note in late if done.new else []:
        entry = f"its entry is version {note.entry}" if note.entry is not None else "it has no entry"
        err.append(f"note: competition {note.competition} ({note.variant}): this version came after its deadline "
                   f"({note.deadline:%Y-%m-%d %H:%M} UTC) and is not an entry; it plays on the ladder ({entry})")
    return Outcome((out,), tuple(err), done.version.number)


def over_budget(filename: str, budget: float, variant: str) -> str:
    """The one line of a submission whose smoke games ran past its time budget."""
    games = [f.name for f in formats()]
    return (f"{filename!r} rejected: its smoke games took longer than {budget:g} s, the time one submission may "
            f"take (cut off in its {variant} game, {games.index(variant) + 1 if variant in games else '?'} of "
            f"{len(games)}); a bot must answer well within its decision limit; nothing was stored")
