"""Submitting a bot: check the file, play a smoke game in the sandbox, store a new version."""
from __future__ import annotations

import ast
import difflib
import errno
import os
import random
import re
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from sqlmodel import Session, col, select

from arena.submissions.accounts import ARENA_AUTHOR, AccountError, Actor, account, check_owner
from arena.db import Bot, BotVersion, Rating, VersionFormat, author_key, bot_key, source_hash, stored_id
from arena.paths import data_dir
from arena.submissions.programs import program_hash
from arena.play.players import Player, SandboxPlayer
from arena.ladder.ratings import MU, SIGMA
from arena.play.referee import GameRecord, OutOfTime, play_game
from arena.text import shown
from arena.submissions.tickets import TicketError, Tickets, check_not_copy, tickets
from arena.formats import default_format, format_of, formats
from engine.rules import rules_for
from sandbox import Limits, Status, Tier
from sandbox.languages import LANGUAGES, PYTHON, BuildError, build, language_of_file, runtime_problem

MAX_BOT_BYTES = 256 * 1024
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def rated_variants() -> tuple[str, ...]:
    """The formats whose games are rated, where a new version starts from its predecessor's mean."""
    return tuple(f.name for f in formats() if f.ranking.rated)


class SubmissionError(ValueError):
    """The submission is refused; the message says why. Nothing was stored."""


def check_name(name: str, builtin: bool = False) -> str:
    """``name`` if a bot may take it; only a built-in bot may take a reserved name (``reserved_for``)."""
    if not NAME.fullmatch(name):
        raise SubmissionError(f"bot name {name!r} must be 1-40 letters, digits, '_', '.' or '-', "
                              "starting with a letter or digit")
    boss = None if builtin else reserved_for(name)
    if boss is not None:
        raise SubmissionError(f"bot name {name!r} is reserved: it reads as the built-in bot {boss!r}; "
                              f"choose another name")
    return name


def _skeleton(name: str) -> str:
    """What ``name`` reads as beside a built-in bot: ``bot_key`` with a version suffix and a ``bot`` suffix dropped."""
    text = bot_key(re.sub(r"[-_.]?v?\d+$", "", name.casefold()) or name)
    while text.endswith("bot") and len(text) > 3:
        text = text.removesuffix("bot")
    return text


def reserved_names() -> tuple[str, ...]:
    """The names of the built-in bots (every boss, every smoke opponent), reserved from the first run."""
    return tuple(sorted(set(builtin_bots()) | {name for f in formats() for name in f.smoke_opponents}))


def reserved_for(name: str) -> str | None:
    """The built-in bot that ``name`` would pass for (``trader`` for Trader, trader_bot, TRADER-2, tr4der), or None."""
    return next((boss for boss in reserved_names() if _skeleton(name) == _skeleton(boss)), None)


def read_bot_file(path: str | Path, limit: int = MAX_BOT_BYTES) -> bytes:
    """The bytes of the bot file at ``path``, at most ``limit``: a symbolic link, a FIFO, a device or a
    folder is refused before it is read, and no more than ``limit`` + 1 bytes are ever read."""
    shown = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SubmissionError(f"{shown!r} is a symbolic link; give the bot file itself") from None
        if exc.errno == errno.ENOENT:
            raise SubmissionError(f"no such file: {shown!r}") from None
        raise SubmissionError(f"cannot read {shown!r}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode)
                    else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                    else "not a regular file")
            raise SubmissionError(f"{shown!r} is {kind}, not a bot file")
        if info.st_size > limit:
            raise SubmissionError(f"{shown!r} is {info.st_size} bytes; the limit is {limit}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # a file that grows after fstat still stops at limit + 1
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise SubmissionError(f"{shown!r} is more than {limit} bytes; the limit is {limit}")
        return b"".join(chunks)
    except OSError as exc:
        raise SubmissionError(f"cannot read {shown!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_bot(data: bytes, filename: str) -> tuple[str, str]:
    """(source, language) of a bot file, its language named by its extension (sandbox/languages.py):
    a Python file is checked by ``check_source``; a compiled language's file is built now, so that a
    build error is the submission's one line; a language whose tools are missing is refused."""
    language = language_of_file(filename)
    if language is None or language.is_python:
        return check_source(data, filename), PYTHON.name
    source = _text(data, filename)
    problem = runtime_problem(language)
    if problem is not None:
        raise SubmissionError(f"{filename!r}: {problem}")
    if language.build:
        try:  # without bubblewrap only the plain tier runs bots (--unsafe), and so builds them
            build(language, source, sandboxed=shutil.which("bwrap") is not None)
        except BuildError as exc:
            raise SubmissionError(f"{filename!r} does not build: {exc}") from None
    return source, language.name


def _text(data: bytes, filename: str) -> str:
    if len(data) > MAX_BOT_BYTES:
        raise SubmissionError(f"{filename!r} is {len(data)} bytes; the limit is {MAX_BOT_BYTES}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{filename!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if "\x00" in text:
        raise SubmissionError(f"{filename!r} is not text: it holds a NUL byte at byte {data.index(0)}")
    return text


def check_source(data: bytes, filename: str) -> str:
    """The file's text if it could be a Python bot: size, UTF-8, Python syntax, an entry point."""
    source = _text(data, filename)
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        suffix = Path(filename).suffix
        if suffix and suffix != ".py":  # e.g. bot.rb: not a Python bot that fails to parse
            known = ", ".join(f"{lang.name} ({'/'.join(lang.extensions)})" for lang in LANGUAGES)
            raise SubmissionError(f"{filename!r} is not a bot file the ladder knows: it takes {known} "
                                  "(docs/protocol.md); a bot in another language plays locally with "
                                  "'arena play exec:COMMAND … --unsafe'") from None
        raise SubmissionError(f"{filename!r} has a syntax error at line {exc.lineno}: {exc.msg}") from None
    has_act = any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "act"
                  or isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "act" for t in node.targets)
                  for node in tree.body)
    bot_classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef) and any(
        (isinstance(b, ast.Name) and b.id.endswith("Bot")) or (isinstance(b, ast.Attribute) and b.attr.endswith("Bot"))
        for b in node.bases)]
    if not has_act and not bot_classes:
        raise SubmissionError(f"{filename!r} has no entry point: define act(message) or a subclass of "
                              "sandbox.sdk.Bot at module level")
    if not has_act and len(bot_classes) > 1:
        raise SubmissionError(f"{filename!r} defines {len(bot_classes)} bot classes ({', '.join(bot_classes)}); "
                              "keep exactly one")
    return source


