"""Author accounts: who may make a new version of a bot or retire it.

A bot belongs to the author who first submitted it. The operator makes accounts (`arena authors`);
each gets a token, shown once and stored only as its SHA-256 (a token is 256 random bits, so a plain
hash is enough: there is nothing to guess that a slow hash would protect). The local CLI acts as the
author named by ``--author``; ``--operator`` acts for the owner on purpose and is recorded."""
from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from dataclasses import dataclass
from enum import Enum

from sqlmodel import Session, col, func, select

from arena.db import Author, Bot, BotVersion, author_key, now, played_formats, stored_id
from arena.text import TextError, check_text
from arena.submissions.tickets import tickets

#: the author of the built-in bots: no account may take it
ARENA_AUTHOR = "arena"
TOKEN_BYTES = 32


class AccountError(ValueError):
    """An account command or an ownership check refused; the message says why. Nothing was stored."""


def token_hash(token: str) -> str:
    return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def check_author_name(name: str) -> str:
    """``name`` if an account may take it: printable text, and not the built-in bots' author."""
    try:
        name = " ".join(check_text(name, "author").split())
    except TextError as exc:
        raise AccountError(str(exc)) from None
    if not name:
        raise AccountError("an author's name cannot be empty")
    plain = unicodedata.normalize("NFKC", name)
    if plain != name:  # fullwidth or styled letters would read as another account's name
        raise AccountError(f"author name {name!r} has compatibility characters (fullwidth, ligatures, styled "
                           f"letters); write it as {plain!r}")
    if author_key(name) == ARENA_AUTHOR:
        raise AccountError(f"author name {name!r} is reserved for the built-in bots")
    return name


def find_author(session: Session, name: str) -> Author | None:
    """The account keyed as ``name``, a removed one included (its name stays reserved)."""
    return session.exec(select(Author).where(Author.key == author_key(name))).first()


def removed(author: Author) -> str:
    """The words for a removed account's name: nobody may act as it or take it again."""
    when = f" on {author.removed_at:%Y-%m-%d}" if author.removed_at else ""
    return f"the name {author.name!r} belonged to an account removed{when}"


def account(session: Session, name: str) -> Author:
    """The account named ``name``, or an error saying how to make it."""
    try:
        check_text(name, "author")  # bounded and printable before it is quoted
    except TextError as exc:
        raise AccountError(str(exc)) from None
    author = find_author(session, name)
    if author is None:
        raise AccountError(f"no author account {name!r}; the operator makes one with 'arena authors add {name}'")
    if author.removed_at is not None:
        raise AccountError(f"no author account {name!r}: {removed(author)}; its bots are the operator's "
                           "('arena authors transfer BOT --to AUTHOR' hands one over)")
    return author


def add_author(session: Session, name: str) -> tuple[Author, str]:
    """A new account and its token (the only time the token exists outside its holder's hands)."""
    name = check_author_name(name)
    existing = find_author(session, name)
    if existing is not None and existing.removed_at is not None:
        raise AccountError(f"author {name!r} cannot be added: {removed(existing)}, and a name is never given again, "
                           "so that nobody inherits its bots; choose another name")
    if existing is not None:
        raise AccountError(f"author {name!r} exists already (as {existing.name!r}); "
                           f"'arena authors rotate {existing.name}' gives it a new token")
    token = new_token()
    author = Author(name=name, key=author_key(name), token_hash=token_hash(token))
    session.add(author)
    session.commit()
    session.refresh(author)
    return author, token


def ensure_author(session: Session, name: str) -> Actor:
    """Act as the account ``name``, made without a token when there is none (the operator's own scripts
    and benchmarks: the CLI never makes an account this way)."""
    name = check_author_name(name)
    existing = find_author(session, name)
    if existing is not None and existing.removed_at is not None:
        raise AccountError(f"author {name!r}: {removed(existing)}")
    if existing is None:
        session.add(Author(name=name, key=author_key(name)))
        session.commit()
    return Actor.author(name)


def rotate_token(session: Session, name: str) -> tuple[Author, str]:
    """A new token for ``name``; the old one stops working."""
    author = account(session, name)
    token = new_token()
    author.token_hash = token_hash(token)
    session.add(author)
    session.commit()
    session.refresh(author)
    return author, token


def remove_author(session: Session, name: str) -> tuple[Author, int]:
    """Close the account ``name``: its token stops working, and its name stays reserved (no account takes it
    again, so nobody inherits its bots); its bots stay, and only the operator changes them or hands them over
    (``transfer_bot``). Returns the account and how many bots it owned."""
    author = account(session, name)
    owned = len(bots_of(session, author))
    author.token_hash = None
    author.removed_at = now()
    session.add(author)
    session.commit()
    session.refresh(author)
    return author, owned


