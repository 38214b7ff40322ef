"""A table's games: every game starts every bot afresh; a game the machine could not play is void."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from arena_helpers import present

from arena.play.tables import GameSpec, SeatEntry, TableTask, run_table
from arena.play.players import SandboxPlayer
from arena.play.referee import OutOfTime
from engine.replay import Resimulation
from engine import classic_rules
from sandbox import Limits, SandboxError, Status, Tier, detect_tier

RULES_ID = classic_rules().id

PROJECT = Path(__file__).resolve().parents[2]
GREEDY = (PROJECT / "bots" / "greedy_bot.py").read_text()
CRASHER = ("from sandbox.sdk import Bot\n\nclass Crasher(Bot):\n"
           "    def plant_second(self, request):\n        raise RuntimeError('boom')\n")


@pytest.fixture(scope="module")
def tier() -> Tier:
    return detect_tier()


def test_every_game_of_a_rotated_table_starts_every_bot_afresh(tier: Tier, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    real_init = SandboxPlayer.__init__

    def counting_init(self, name, source, limits, tier, language="python"):
        started.append(name)
        real_init(self, name, source, limits, tier, language)

    monkeypatch.setattr(SandboxPlayer, "__init__", counting_init)
    bots = (SeatEntry(1, "greedy", GREEDY), SeatEntry(2, "greedy_copy", GREEDY), SeatEntry(3, "crasher", CRASHER))
    games = tuple(GameSpec(100 + k, 77, tuple((k + i) % 3 for i in range(3))) for k in range(3))
    outcomes = run_table(TableTask(RULES_ID, bots, games, Limits(), tier))
    assert [o.match_id for o in outcomes] == [100, 101, 102]
    for k, outcome in enumerate(outcomes):
        record = outcome.record
        assert record is not None and record.void is None
        crasher_seat = games[k].seating.index(2)
        statuses = [s.status for s in record.seats]
        assert statuses[crasher_seat] is Status.CRASH
        assert statuses.count(Status.OK) == 2
        assert record.seats[crasher_seat].rank == 3
        assert Resimulation.of(record.replay).to_end().result == record.replay.result
    # a fresh process for every bot in every game: nothing of a deal survives into its rotation
    assert sorted(started) == ["crasher"] * 3 + ["greedy"] * 3 + ["greedy_copy"] * 3


def test_a_game_the_machine_cannot_start_is_void_and_the_table_goes_on(tier: Tier,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    real_init = SandboxPlayer.__init__
    calls = []

    def failing_once(self, name, source, limits, tier, language="python"):
        calls.append(name)
        if len(calls) == 2:
            raise SandboxError("no free uid slot (test)")
        real_init(self, name, source, limits, tier, language)

    monkeypatch.setattr(SandboxPlayer, "__init__", failing_once)
    bots = (SeatEntry(1, "a", GREEDY), SeatEntry(2, "b", GREEDY), SeatEntry(3, "c", GREEDY))
    games = tuple(GameSpec(10 + k, 5, (0, 1, 2)) for k in range(2))
    outcomes = run_table(TableTask(RULES_ID, bots, games, Limits(), tier))
    assert outcomes[0].record is None and "no free uid slot (test)" in (outcomes[0].machine_fault or "")
    assert outcomes[1].record is not None and outcomes[1].record.void is None


def test_same_deal_with_rotated_seats_is_the_same_deck(tier: Tier) -> None:
    bots = (SeatEntry(1, "a", GREEDY), SeatEntry(2, "b", GREEDY), SeatEntry(3, "c", GREEDY))
    games = tuple(GameSpec(k, 5, tuple((k + i) % 3 for i in range(3))) for k in range(3))
    records = [o.record for o in run_table(TableTask(RULES_ID, bots, games, Limits(), tier))]
    assert all(r is not None for r in records)
    # identical bots in rotated seats on the same deck: seat outcomes do not depend on who sits there
    assert len({present(r).replay.events for r in records}) == 1


def test_a_table_past_its_deadline_raises_out_of_time_and_a_smoke_table_raises_the_machines_fault(
        tier: Tier, monkeypatch: pytest.MonkeyPatch) -> None:
    bots = (SeatEntry(1, "a", GREEDY), SeatEntry(2, "b", GREEDY), SeatEntry(3, "c", GREEDY))
    games = tuple(GameSpec(20 + k, 5, (0, 1, 2)) for k in range(2))
    closed: list[str] = []
    real_close = SandboxPlayer.close

    def counting_close(self):
        closed.append(self.name)
        real_close(self)

    monkeypatch.setattr(SandboxPlayer, "close", counting_close)
    with pytest.raises(OutOfTime, match="deadline passed before 'hello' at step 0"):
        run_table(TableTask(RULES_ID, bots, games, Limits(), tier, deadline=time.monotonic() - 1))
    assert sorted(set(closed)) == ["a", "b", "c"]  # every bot started for the game was ended
    ended = run_table(TableTask(RULES_ID, bots, games[:1], Limits(), tier, deadline=time.monotonic() + 3600))
    assert present(ended[0].record).void is None  # a deadline far ahead changes nothing

    def failing(self, name, source, limits, tier, language="python"):
        raise SandboxError("no free uid slot (test)")

    monkeypatch.setattr(SandboxPlayer, "__init__", failing)
    with pytest.raises(SandboxError, match="no free uid slot"):
        run_table(TableTask(RULES_ID, bots, games, Limits(), tier, void_faults=False))
    assert run_table(TableTask(RULES_ID, bots, games, Limits(), tier))[0].machine_fault  # a season's: void
