"""The seats the matchmaker's fairness guard counts (``Candidate.scheduled``: a bot below half the mean is seated
first, arena/ladder/matchmaking.py).

A batch season counts every seat of the season, by version: it is bounded, and a newcomer on an old ladder catches
up with this season's seats, not with the veterans' lifetime games. A live season never ends, so its whole history
would make a new bot the first seat of every table until it had half the veterans' seats of all time (hours on an
old ladder: an attacker's review found 200 tables in a row). There the guard counts each bot's seats among the
season's latest ``LIVE_WINDOW`` seats a bot: a new bot catches up with the recent pace in a dozen tables or so, and a
new version goes on from its bot's count (its placement games are the live loop's, arena/ladder/live.py)."""
from __future__ import annotations

from collections import Counter, deque
from typing import Sequence

from sqlmodel import Session, col, select

from arena.db import BotVersion, Match, MatchSeat, SeatedVersion

#: a live season's window: this many seats for each bot seated (each has about this many in it on average)
LIVE_WINDOW = 100
#: the window is never shorter than for this many bots, nor longer than for ``LIVE_WINDOW_MAX_BOTS``
LIVE_WINDOW_BOTS = 4
LIVE_WINDOW_MAX_BOTS = 500


class SeatCounts:
    """Seats had in season ``season_id`` (played, void or planned) as the guard reads them: by version, or in a live
    season by bot over its latest seats (``bots``: how many take seats now, which sizes the window)."""

    def __init__(self, session: Session, season_id: int, live: bool, bots: int) -> None:
        self.live = live
        self.bot_of: dict[int, int] = {}  # version id -> its bot's, as the planner last read them
        self.window: deque[int] | None = None
        self.history: deque[int] = deque()
        if not live:
            self.counts = Counter(session.exec(select(MatchSeat.version_id).where(
                MatchSeat.match_id == Match.id, Match.season_id == season_id)).all())
            return
        latest = session.exec(select(BotVersion.bot_id).where(
            MatchSeat.match_id == Match.id, Match.season_id == season_id, MatchSeat.version_id == BotVersion.id)
            .order_by(col(MatchSeat.id).desc()).limit(LIVE_WINDOW * LIVE_WINDOW_MAX_BOTS)).all()
        self.history = deque(reversed(latest), maxlen=LIVE_WINDOW * LIVE_WINDOW_MAX_BOTS)  # the window's source
        self.window = deque(maxlen=0)
        self.counts = Counter()
        self.fit(bots)

    def fit(self, bots: int) -> None:
        """Size a live season's window for ``bots`` taking seats now (a ladder that grows or shrinks keeps about
        ``LIVE_WINDOW`` seats a bot in it)."""
        size = LIVE_WINDOW * min(max(bots, LIVE_WINDOW_BOTS), LIVE_WINDOW_MAX_BOTS)
        if self.window is None or self.window.maxlen == size:
            return
        self.window = deque(self.history, maxlen=size)  # the latest ``size`` seats
        self.counts = Counter(self.window)

    def of(self, version: SeatedVersion) -> int:
        """The seats counted for ``version``."""
        if not self.live:
            return self.counts[version.version_id]
        self.bot_of[version.version_id] = version.bot_id
        return self.counts[version.bot_id]

    def add(self, seating: Sequence[int]) -> None:
        """Count the seats of one planned game (version ids), the next table chosen knowing them."""
        if self.window is None:
            self.counts.update(seating)
            return
        for version in seating:
            if len(self.window) == self.window.maxlen:
                self.counts[self.window[0]] -= 1
            bot = self.bot_of.get(version, -version)  # a version not read yet (a final's) counts alone
            self.window.append(bot)
            self.history.append(bot)
            self.counts[bot] += 1
