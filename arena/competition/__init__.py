"""Competitions (`arena competition ...`): the open ladder of a format until a deadline, the entries frozen then
(``entries``), a final among the best entries played as a season of its own (``final``), and its result: standings,
podium and how sure the order is (``results``). ``store`` makes and finds them."""
from __future__ import annotations

from arena.competition.entries import Entry, EntryNote, entry_notes, entries, freeze
from arena.competition.final import Schedule, close_competition, run_final, schedule, start_final
from arena.competition.results import FinalStanding, Result, result, winner_better
from arena.competition.store import (CompetitionError, Phase, all_competitions, create_competition,
                                     final_season_name, find_competition, parse_deadline, phase, utc)

__all__ = ["CompetitionError", "Entry", "EntryNote", "FinalStanding", "Phase", "Result", "Schedule",
           "all_competitions", "close_competition", "create_competition", "entries", "entry_notes",
           "final_season_name", "find_competition", "freeze", "parse_deadline", "phase", "result", "run_final",
           "schedule", "start_final", "utc", "winner_better"]
