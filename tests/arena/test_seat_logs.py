"""Every seat's own standard error of a game reaches its record, read once its bot ended (plain, strong and
fork-server bots alike), and the ladder keeps each version's logs of its latest games only, each capped."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

import arena.ladder.seat_logs as seat_logs
from arena.db import Bot, BotVersion, Match, Season, SeatLog, make_engine, stored_id
from arena.play.players import SandboxPlayer
from arena.play.referee import play_game
from arena.play.records import MAX_SEAT_LOG
from arena.ladder.seat_logs import KEEP_GAMES, clip_log, store_logs
from engine import classic_rules
from sandbox.protocol import DecideMessage, Message
from sandbox import Limits, Reply, Status, Tier
from sandbox.tiers import detect_tier

HERE = Path(__file__).resolve().parent
BOTS = HERE.parents[1] / "bots"
CHATTY = (HERE / "chatty_bot.py").read_text(encoding="utf-8")
MARKER = "CHATTY-MARK-7f3a"


class Writer:
    """A seat that plays the first option and whose standard error grows when it is closed, as a bot's last
    words reach the pipe only once its process ends."""

    def __init__(self, name: str, fail_on: str | None = None) -> None:
        self.name, self.fail_on, self.closed, self.written = name, fail_on, False, f"{name} played\n"

    def request(self, message: Message) -> Reply:
        if not isinstance(message, DecideMessage):
            return Reply(Status.OK, {"type": "ready"}, 1.0)
        if message.kind == self.fail_on:
            return Reply(Status.CRASH, None, 1.0, "exited")
        return Reply(Status.OK, {"id": message.id, "action": message.to_json()["options"][0]}, 1.0)

    def notify(self, message: Message) -> None:
        pass

    def time_left_ms(self) -> float:
        return 1000.0

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        if not self.closed:
            self.written += f"{self.name} last words\n"
        self.closed = True

    @property
    def stderr_tail(self) -> str:
        return self.written


def test_every_seats_log_is_read_after_its_bot_is_closed_failed_or_not() -> None:
    players = [Writer("a"), Writer("b", fail_on="plant_first"), Writer("c")]
    record = play_game(classic_rules(), 5, players, bot_seeds=[1, 2, 3])
    assert all(p.closed for p in players)
    assert [s.log for s in record.seats] == [f"{n} played\n{n} last words\n" for n in "abc"]
    assert record.seats[1].status is Status.CRASH and record.seats[1].failure is not None
    assert [s.failure is None for s in record.seats] == [True, False, True]


def test_a_log_keeps_its_tail_within_the_cap() -> None:
    player = Writer("a")
    player.written = "x" * (3 * MAX_SEAT_LOG) + "THE END\n"
    record = play_game(classic_rules(), 5, [player, Writer("b"), Writer("c")], bot_seeds=[1, 2, 3])
    log = record.seats[0].log
    assert len(log) == MAX_SEAT_LOG + 1 and log.startswith("…") and log.endswith("a last words\n")


TIERS = [pytest.param(Tier.PLAIN, False, id="plain")] + [
    pytest.param(Tier.STRONG, fork, id="strong-forked" if fork else "strong",
                 marks=pytest.mark.skipif(detect_tier() is not Tier.STRONG, reason="strong tier unavailable"))
    for fork in (False, True)]


@pytest.mark.parametrize(("tier", "fork"), TIERS)
def test_a_sandboxed_bot_that_plays_fine_has_every_decisions_output_in_its_log(tier: Tier, fork: bool) -> None:
    limits = Limits(fork_server=fork)
    players = [SandboxPlayer("chatty", CHATTY, limits, tier)] + [
        SandboxPlayer(f"greedy{k}", (BOTS / "greedy_bot.py").read_text(), limits, tier) for k in (1, 2)]
    try:
        record = play_game(classic_rules(), 11, players, limits, bot_seeds=[1, 2, 3])
    finally:
        for player in players:
            player.close()
    chatty = record.seats[0]
    assert chatty.status is Status.OK and chatty.decisions > 20
    assert chatty.log.count(MARKER) == chatty.decisions  # the last decision's line too
    assert f"{MARKER} decision {chatty.decisions}\n" in chatty.log
    assert [s.log for s in record.seats[1:]] == ["", ""]  # the greedy bots write nothing


def ladder(tmp_path: Path) -> tuple[Any, list[int], list[int]]:
    """A database with two versions and 60 recorded matches: (engine, version ids, match ids)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'logs.sqlite'}")
    with Session(engine) as session:
        season = Season(name="s", variant="classic", games=60, min_players=3, max_players=3, seed=1)
        bot = Bot(name="b", author="ann")
        session.add(season)
        session.add(bot)
        session.flush()
        versions = [BotVersion(bot_id=stored_id(bot), number=n, source="", sha256=str(n), prior_sigma=8.0)
                    for n in (1, 2)]
        matches = [Match(season_id=stored_id(season), number=k, table=k, seed=k, rules_id="classic-v3")
                   for k in range(60)]
        session.add_all([*versions, *matches])
        session.commit()
        return engine, [stored_id(v) for v in versions], [stored_id(m) for m in matches]


def test_a_version_keeps_the_logs_of_its_latest_games_only(tmp_path: Path) -> None:
    engine, (one, two), matches = ladder(tmp_path)
    with Session(engine) as session:
        for k, match_id in enumerate(matches):
            added = store_logs(session, match_id, [(0, one, f"one in game {match_id}\n"), (1, two, "" if k % 2 else
                                                   f"two in game {match_id}\n"), (2, two, "   \n")])
            assert added == (1 if k % 2 else 2)  # an empty (or blank) log stores nothing
            session.commit()
        kept = {v: sorted(session.exec(select(SeatLog.match_id).where(SeatLog.version_id == v)).all())
                for v in (one, two)}
        texts = {log.match_id: log.text for log in session.exec(select(SeatLog).where(SeatLog.version_id == one))}
    assert len(matches) > KEEP_GAMES
    assert kept[one] == matches[-KEEP_GAMES:]  # the newest 50 games of version 1
    assert kept[two] == matches[::2][-KEEP_GAMES:] == matches[::2]  # 30 logs: none dropped
    assert texts[matches[-1]] == f"one in game {matches[-1]}\n"


def test_a_stored_log_is_capped_at_its_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, (one, _), matches = ladder(tmp_path)
    monkeypatch.setattr(seat_logs, "MAX_LOG_CHARS", 10)
    assert clip_log("0123456789") == "0123456789"
    with Session(engine) as session:
        store_logs(session, matches[0], [(0, one, "abcdefghijKLMNOPQRS")])
        session.commit()
        assert session.exec(select(SeatLog.text)).one() == "…KLMNOPQRS"
