"""The field of bench/accuracy.py and its games: candidates, the in-process game, the shared outcome store, deals."""
from __future__ import annotations

import os
import random
import sqlite3
from typing import Sequence

from engine import classic_rules

import common
import games

MIN_PLAYERS, MAX_PLAYERS = 3, 5
#: candidates, strongest expected first: (name, bot file stem, epsilon)
CANDIDATES: tuple[tuple[str, str, float], ...] = tuple(
    [(f"trader-e{round(100 * e):02d}" if e else "trader", "trader", e)
     for e in (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8)]
    + [(f"greedy-e{round(100 * e):02d}" if e else "greedy", "greedy", e) for e in (0.0, 0.1, 0.2, 0.35, 0.5, 0.75)]
    + [("random", "random", 0.0)]
)
SPEC = {name: (stem, eps) for name, stem, eps in CANDIDATES}


def play(seating: Sequence[str], seed: int) -> tuple[tuple[int, ...], int]:
    """Ranks (1 = best, ties shared) of one classic game, ``seating`` names by seat, deck ``seed``; and how many
    actions it refused (never seen; the seat then plays the forfeit policy)."""
    bots = [(common.bot_class(SPEC[name][0]), SPEC[name][1]) for name in seating]
    game, refused = games.play_out(classic_rules(), bots, seed)
    return tuple(common.result_of(game).ranks), refused


class Games:
    """Outcomes by (seating, seed): a process-local dict over an optional sqlite file shared by workers."""

    def __init__(self, path: str | None) -> None:
        self.local: dict[str, tuple[int, ...]] = {}
        self.db = None
        self.played = 0
        self.illegal = 0
        if path:
            self.db = sqlite3.connect(path, timeout=120)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("CREATE TABLE IF NOT EXISTS games (key TEXT PRIMARY KEY, ranks TEXT NOT NULL)")
            self.db.commit()
            for key, ranks in self.db.execute("SELECT key, ranks FROM games"):
                self.local[key] = tuple(int(r) for r in ranks.split(","))

    def ranks(self, seating: Sequence[str], seed: int) -> tuple[int, ...]:
        key = f"{seed}:{','.join(seating)}"
        got = self.local.get(key)
        if got is None and self.db is not None:
            row = self.db.execute("SELECT ranks FROM games WHERE key = ?", (key,)).fetchone()
            got = tuple(int(r) for r in row[0].split(",")) if row else None
        if got is None:
            got, refused = play(seating, seed)
            self.played += 1
            self.illegal += refused
            if self.db is not None:
                self.db.execute("INSERT OR IGNORE INTO games VALUES (?, ?)", (key, ",".join(map(str, got))))
                self.db.commit()
        self.local[key] = got
        return got


GAMES: Games | None = None


def games_store() -> Games:
    """This process's outcome store (``init_worker`` makes it in every worker)."""
    assert GAMES is not None, "the outcome store is made by init_worker"
    return GAMES


def init_worker(cache: str | None) -> None:
    """Lower this process's priority and give it its outcome store over the sqlite file ``cache``, if any."""
    global GAMES
    os.nice(15) if os.nice(0) < 15 else None
    GAMES = Games(cache)


def deal(names: Sequence[str], k: int, tag: str = "deal") -> tuple[list[str], int]:
    """The k-th deal of the bot set ``names``: a uniformly random seating and a deck seed."""
    rng = random.Random(f"{tag}/{','.join(sorted(names))}/{k}")
    seating = sorted(names)
    rng.shuffle(seating)
    return seating, rng.getrandbits(63)
