"""The referee's decide messages made from cached parts: each line is exactly the JSON of the message's
dict; a ``wire_only`` player is sent the very same lines, with only the header in the dict."""
from __future__ import annotations

import json
import math
from typing import Any

import pytest

from arena.play.referee import play_game
from arena.play.referee_wire import number_text
from engine import rules_for
from sandbox import Reply, Status
from sandbox.framing import dumps, encode


class Seat:
    """Answers the last option of every decision; keeps each message and the line it would send."""

    def __init__(self, name: str, wire_only: bool) -> None:
        self.name, self.wire_only = name, wire_only
        self.sent: list[tuple[dict[str, Any], bytes]] = []
        self.stderr_tail = ""
        self.options: list[list[dict[str, Any]]] = []

    def request(self, message: dict[str, Any]) -> Reply:
        line = encode(message)
        self.sent.append((dict(message), line))
        if message["type"] == "hello":
            return Reply(Status.OK, {"type": "ready"}, 1.0)
        options = json.loads(line)["options"]
        return Reply(Status.OK, {"id": message["id"], "action": options[-1]}, 1.0)

    def notify(self, message: dict[str, Any]) -> None:
        self.sent.append((dict(message), encode(message)))

    def time_left_ms(self) -> float:
        return 1234.5 + len(self.sent) / 3

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        pass


def table(variant: str, players: int, wire_only: bool) -> list[Seat]:
    seats = [Seat(f"p{i}", wire_only) for i in range(players)]
    record = play_game(rules_for(variant), 7, seats, bot_seeds=[11 + i for i in range(players)])
    assert record.void is None and all(s.status is Status.OK for s in record.seats)
    return seats


@pytest.mark.parametrize("variant, players", [("classic", 4), ("duel", 2), ("solo", 1)])
def test_a_line_is_the_json_of_its_message(variant: str, players: int) -> None:
    decides = 0
    for seat in table(variant, players, wire_only=False):
        for message, line in seat.sent:
            assert (dumps(message) + "\n").encode() == line
            decides += message["type"] == "decide"
    assert decides > 10


@pytest.mark.parametrize("variant, players", [("classic", 4), ("duel", 2)])
def test_a_wire_only_seat_gets_the_same_lines_and_a_header(variant: str, players: int) -> None:
    full, lean = table(variant, players, wire_only=False), table(variant, players, wire_only=True)
    for a, b in zip(full, lean):
        assert [line for _, line in a.sent] == [line for _, line in b.sent]
        for message, line in b.sent:
            if message["type"] == "decide":
                data = json.loads(line)
                assert message == {"type": "decide", "id": data["id"], "kind": data["kind"]}


@pytest.mark.parametrize("value", [0.0, 1234.5, 1e-7, 1e22, 2.0 / 3, 60000, -0.0, 10 ** 20])
def test_a_number_is_written_as_the_encoder_writes_it(value: float) -> None:
    assert number_text(value) == json.dumps(value)


def test_a_number_the_encoder_refuses_is_refused() -> None:
    with pytest.raises(ValueError):
        number_text(math.nan)


def test_a_reply_naming_an_option_as_written_is_that_option_and_anything_else_is_decoded() -> None:
    from arena.play.referee_wire import DecideWire
    from engine import Harvest, Plant, action_from_json

    wire = DecideWire(2)
    options = (Plant(0), Plant(1), Harvest(1))
    _, text = wire.options(options)
    for option, data in zip(options, json.loads(text)):
        assert wire.offered(data) == option == action_from_json(data)
    # the same action written otherwise, values that only compare equal, other actions, no object: the full path
    for data in [{"field": 0, "type": "plant"}, {"type": "plant", "field": True}, {"type": "plant", "field": 1.0},
                 {"type": "plant", "field": 0, "x": 1}, {"type": "plant", "field": math.nan}, {"type": "harvest",
                 "field": 0}, {"type": "pass"}, [{"type": "plant", "field": 0}], "plant", None]:
        assert wire.offered(data) is None, data
    wire.options((Plant(0),))  # a new decision: only its options are looked up
    assert wire.offered({"type": "harvest", "field": 1}) is None


@pytest.mark.parametrize("action, status", [
    ({"field": 0, "type": "plant"}, Status.OK),  # another key order: decoded, still that option
    ({"type": "plant", "field": True}, Status.PROTOCOL), ({"type": "plant", "field": 0.0}, Status.PROTOCOL),
    ({"type": "plant", "field": 0, "extra": 1}, Status.PROTOCOL), ({"type": "plant", "field": 7}, Status.ILLEGAL),
])
def test_a_reply_that_is_not_an_option_as_written_is_judged_as_before(action: dict[str, Any], status: Status) -> None:
    class Planter(Seat):
        """Answers its first decision (planting into empty fields) with ``action``."""

        def request(self, message: dict[str, Any]) -> Reply:
            reply = super().request(message)
            if message.get("kind") == "plant_first" and len(self.sent) == 2:
                return Reply(Status.OK, {"id": message["id"], "action": action}, 1.0)
            return reply

    seats = [Planter("p0", True), Seat("p1", True), Seat("p2", True)]
    record = play_game(rules_for("classic"), 7, seats)
    assert record.void is None and record.seats[0].status is status
    assert seats[0].sent[1][0]["kind"] == "plant_first"  # its first decision was the one answered so
    if status is Status.PROTOCOL:  # what the decoder says of it
        from engine import action_from_json
        from engine.quoting import WireError
        with pytest.raises(WireError) as refused:
            action_from_json(action)
        assert record.seats[0].detail == f"its action could not be read: {refused.value.brief}"
