"""The referee's fault paths with scripted fake players (no processes): who is at fault is decided
in one place, a bot's fault is its own status and never a void, the arena's fault voids one game."""
from __future__ import annotations

from typing import Any, Callable

import pytest

import arena.play.referee as referee
from arena.play.referee import MAX_REPLAY_BYTES, play_game
from engine import Harvest, classic_rules, rules_for
from engine.spectator import replay_steps
from engine.replay import Resimulation
from sandbox import Reply, SandboxError, Status
from sandbox.protocol import Message


class FakePlayer:
    """Answers every request with ``answer(message)`` (the message's JSON): a dict, a Reply, or an exception to
    raise; ``sent`` keeps the messages themselves."""

    def __init__(self, name: str, answer: Callable[[dict], Any] | None = None) -> None:
        self.name = name
        self.answer = answer or self.play
        self.asked: list[dict] = []
        self.sent: list[Message] = []
        self.closed = False
        self.game: Any = None

    @staticmethod
    def play(message: dict) -> Any:
        if message["type"] == "hello":
            return {"type": "ready"}
        return {"id": message["id"], "action": message["options"][0]}

    def request(self, message: Message) -> Reply:
        assert not self.closed, f"{self.name} was asked after it was closed"
        self.sent.append(message)
        self.asked.append(message.to_json())
        answer = self.answer(self.asked[-1])
        if isinstance(answer, BaseException):
            raise answer
        return answer if isinstance(answer, Reply) else Reply(Status.OK, answer, 1.0)

    def notify(self, message: Message) -> None:
        self.sent.append(message)
        self.asked.append(message.to_json())

    def time_left_ms(self) -> float:
        return 1000.0

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    @property
    def stderr_tail(self) -> str:
        return f"last words of {self.name}"


class Unprintable:
    """A reply value whose ``repr`` fails, as a deeply nested value's would when the referee quotes it."""

    def __repr__(self) -> str:
        raise RecursionError("maximum recursion depth exceeded while getting the repr of an object")


def table(*answers: Callable[[dict], Any] | None) -> list[FakePlayer]:
    return [FakePlayer(f"p{i}", answer) for i, answer in enumerate(answers)]


def after(kind: str, bad: Callable[[dict], Any]) -> Callable[[dict], Any]:
    """Play normally, but answer the first request of ``kind`` (a message type or decision kind) with ``bad``."""
    def answer(message: dict) -> Any:
        if kind in (message["type"], message.get("kind")):
            return bad(message)
        return FakePlayer.play(message)
    return answer


def test_hello_names_no_bot_and_every_seat_gets_its_own_bot_seed() -> None:
    players = table(None, None, None)
    record = play_game(classic_rules(), 5, players, bot_seeds=[11, 22, 33])
    hellos = [p.asked[0] for p in players]
    assert [h["seats"] for h in hellos] == [["seat0", "seat1", "seat2"]] * 3
    assert [h["bot_seed"] for h in hellos] == [11, 22, 33]
    assert record.void is None and [s.status for s in record.seats] == [Status.OK] * 3
    assert "p0" not in str(hellos)  # the names are for the record, not for the bots


@pytest.mark.parametrize("kind", ["hello", "plant_first", "trade_offer"])
@pytest.mark.parametrize("bad, status", [
    (lambda m: RecursionError("maximum recursion depth exceeded"), Status.PROTOCOL),
    (lambda m: KeyError("surprise"), Status.PROTOCOL),
    (lambda m: Reply(Status.PROTOCOL, None, 1.0, "JSON nested deeper than 16 levels"), Status.PROTOCOL),
    (lambda m: ["not", "an", "object"], Status.PROTOCOL),
    (lambda m: {"id": m.get("id"), "action": {"type": "plant", "field": [[[1]]]}}, Status.PROTOCOL),
    (lambda m: {"id": m.get("id"), "action": {"type": "plant", "field": 10 ** 100}}, Status.ILLEGAL),
    (lambda m: {"id": -1, "action": {"type": "pass"}}, Status.PROTOCOL),
    (lambda m: {"type": Unprintable(), "id": Unprintable(), "action": Unprintable()}, Status.PROTOCOL),
], ids=["recursion", "keyerror", "framing", "not-object", "wrong-type", "huge-int", "wrong-id", "unprintable"])
def test_anything_wrong_with_one_bots_output_is_that_bots_forfeit(kind: str, bad: Callable, status: Status) -> None:
    players = table(after(kind, bad), None, None)
    record = play_game(classic_rules(), 7, players)
    assert record.void is None  # never a void
    seat = record.seats[0]
    expected = Status.PROTOCOL if kind == "hello" and status is Status.ILLEGAL else status
    assert seat.status is expected and seat.rank == 3 and seat.detail
    assert [s.status for s in record.seats[1:]] == [Status.OK, Status.OK]
    assert players[0].closed  # a bot that failed is never asked again (FakePlayer asserts it)
    assert Resimulation.of(record.replay).to_end().result == record.replay.result
    failure = seat.failure
    assert failure is not None and failure.log == "last words of p0"  # its own stderr, nobody else's
    assert failure.request == kind and 0 <= failure.step <= len(record.replay.actions)  # the actions before it
    if kind == "hello":
        assert failure.step == 0
    else:  # the replay's position at that step is the one the seat was asked about (one step numbering)
        state = replay_steps(record.replay)[failure.step].state
        assert (state.to_move, state.decision) == (0, kind)
    assert record.seats[1].failure is None and record.seats[2].failure is None


