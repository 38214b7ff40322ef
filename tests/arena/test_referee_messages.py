"""The referee's decide messages, written around texts made once (the view, each event, each option): each line
is exactly the JSON of its message, and what an in-process bot reads of a message is what that line says."""
from __future__ import annotations

import json
import math
from typing import Any

import pytest

from arena.play.referee import Referee, play_game
from engine import Harvest, Plant, action_from_json, rules_for
from sandbox import Reply, Status
from sandbox.protocol import DecideMessage, Message, dumps, encode


class Seat:
    """Answers the last option of every decision; keeps each message and the line it would send."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sent: list[tuple[Message, bytes]] = []
        self.stderr_tail = ""

    def request(self, message: Message) -> Reply:
        line = encode(message)
        self.sent.append((message, line))
        if not isinstance(message, DecideMessage):
            return Reply(Status.OK, {"type": "ready"}, 1.0)
        options = json.loads(line)["options"]
        return Reply(Status.OK, {"id": message.id, "action": options[-1]}, 1.0)

    def notify(self, message: Message) -> None:
        self.sent.append((message, encode(message)))

    def time_left_ms(self) -> float:
        return 1234.5 + len(self.sent) / 3

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        pass


def table(variant: str, players: int) -> list[Seat]:
    seats = [Seat(f"p{i}") for i in range(players)]
    record = play_game(rules_for(variant), 7, seats, bot_seeds=[11 + i for i in range(players)])
    assert record.void is None and all(s.status is Status.OK for s in record.seats)
    return seats


@pytest.mark.parametrize("variant, players", [("classic", 4), ("duel", 2), ("solo", 1)])
def test_a_line_is_the_json_of_its_message_and_reads_back_as_it(variant: str, players: int) -> None:
    decides = 0
    for seat in table(variant, players):
        for message, line in seat.sent:
            data = message.to_json()
            assert (dumps(data) + "\n").encode() == line
            assert json.loads(line) == data  # an in-process bot reads what a sandboxed one does
            assert type(message).from_json(json.loads(line)).to_json() == data
            decides += isinstance(message, DecideMessage)
    assert decides > 10


@pytest.mark.parametrize("value", [0.0, 1234.5, 1e-7, 1e22, 2.0 / 3, 60000, -0.0, 10 ** 20])
def test_a_number_is_written_as_the_encoder_writes_it(value: float) -> None:
    message = DecideMessage(1, "plant_first", {}, (), (), value)
    assert encode(message) == (dumps(message.to_json()) + "\n").encode()
    assert json.dumps(value) in encode(message).decode()


def test_a_number_the_encoder_refuses_is_refused() -> None:
    with pytest.raises(ValueError):
        encode(DecideMessage(1, "plant_first", {}, (), (), math.nan))


def test_a_reply_naming_an_option_as_written_is_that_option_and_anything_else_is_decoded() -> None:
    from arena.play.referee import _Options

    referee = Referee(rules_for("classic"), 1, [Seat("p0"), Seat("p1"), Seat("p2")])
    options = (Plant(0), Plant(1), Harvest(1))
    shape = _Options(options)
    referee._offered = shape.by_text
    for option, item in zip(options, shape.items):
        data = json.loads(item.text)
        assert referee._offered_action(data) == option == action_from_json(data)
    # the same action written otherwise, values that only compare equal, other actions, no object: the full path
    for data in [{"field": 0, "type": "plant"}, {"type": "plant", "field": True}, {"type": "plant", "field": 1.0},
                 {"type": "plant", "field": 0, "x": 1}, {"type": "plant", "field": math.nan}, {"type": "harvest",
                 "field": 0}, {"type": "pass"}, [{"type": "plant", "field": 0}], "plant", None]:
        assert referee._offered_action(data) is None, data


@pytest.mark.parametrize("action, status", [
    ({"field": 0, "type": "plant"}, Status.OK),  # another key order: decoded, still that option
    ({"type": "plant", "field": True}, Status.PROTOCOL), ({"type": "plant", "field": 0.0}, Status.PROTOCOL),
    ({"type": "plant", "field": 0, "extra": 1}, Status.PROTOCOL), ({"type": "plant", "field": 7}, Status.ILLEGAL),
])
def test_a_reply_that_is_not_an_option_as_written_is_judged_as_before(action: dict[str, Any], status: Status) -> None:
    class Planter(Seat):
        """Answers its first decision (planting into empty fields) with ``action``."""

        def request(self, message: Message) -> Reply:
            reply = super().request(message)
            if isinstance(message, DecideMessage) and message.kind == "plant_first" and len(self.sent) == 2:
                return Reply(Status.OK, {"id": message.id, "action": action}, 1.0)
            return reply

    seats = [Planter("p0"), Seat("p1"), Seat("p2")]
    record = play_game(rules_for("classic"), 7, seats)
    assert record.void is None and record.seats[0].status is status
    assert seats[0].sent[1][0].to_json()["kind"] == "plant_first"  # its first decision was the one answered so
    if status is Status.PROTOCOL:  # what the decoder says of it
        from engine.quoting import WireError
        with pytest.raises(WireError) as refused:
            action_from_json(action)
        assert record.seats[0].detail == f"its action could not be read: {refused.value.brief}"