@dataclass(frozen=True)
class SmokeTable:
    """A smoke game drawn like a ladder game: a secret deal, a table size in the variant's range,
    opponents among the built-in bots, the submitted bot at a random seat."""

    variant: str
    seed: int
    opponents: tuple[str, ...]
    seat: int

    @classmethod
    def draw(cls, variant: str, rng: random.Random | None = None) -> SmokeTable:
        rng = rng or random.SystemRandom()
        fmt = format_of(variant)
        rules = fmt.rules()
        size = rng.randint(rules.min_players, rules.max_players)
        pool = list(fmt.smoke_opponents)
        opponents = tuple(rng.sample(pool, size - 1) if size - 1 <= len(pool) else rng.choices(pool, k=size - 1))
        return cls(rules.variant, rng.getrandbits(63), opponents, rng.randrange(size))


def smoke_game(name: str, source: str, limits: Limits, tier: Tier, variant: str | None = None,
               table: SmokeTable | None = None, language: str = "python", deadline: float | None = None) -> GameRecord:
    """One game of ``variant`` (None: the default format) in the sandbox at a drawn table
    (``SmokeTable.draw``); the submitted bot's seat is ``table.seat``. The record's seats are in table order.
    Past ``deadline`` (``time.monotonic()``) it raises ``OutOfTime``, its bots' processes ended."""
    table = table or SmokeTable.draw(format_of(variant).name)
    bots = builtin_bots()
    players: list[Player] = []
    try:
        for opponent in table.opponents:
            check_deadline(deadline, table.variant)
            players.append(SandboxPlayer(opponent, bots[opponent].read_text(encoding="utf-8"), limits, tier))
        check_deadline(deadline, table.variant)
        players.insert(table.seat, SandboxPlayer(name, source, limits, tier, language))
        return play_game(rules_for(table.variant), table.seed, players, limits, deadline=deadline)
    except OutOfTime:
        raise OutOfTime(table.variant) from None
    finally:
        for player in players:
            player.close()


