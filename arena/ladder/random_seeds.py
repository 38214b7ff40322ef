"""Where every seed comes from, so that none tells a bot anything it could not see at the table.

Seeds a user chooses (``arena play --seed 1``, ``season run --seed 1``) are small and guessable,
and a bot can replay the open-source engine from every candidate until the deal matches its
hand. So a chosen seed is never used as it is: it is keyed with the database's secret
(``database_key``, random, created on first use and never shown), which reproduces the game for
the operator of that database and for nobody else. Seeds nobody chose come from the system's
randomness. Per game:

- deck: ``season.seed`` (random, or ``keyed(key, "season", name, chosen)``) -> ``ladder.match_seed``;
  ``arena play --seed S``: ``keyed(key, "play", S)``; smoke games: system randomness;
- the bots' own randomness (``hello.bot_seed``): ``keyed(key, "bot", deck seed, seat)`` on the
  ladder and in ``arena play --seed``, else system randomness;
- solo deals: derived from the secret season seed, and their replays stay unpublished until the
  season is closed (``arena season close``).

Two functions make every seed, for two jobs: ``keyed`` turns a seed somebody may know (a chosen one, a
deck seed) into one nobody can guess, under the database's key (HMAC); ``derived`` spreads a seed that is
already secret (a season's) into the seeds of its parts (its games, tables, solo deals, private half). The
second is not an HMAC because it needs no key, and changing it would deal every open season anew.

No output shows the deck seed of a game whose deal may be dealt again (a seat rotation, a solo season
or a test run's pair would be given away with it). A game is named by its match id, a deal by ``deal_id``
(an HMAC of the deck seed under the same key: equal for the games of one deal, useless for dealing it); the seed
``arena play`` prints is the chosen one, which ``--seed`` turns into the same game again. A replay
file (``arena play --replay``) holds its deck seed, because ``arena replay`` re-simulates from it:
a ``"play"`` seed deals no ladder, smoke or test game, so it tells no more than the file's own events.
A closed season plays no more games, so its games' deck seeds are public (``game show``, the site's
game pages and replay files, ``arena play --deck-seed``); a chosen season seed is keyed with the
season's name, so no two seasons share a deal.
"""
from __future__ import annotations

import random
import hmac
import secrets

from sqlmodel import Session

from arena.db import Meta

KEY_NAME = "secret:seeds"


def database_key(session: Session) -> bytes:
    """The database's secret seed key (32 random bytes), created and stored on first use."""
    row = session.get(Meta, KEY_NAME)
    if row is None:
        row = Meta(key=KEY_NAME, value=secrets.token_hex(32))
        session.add(row)
        session.commit()
    return bytes.fromhex(row.value)


def keyed(key: bytes, *parts: object) -> int:
    """A 63-bit seed from ``parts`` under ``key`` (HMAC-SHA256): unpredictable without the key."""
    digest = hmac.digest(key, "/".join(map(str, parts)).encode(), "sha256")  # in one C call: 4 a coordinator's game
    return int.from_bytes(digest[:8], "big") >> 1


def bot_seeds(key: bytes, deck_seed: int, players: int) -> tuple[int, ...]:
    """The bots' own seeds of one game, one per seat."""
    return tuple(keyed(key, "bot", deck_seed, seat) for seat in range(players))


def deal_id(key: bytes, deck_seed: int) -> str:
    """The public name of the deal dealt from ``deck_seed``: 12 hex digits of an HMAC under ``key``."""
    return hmac.digest(key, f"deal/{deck_seed}".encode(), "sha256").hex()[:12]


def random_seed() -> int:
    return secrets.randbits(63)


def derived_random(seed: int, *parts: object) -> random.Random:
    """A random stream for one part (``parts``) of what the secret ``seed`` makes: the same parts, the same stream."""
    return random.Random("/".join(str(p) for p in (seed, *parts)))


def derived(seed: int, *parts: object) -> int:
    """A 63-bit seed for one part of what the secret ``seed`` makes (``derived_random``'s first draw)."""
    return derived_random(seed, *parts).getrandbits(63)


def match_seed(season_seed: int, number: int) -> int:
    """The deck seed of a season's game ``number``."""
    return derived(season_seed, number)


def solo_seeds(season_seed: int, count: int) -> list[int]:
    """The deal seeds every bot of a solo season plays, in order (a longer season extends the list)."""
    return [derived(season_seed, "solo", k) for k in range(count)]


def private_deals(season_seed: int, count: int) -> frozenset[int]:
    """The seeds of a same-deals season's private half (Kaggle's split): of each two deals in order, one drawn
    with the season's secret seed; an odd last deal is private. The public half's results show while the season
    is open; the private half ranks it, and is shown only once it is closed (``WinRate.standings``). When the
    season grows, every deal keeps its half but an odd last one: once its pair is whole, the pair's draw decides,
    so it turns public half the time; a public deal never turns private, so the private half never holds a deal
    whose results were shown."""
    seeds = solo_seeds(season_seed, count)
    private = set()
    for k in range(0, count, 2):
        pair = seeds[k:k + 2]
        private.add(pair[derived_random(season_seed, "split", k).randrange(len(pair))])
    return frozenset(private)
