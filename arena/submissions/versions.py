"""Stored versions: a bot's newest source as a new version, the formats it plays and the prior it starts
from in each; the one-ticket rules checked on the way; retiring a bot; entering the built-in bots."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sqlmodel import Session, col, select

from arena.db import Bot, BotVersion, VersionFormat, source_hash, stored_id
from arena.formats import default_format, formats
from arena.ladder.inheritance import inherited_means
from arena.ladder.ratings import MU, SIGMA
from arena.submissions.accounts import ARENA_AUTHOR, Actor
from arena.submissions.errors import SubmissionError
from arena.submissions.names import (builtin_bots, check_may_change, check_name, did_you_mean, existing_bot,
                                     owner_name)
from arena.submissions.programs import program_hash
from arena.submissions.tickets import TicketError, Tickets, check_not_copy, tickets


def rated_variants() -> tuple[str, ...]:
    """The formats whose games are rated, where a new version starts from its predecessor's mean."""
    return tuple(f.name for f in formats() if f.ranking.rated)


@dataclass(frozen=True)
class Registered:
    bot: Bot
    version: BotVersion
    new: bool  # False when the same source was already the bot's current version
    same_as: int | None = None  # a new version whose file an older one of the bot had: that version's number


def check_tickets(session: Session, name: str, actor: Actor) -> Tickets:
    """Where ``actor``'s bot ``name`` may play under the one-ticket rules (``arena.submissions.tickets``): every
    format for the operator acting on purpose and for no account; a bot with no format open is refused
    (``TicketError``)."""
    owner = "" if actor.is_operator else owner_name(session, actor)
    found = tickets(session, name, owner)
    if not found.open:
        raise TicketError(found.refusal())
    return found


def check_program(session: Session, name: str, actor: Actor, source: str, language: str) -> None:
    """Refuse ``source`` when it is an active bot's program under another name (``tickets.check_not_copy``);
    the operator acting on purpose may enter it."""
    if not actor.is_operator:
        check_not_copy(session, name, owner_name(session, actor), program_hash(source, language))


