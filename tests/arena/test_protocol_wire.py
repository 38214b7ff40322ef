"""The bytes the referee writes to bots are those it wrote before its messages became values of
sandbox/protocol.py: whole games recorded line by line, against digests taken from the dict literals
the referee used before, and against the examples of docs/protocol.md; and a sandboxed SDK bot, whose
bundle carries the protocol module, still answers them."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.play.players import bundle_for
from arena.play.referee import play_game, seat_label
from engine import Rules, classic_rules, rules_for
from sandbox import BotProcess, Limits, Reply, Status, Tier
from sandbox.protocol import (
    PROTOCOL_VERSION, ActionReply, DecideMessage, EndMessage, HelloMessage, Message, ReadyReply, TimeLimits, encode,
    message_from_json,
)

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")


class Recorder:
    """A seat that keeps every line the referee sends it (in one list for the table) and answers with
    the last option (a forfeit instead of ready when ``ready`` is false)."""

    def __init__(self, name: str, lines: list[bytes], ready: bool = True) -> None:
        self.name, self.lines, self.ready = name, lines, ready
        self.messages: list[Message] = []
        self.stderr_tail = ""

    def request(self, message: Message) -> Reply:
        self.notify(message)
        if not isinstance(message, DecideMessage):
            return Reply(Status.OK, {"type": "ready" if self.ready else "not-ready"}, 1.0)
        return Reply(Status.OK, {"id": message.id, "action": message.to_json()["options"][-1]}, 1.0)

    def notify(self, message: Message) -> None:
        self.lines.append(encode(message))
        self.messages.append(message)

    def time_left_ms(self) -> float:
        return 1234.5

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        pass


#: (rules, seed, seats that answer hello wrongly, number of lines, their sha256), recorded with the
#: referee's dict literals before sandbox/protocol.py existed
GAMES: list[tuple[str, int, int, tuple[int, ...], int, str]] = [
    ("classic", 5, 3, (), 358, "933fbdb178fe64387a79c27a4ea6b649a84b34f80e1323c69d03c4f5d5d524f6"),
    ("duel", 4, 2, (), 679, "1c0bafcbaf461d105f3113644054c167dd076f26ace6dd383837ff87163298e9"),
    ("solo", 4, 1, (), 37, "2d75f62c3ee6da82588b7d47b4ad27fc01f683c18311af1adfa95584ab56bedb"),
    ("classic", 9, 4, (1,), 249, "776107c88b2c8054fa99cb9723b9d8df680bfed82d19e976f4af075b5b887316"),
]


def record(variant: str, seed: int, n: int, not_ready: tuple[int, ...]) -> tuple[list[bytes], list[Recorder], Any]:
    lines: list[bytes] = []
    players = [Recorder(f"p{i}", lines, i not in not_ready) for i in range(n)]
    game = play_game(rules_for(variant), seed, players, bot_seeds=[101 + i for i in range(n)])
    return lines, players, game


@pytest.mark.parametrize("variant, seed, n, not_ready, count, digest", GAMES,
                         ids=[f"{g[0]}-{g[2]}p-seed{g[1]}" for g in GAMES])
def test_the_referee_sends_the_same_bytes_as_before(variant: str, seed: int, n: int, not_ready: tuple[int, ...],
                                                    count: int, digest: str) -> None:
    lines, players, game = record(variant, seed, n, not_ready)
    assert game.void is None
    assert [s.status for s in game.seats] == [Status.PROTOCOL if i in not_ready else Status.OK for i in range(n)]
    assert (len(lines), hashlib.sha256(b"".join(lines)).hexdigest()) == (count, digest)
    kinds = {json.loads(line)["type"] for line in lines}
    assert kinds == {"hello", "decide", "end"}


@pytest.mark.parametrize("variant, seed, n, not_ready", [(g[0], g[1], g[2], g[3]) for g in GAMES],
                         ids=[f"{g[0]}-{g[2]}p-seed{g[1]}" for g in GAMES])
def test_every_line_is_one_protocol_value_and_its_json(variant: str, seed: int, n: int,
                                                       not_ready: tuple[int, ...]) -> None:
    lines, players, game = record(variant, seed, n, not_ready)
    for line in lines:
        value = message_from_json(json.loads(line))
        assert (json.dumps(value.to_json(), separators=(",", ":")) + "\n").encode() == line
    rules = rules_for(variant)
    for seat, player in enumerate(players):
        hello, *rest = player.messages
        assert encode(hello) == encode(old_hello(rules, seat, n, 101 + seat))
        if seat in not_ready:
            assert rest == []  # never asked again, not told the end
            continue
        end = rest[-1]
        statuses = ["protocol" if i in not_ready else "ok" for i in range(n)]
        assert encode(end) == encode(old_end(seat, [s.coins for s in game.seats], [s.rank for s in game.seats],
                                             statuses))
        decides = [m.to_json() for m in rest[:-1]]
        assert [m["id"] for m in decides] == sorted(m["id"] for m in decides)  # ids grow across the table
        assert all(type(message_from_json(m)) is DecideMessage and m["time_left_ms"] == 1234.5 for m in decides)


def old_hello(rules: Rules, seat: int, n: int, bot_seed: int) -> dict[str, Any]:
    """The referee's hello as it was written before (a dict literal), with the default limits."""
    limits = Limits()
    return {
        "type": "hello", "protocol": 1, "seat": seat, "players": n,
        "seats": [seat_label(k) for k in range(n)],
        "rules": rules.to_json(), "bot_seed": bot_seed,
        "limits": {"decision_ms": limits.decision_ms, "bank_ms": limits.bank_ms},
    }


