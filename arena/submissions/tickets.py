"""One ticket per author: at most ``bots-per-author`` active bots of an author in each format (a ladder setting,
1 unless the operator sets it: Halite's rule), and no program entered twice under two names
(``arena.submissions.programs``).
A board cannot be bought with many tickets. The built-in bots, bots of no account and the operator acting on
purpose (``--operator``) are not held to it."""
from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from arena.db import Bot, BotVersion, Meta, VersionFormat, author_key
from arena.formats import formats
from arena.text import shown

#: the ladder setting (a ``meta`` row): how many active bots one author may have in a format
BOTS_PER_AUTHOR = "bots_per_author"
DEFAULT_BOTS_PER_AUTHOR = 1
MAX_BOTS_PER_AUTHOR = 1000


class TicketError(ValueError):
    """A submission would give its author a ticket the rules refuse; the message says why (the service: 409)."""


def bots_per_author(session: Session) -> int:
    """How many active bots one author may have in a format on this ladder."""
    row = session.get(Meta, BOTS_PER_AUTHOR)
    return DEFAULT_BOTS_PER_AUTHOR if row is None else int(row.value)


def set_bots_per_author(session: Session, count: int) -> int:
    """Store ``count`` as the ladder's cap (bots already above it stay until retired); the count stored."""
    if not 1 <= count <= MAX_BOTS_PER_AUTHOR:
        raise TicketError(f"bots-per-author {count!r} must be 1 to {MAX_BOTS_PER_AUTHOR}")
    session.merge(Meta(key=BOTS_PER_AUTHOR, value=str(count)))
    session.commit()
    return count


@dataclass(frozen=True)
class Tickets:
    """Where bot ``name`` of ``owner`` may play: ``open`` formats (those its current version plays, and those
    where the owner's other active bots are fewer than ``cap``), and the other bots that fill each full one."""

    name: str
    owner: str
    cap: int
    open: tuple[str, ...]
    full: tuple[tuple[str, tuple[str, ...]], ...]  # (format, the owner's bots that hold its tickets)

    def refusal(self) -> str:
        """The one line that refuses a bot with no open format."""
        holders = sorted({bot for _, bots in self.full for bot in bots})
        where = ", ".join(f"{name!r} ({', '.join(f for f, bots in self.full if name in bots)})" for name in holders)
        return (f"author {shown(self.owner)!r} has {self.cap} active bot{'s' if self.cap > 1 else ''} in every format "
                f"already: {where}; one bot per author and format on this ladder (bots-per-author {self.cap}): "
                f"submit the file as its next version (--name {holders[0]}), or retire it first with "
                f"'arena bots retire {holders[0]} --author {shown(self.owner)}'")

    def why_not(self, variant: str) -> str:
        """Why the bot is not scheduled in ``variant``, a full format."""
        bots = dict(self.full)[variant]
        return (f"not scheduled in {variant}: {', '.join(repr(b) for b in bots)} of author {shown(self.owner)!r} "
                f"plays there (bots-per-author {self.cap}; retire it to play this one there)")


def tickets(session: Session, name: str, owner: str) -> Tickets:
    """The formats a version of bot ``name`` of author ``owner`` may play (every format for no author)."""
    cap = bots_per_author(session)
    names = [f.name for f in formats()]
    if not owner:
        return Tickets(name, owner, cap, tuple(names), ())
    key = author_key(owner)
    rows = session.exec(select(Bot.name, Bot.author, VersionFormat.variant)
                        .where(BotVersion.bot_id == Bot.id, VersionFormat.version_id == BotVersion.id,
                               BotVersion.active == True, VersionFormat.plays == True,  # noqa: E712
                               Bot.builtin == False)).all()  # noqa: E712
    own = {variant for bot, _, variant in rows if bot == name}
    others = {variant: sorted({bot for bot, author, v in rows if v == variant and bot != name
                               and author_key(author) == key}) for variant in names}
    full = tuple((v, tuple(others[v])) for v in names if v not in own and len(others[v]) >= cap)
    return Tickets(name, owner, cap, tuple(v for v in names if v not in dict(full)), full)


def check_not_copy(session: Session, name: str, owner: str, digest: str) -> None:
    """Refuse bot ``name`` of ``owner`` whose program (``program_hash``: ``digest``) is an active submitted bot's
    of another name: another author's, or the owner's own under another name (one ticket). The built-in bots are
    the project's public lessons: an author may enter one unchanged, as their one ticket."""
    rows = session.exec(select(Bot.name, Bot.author).where(
        BotVersion.bot_id == Bot.id, BotVersion.active == True, Bot.builtin == False,  # noqa: E712
        BotVersion.program_sha256 == digest, Bot.name != name)).all()
    for other, author in rows:
        if owner and author_key(author) == author_key(owner):
            raise TicketError(f"bot {name!r} is the same program as your active bot {other!r} (comments, docstrings "
                              f"and layout aside); send it as {other!r}'s next version (--name {other}) instead")
        if owner or author:  # two bots of no account are the operator's own
            raise TicketError(f"bot {name!r} is the same program as an active bot of another author ({other!r}), "
                              "comments, docstrings and layout aside; a program enters the ladder once")