def test_an_engine_fault_provoked_by_an_action_is_that_seats_forfeit_and_the_game_is_rebuilt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.classic import ClassicGame

    def broken(self: ClassicGame, seat: int, action: Any) -> None:
        self.seats[seat].hand.clear()  # half an action, then a crash: the state is no longer trustworthy
        raise ZeroDivisionError("engine bug")

    monkeypatch.setitem(ClassicGame.HANDLERS, Harvest, broken)
    harvester = after("plant_second", lambda m: {"id": m["id"], "action": next(
        (o for o in m["options"] if o["type"] == "harvest"), m["options"][0])})
    record = play_game(classic_rules(), 3, table(harvester, None, None))
    assert record.void is None
    assert record.seats[0].status is Status.ILLEGAL and "could not apply" in record.seats[0].detail
    assert Resimulation.of(record.replay).to_end().result == record.replay.result  # the rebuilt game is a real game
    assert record.replay_text == record.replay.dumps()  # its events made once, none from the broken state


def test_a_record_over_the_bound_is_the_arenas_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(referee, "MAX_REPLAY_BYTES", 1000)  # every real game's record is bigger than that
    record = play_game(classic_rules(), 9, table(None, None, None))
    assert record.void is not None and "the replay exceeds 1000 bytes" in record.void
    assert MAX_REPLAY_BYTES == 4 * 1024 * 1024


def test_a_machine_fault_voids_the_game() -> None:
    players = table(after("plant_first", lambda m: SandboxError("no free uid slot")), None, None)
    record = play_game(classic_rules(), 9, players)
    assert record.void is not None and "no free uid slot" in record.void
    assert all(s.status is Status.OK for s in record.seats)


def test_solo_forfeits_are_losses_and_never_voids() -> None:
    record = play_game(rules_for("solo"), 4, table(after("plant_first", lambda m: MemoryError())))
    assert record.void is None and record.seats[0].status is Status.PROTOCOL and record.seats[0].rank == 2


def test_default_policy_finishes_for_a_forfeited_seat() -> None:
    players = table(after("hello", lambda m: {"type": "not-ready"}), None, None)
    record = play_game(classic_rules(), 13, players)
    assert record.seats[0].status is Status.PROTOCOL and record.seats[0].decisions == 0
    assert len(players[0].asked) == 1  # hello only: never asked again, not even told the end
    assert all(p.asked[-1]["type"] == "end" for p in players[1:])


def test_a_record_travels_as_its_replay_text() -> None:
    import pickle

    record = play_game(classic_rules(), 21, table(None, None, None))
    assert record.replay.result is not None  # decoded on first use
    again = pickle.loads(pickle.dumps(record))
    assert "replay" not in again.__dict__ and len(pickle.dumps(record)) < len(record.replay_text) + 2000
    assert again.replay == record.replay and again.replay_text == record.replay.dumps()


def test_every_line_sent_is_the_json_of_its_message() -> None:
    """A decide message's line is written around texts the referee made once (its view, each event, each
    option): it must be exactly the JSON of the message (what a bot reads is what the referee meant)."""
    import json

    from sandbox.protocol import DecideMessage, JSONText, encode

    players = table(None, None, None, None)
    play_game(classic_rules(), 5, players)
    decides = [m for p in players for m in p.sent if isinstance(m, DecideMessage)]
    assert decides and all(isinstance(m.view, JSONText) for m in decides)
    assert sum(len(m.events) for m in decides) > len(decides)
    for message in decides:
        assert encode(message) == (json.dumps(message.to_json(), separators=(",", ":")) + "\n").encode()
        assert DecideMessage.from_json(json.loads(encode(message))).to_json() == message.to_json()