def old_end(seat: int, coins: list[int], ranks: list[int], statuses: list[str]) -> dict[str, Any]:
    return {"type": "end", "seat": seat, "coins": list(coins), "ranks": list(ranks), "statuses": statuses}


# ------------------------------------------------------------------ docs/protocol.md
def doc_block(start: str) -> str:
    """The JSON example of docs/protocol.md that starts with ``start``."""
    match = re.search(r"^```json\n(" + re.escape(start) + r".*?)^```", PROTOCOL_DOC, re.MULTILINE | re.DOTALL)
    assert match, f"no example starting {start!r} in docs/protocol.md"
    return match.group(1)


def top_level_keys(text: str) -> list[str]:
    """The keys of the outermost object of a JSON-like example (its elisions ``…`` allowed)."""
    keys, depth = [], 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"\s*:|[\[\]{}]', text):
        bracket = token.group(0)
        if bracket in "[{":
            depth += 1
        elif bracket in "]}":
            depth -= 1
        elif depth == 1:
            keys.append(json.loads(bracket.rstrip(": \n")))
    return keys


def test_the_documented_examples_have_the_wire_order_of_the_values() -> None:
    hello = HelloMessage(0, 3, ("seat0", "seat1", "seat2"), classic_rules().to_json(), 1, TimeLimits(1000.0, 10000.0))
    assert top_level_keys(doc_block('{"type": "hello"')) == list(hello.to_json())
    decide = DecideMessage(83, "plant_first", {}, (), (), 11000.0)
    assert top_level_keys(doc_block('{"type": "decide"')) == list(decide.to_json())
    end_text = doc_block('{"type": "end"')
    end = EndMessage.from_json(json.loads(end_text))
    assert json.dumps(end.to_json()) == end_text.strip()  # the example is the value's JSON, byte for byte
    ready = re.search(r"Reply: `(\{.*?\})`", PROTOCOL_DOC)
    echoed = re.search(r"echoed in the reply: `(\{.*?\})`", PROTOCOL_DOC)
    assert ready is not None and echoed is not None
    assert ReadyReply.from_json(json.loads(ready.group(1))) == ReadyReply()
    echo = echoed.group(1)
    assert ActionReply.from_json(json.loads(echo)) == ActionReply(83, {"type": "plant", "field": 0})
    assert f"# Bot protocol, version {PROTOCOL_VERSION}" in PROTOCOL_DOC
    assert "`sandbox/protocol.py`" in PROTOCOL_DOC


# ------------------------------------------------------------------ a sandboxed SDK bot
def test_a_sandboxed_sdk_bot_answers_the_values() -> None:
    """The bundle a Python bot gets carries the protocol module its SDK parses with."""
    bundle = bundle_for("sdk_default", "from sandbox.sdk import Bot\n\nclass Default(Bot):\n    pass\n")
    assert bundle.modules["sandbox.protocol"] == (ROOT / "sandbox" / "protocol.py").read_text(encoding="utf-8")
    lines: list[bytes] = []
    recorder = Recorder("r", lines)
    play_game(classic_rules(), 5, [recorder, Recorder("a", lines), Recorder("b", lines)], bot_seeds=[1, 2, 3])
    hello, first = recorder.messages[:2]
    with BotProcess.start(bundle, Limits(startup_ms=20_000, decision_ms=10_000), Tier.PLAIN) as bot:
        assert bot.status is Status.OK, bot.stderr_tail
        ready = bot.request(hello)
        assert ready.status is Status.OK and ReadyReply.from_json(ready.message) == ReadyReply()
        reply = bot.request(first)
        assert reply.status is Status.OK, bot.stderr_tail
        action = ActionReply.from_json(reply.message)
        assert isinstance(first, DecideMessage)
        assert action.id == first.id and action.action in first.to_json()["options"]