def check_deadline(deadline: float | None, variant: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise OutOfTime(variant)


def smoke_games(name: str, source: str, limits: Limits, tier: Tier, language: str = "python",
                deadline: float | None = None) -> dict[str, tuple[SmokeTable, GameRecord]]:
    """One smoke game per format (classic, duel, solo, then any other registered), each at a drawn table; past
    ``deadline`` (``time.monotonic()``) ``OutOfTime`` names the format whose game was cut off."""
    out = {}
    for variant in (f.name for f in formats()):
        table = SmokeTable.draw(variant)
        out[variant] = (table, smoke_game(name, source, limits, tier, variant, table, language, deadline))
    return out


@dataclass(frozen=True)
class Registered:
    bot: Bot
    version: BotVersion
    new: bool  # False when the same source was already the bot's current version


def existing_bot(session: Session, name: str, builtin: bool = False) -> Bot | None:
    """The bot already named ``name``, if any; a submission cannot take a boss's name, nor a boss a submitted bot's."""
    bot = session.exec(select(Bot).where(Bot.name == name)).first()
    if bot is not None and bot.builtin and not builtin:
        raise SubmissionError(f"bot name {name!r} belongs to a built-in reference bot (boss); choose another name")
    if bot is not None and builtin and not bot.builtin:
        raise SubmissionError(f"boss {name!r} cannot be entered: the submitted bot {name!r} (author "
                              f"{shown(bot.author) or 'none given'}, since {bot.created_at:%Y-%m-%d}) took the name "
                              "before built-in names were reserved; run the season without this boss")
    return bot


def owner_name(session: Session, actor: Actor) -> str:
    """The account name ``actor`` acts under ("" for nobody); an error if it names no account."""
    if not actor.name:
        return ""
    try:
        return account(session, actor.name).name
    except AccountError as exc:
        raise SubmissionError(str(exc)) from None


def check_may_change(session: Session, name: str, actor: Actor, doing: str) -> Bot | None:
    """The bot named ``name`` if ``actor`` may ``doing`` it (None: no such bot, so a new one may take the name,
    unless it reads as another author's bot: ``check_not_lookalike``)."""
    owner = owner_name(session, actor)
    bot = existing_bot(session, name)
    if bot is not None:
        try:
            check_owner(bot, actor, doing)
        except AccountError as exc:
            raise SubmissionError(str(exc)) from None
    else:
        check_not_lookalike(session, name, owner)
    return bot


class NameTaken(SubmissionError):
    """A new bot's name reads as another author's bot (the service answers 409)."""


def check_not_lookalike(session: Session, name: str, owner: str) -> None:
    """Refuse a new bot ``name`` that reads as (``bot_key``) a bot of another author, of no author or a built-in
    one: a board would show the two as one author's. An author's own look-alikes are theirs to make."""
    key = bot_key(name)
    for other, author, builtin in session.exec(select(Bot.name, Bot.author, Bot.builtin)).all():
        theirs = builtin or not owner or author_key(author) != author_key(owner)
        if other != name and theirs and bot_key(other) == key:
            whose = "a built-in bot" if builtin else f"author {shown(author)!r}" if author else "no author"
            raise NameTaken(f"bot name {name!r} reads as the bot {other!r} of {whose}; choose another name")


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
    means = {f.name: MU for f in formats()}
    latest = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)
                          .order_by(col(BotVersion.number).desc())).first()  # the current one, or a retired bot's last
    number = 1
    if latest is not None:  # keeps its mean in each rated format, resets its uncertainty
        before = {row.variant: row.prior_mu for row in session.exec(select(VersionFormat).where(
            VersionFormat.version_id == latest.id)).all()}
        for variant in rated_variants():
            rating = session.get(Rating, (latest.id, variant))
            means[variant] = rating.mu if rating else before.get(variant, MU)
        number = latest.number + 1
    if current is not None:
        current.active = False
        session.add(current)
    if owner and not bot.author:  # the operator gives an unowned bot its owner
        bot.author = owner
        session.add(bot)
    version = BotVersion(bot_id=stored_id(bot), number=number, source=source, sha256=digest, prior_sigma=SIGMA,
                         language=language, by_operator=actor.is_operator and not builtin,
                         program_sha256=program_hash(source, language))
    session.add(version)
    session.flush()
    for variant, mu in means.items():
        session.add(VersionFormat(version_id=stored_id(version), variant=variant, plays=variant in plays, prior_mu=mu))
    session.commit()
    session.refresh(version)
    session.refresh(bot)
    return Registered(bot, version, True)


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


def did_you_mean(name: str, known: Sequence[str]) -> str:
    """``"; did you mean 'greedy'?"`` when ``name`` is a near miss of one of ``known`` (a typo, a
    ``_bot`` suffix, other case), else ``""``."""
    plain = name.casefold().removesuffix(".py").removesuffix("_bot")
    close = difflib.get_close_matches(plain, [k.casefold() for k in known], n=1, cutoff=0.6)
    return f"; did you mean {known[[k.casefold() for k in known].index(close[0])]!r}?" if close else ""


def builtin_bots() -> dict[str, Path]:
    """The example bots shipped in ``bots/``, by name (``greedy`` for ``greedy_bot.py``)."""
    return {path.stem.removesuffix("_bot"): path for path in sorted(data_dir("bots").glob("*_bot.py"))}


def names_taken_by_submissions(session: Session, names: Sequence[str]) -> list[str]:
    """Those of ``names`` that submitted (not built-in) bots already use."""
    return [name for name in names
            if session.exec(select(Bot).where(Bot.name == name, Bot.builtin == False)).first()]  # noqa: E712


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


def smoke_failure(record: GameRecord, seat_index: int = 0) -> str | None:
    """Why the submitted bot (at ``seat_index``) failed its smoke game, or None."""
    if record.void:
        return f"the smoke game was voided by a referee fault: {record.void}"
    seat = record.seats[seat_index]
    if seat.status is not Status.OK:
        return f"the bot failed its smoke game with status {seat.status.value!r}: {seat.detail}"
    return None