def register(session: Session, name: str, source: str, actor: Actor = Actor.nobody(), builtin: bool = False,
             variants: Sequence[str] | None = None, language: str = "python", one_ticket: bool = False) -> Registered:
    """Store ``source`` as the newest version of bot ``name`` (one transaction), to be scheduled in ``variants``
    (None: the default format only). A new bot belongs to ``actor``'s account; a bot that exists is
    changed only by its owner or the operator (``accounts.check_owner``).
    The same source again stores nothing new: it keeps the formats it plays (``plays_formats``), and
    only a format registered since then is decided by ``variants``. With ``one_ticket`` (`arena submit`, the
    service) the ladder's ticket rules hold: no copy of another bot, and only formats where the author has
    fewer than bots-per-author other active bots (``check_tickets``); refused with ``TicketError``."""
    check_name(name, builtin)
    digest = source_hash(source)
    if builtin:
        bot = existing_bot(session, name, builtin)
        owner = ARENA_AUTHOR
    else:
        bot = check_may_change(session, name, actor, "make a new version of")
        owner = owner_name(session, actor)
    plays = {f.name for f in formats() if f.name in ((default_format().name,) if variants is None else variants)}
    if one_ticket and not builtin:
        check_program(session, name, actor, source, language)
        rules = check_tickets(session, name, actor)
        if plays and not plays & set(rules.open):
            raise TicketError(f"bot {name!r} passed its smoke games only in {', '.join(sorted(plays))}: "
                              + "; ".join(rules.why_not(v).removeprefix("not scheduled in ")
                                          for v in sorted(plays)) + "; nothing was stored")
        plays &= set(rules.open)
    if bot is None:
        bot = Bot(name=name, author=owner, builtin=builtin)
        session.add(bot)
        session.flush()
    current = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.active == True)).first()  # noqa: E712
    if current is not None and current.sha256 == digest and current.language == language:
        # the same code keeps the formats it plays (a smoke game is one drawn table: passing or failing
        # it again says nothing new); only a format registered since the version was stored is decided now
        rows = {row.variant: row for row in session.exec(select(VersionFormat).where(
            VersionFormat.version_id == current.id)).all()}
        for fmt in formats():
            if fmt.name not in rows:
                session.add(VersionFormat(version_id=stored_id(current), variant=fmt.name, prior_mu=MU,
                                          plays=fmt.name in plays))
        session.commit()
        session.refresh(current)
        return Registered(bot, current, False)
    earlier = session.exec(select(BotVersion.number).where(  # an old version's file, restored
        BotVersion.bot_id == bot.id, BotVersion.sha256 == digest, BotVersion.language == language)
        .order_by(col(BotVersion.number).desc())).first()
    means = {f.name: MU for f in formats()}
    latest = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)
                          .order_by(col(BotVersion.number).desc())).first()  # the current one, or a retired bot's last
    number, inherits_after = 1, None
    if latest is not None:  # keeps its mean in each rated format (where: arena/ladder/inheritance.py), not its sigma
        inherits_after, kept = inherited_means(session, stored_id(latest), rated_variants())
        means.update(kept)
        number = latest.number + 1
    if current is not None:
        current.active = False
        session.add(current)
    if owner and not bot.author:  # the operator gives an unowned bot its owner
        bot.author = owner
        session.add(bot)
    version = BotVersion(bot_id=stored_id(bot), number=number, source=source, sha256=digest, prior_sigma=SIGMA,
                         inherits_after=inherits_after, language=language,
                         by_operator=actor.is_operator and not builtin, program_sha256=program_hash(source, language))
    session.add(version)
    session.flush()
    for variant, mu in means.items():
        session.add(VersionFormat(version_id=stored_id(version), variant=variant, plays=variant in plays, prior_mu=mu))
    session.commit()
    session.refresh(version)
    session.refresh(bot)
    return Registered(bot, version, True, earlier)


def plays_formats(session: Session, version: BotVersion) -> list[str]:
    """The formats ``version`` is scheduled in, in registration order."""
    plays = {row.variant for row in session.exec(select(VersionFormat).where(
        VersionFormat.version_id == version.id, VersionFormat.plays == True)).all()}  # noqa: E712
    return [f.name for f in formats() if f.name in plays]


def retire(session: Session, name: str, actor: Actor) -> BotVersion:
    """Stop scheduling bot ``name`` (only its owner or the operator may): its current version is no longer
    active, so it leaves the boards and plans; its games and ratings stay. A later submission under the
    name becomes its next version."""
    bot = session.exec(select(Bot).where(Bot.name == name)).first()
    if bot is None:
        raise SubmissionError(f"no bot named {name!r} on this ladder")
    if bot.builtin and not actor.is_operator:
        raise SubmissionError(f"bot {name!r} is a built-in reference bot (boss): only the operator retires it "
                              "(--operator)")
    if not bot.builtin:
        check_may_change(session, name, actor, "retire")
    current = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.active == True)).first()  # noqa: E712
    if current is None:
        raise SubmissionError(f"bot {name!r} is retired already")
    current.active = False
    session.add(current)
    session.commit()
    session.refresh(current)
    return current


def register_bosses(session: Session, names: Sequence[str]) -> list[Registered]:
    """Enter built-in bots as fixed reference points ("bosses") in every variant: trusted, unchanged
    code that every season then schedules like any bot and the leaderboard marks. Every name is
    checked before any is entered, so a refused call changes nothing."""
    known = builtin_bots()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SubmissionError(f"no built-in bot {unknown[0]!r}; the bosses are {', '.join(known)}"
                              + did_you_mean(unknown[0], list(known)))
    for name in names:
        existing_bot(session, name, builtin=True)  # raises, naming the first clash
    return [register(session, name, known[name].read_text(encoding="utf-8"), Actor.operator(), builtin=True,
                     variants=tuple(f.name for f in formats())) for name in names]