def transfer_bot(session: Session, name: str, to: str) -> tuple[Bot, str]:
    """Hand bot ``name`` (a removed account's, an unowned one, any author's) to the account ``to``, on the
    operator's purpose: from now on only ``to`` makes its versions, retires it and reads its logs. Refused when
    its current version would give ``to`` more than bots-per-author active bots in a format. Returns the bot
    and its former owner."""
    bot = session.exec(select(Bot).where(Bot.name == name)).first()
    if bot is None:
        raise AccountError(f"no bot named {name!r} on this ladder")
    if bot.builtin:
        raise AccountError(f"bot {name!r} is a built-in reference bot (boss): it belongs to no author")
    owner = account(session, to)
    if author_key(bot.author) == owner.key:
        raise AccountError(f"bot {name!r} belongs to {owner.name!r} already")
    active = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id,
                                                   BotVersion.active == True)).first()  # noqa: E712
    if active is not None:
        room = tickets(session, "", owner.name)  # no bot of theirs holds a ticket yet: all of theirs count
        over = [(variant, bots) for variant, bots in room.full if variant in played_formats(session, stored_id(active))]
        if over:
            raise AccountError(f"bot {name!r} plays {over[0][0]}, where author {owner.name!r} has "
                               f"{', '.join(repr(b) for b in over[0][1])} already (bots-per-author {room.cap}); "
                               f"retire one of them first ('arena bots retire NAME --operator')")
    before = bot.author
    bot.author = owner.name
    session.add(bot)
    session.commit()
    session.refresh(bot)
    return bot, before


def bots_of(session: Session, author: Author) -> tuple[str, ...]:
    """The names of ``author``'s bots, in order."""
    rows = session.exec(select(Bot.name, Bot.author).where(col(Bot.builtin).is_(False))).all()
    return tuple(sorted((name for name, owner in rows if author_key(owner) == author.key), key=str.lower))


@dataclass(frozen=True)
class AuthorListing:
    name: str
    bots: tuple[str, ...]  # their names
    has_token: bool
    created: str
    removed: str = ""  # the day a removed account (its name reserved) was removed


def list_authors(session: Session) -> list[AuthorListing]:
    authors = session.exec(select(Author).order_by(func.lower(Author.name))).all()
    return [AuthorListing(a.name, bots_of(session, a), a.token_hash is not None, f"{a.created_at:%Y-%m-%d}",
                          f"{a.removed_at:%Y-%m-%d}" if a.removed_at else "")
            for a in authors]


def author_for_token(session: Session, token: str) -> Author | None:
    """The account whose token is ``token``, or None (the comparison takes the same time for any token)."""
    wanted = token_hash(token)
    for author in session.exec(select(Author).where(Author.token_hash == wanted)).all():
        live = author.token_hash is not None and author.removed_at is None
        if live and author.token_hash is not None and hmac.compare_digest(author.token_hash, wanted):
            return author
    return None


class Acting(Enum):
    """Who asks to change a bot: an author (by name, or nobody), or the operator on purpose."""

    AUTHOR = "author"
    OPERATOR = "operator"


@dataclass(frozen=True)
class Actor:
    """Who a command acts as: ``Actor.author("alice")``, ``Actor.nobody()`` or ``Actor.operator()``."""

    acting: Acting
    name: str = ""

    @classmethod
    def author(cls, name: str) -> Actor:
        return cls(Acting.AUTHOR, name)

    @classmethod
    def nobody(cls) -> Actor:
        return cls(Acting.AUTHOR, "")

    @classmethod
    def operator(cls, name: str = "") -> Actor:
        return cls(Acting.OPERATOR, name)

    @property
    def is_operator(self) -> bool:
        return self.acting is Acting.OPERATOR


def check_owner(bot: Bot, actor: Actor, doing: str) -> None:
    """Refuse ``doing`` (e.g. "make a new version of") to anyone but the bot's owner or the operator."""
    if actor.is_operator:
        return
    if not bot.author:
        raise AccountError(f"bot {bot.name!r} has no owner: only the operator can {doing} it (--operator)")
    if not actor.name:
        raise AccountError(f"bot {bot.name!r} belongs to author {bot.author!r}: act as its owner with "
                           f"--author, or choose another name")
    if author_key(actor.name) != author_key(bot.author):
        raise AccountError(f"bot {bot.name!r} belongs to another author ({bot.author!r}); "
                           f"{actor.name!r} cannot {doing} it: choose another name")
