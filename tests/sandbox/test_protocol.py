"""sandbox/protocol.py and sandbox/bootline.py: every message and reply, and the runner's boot line,
has one JSON form that round-trips; a malformed one is a ValueError naming the field and quoting the
input; the runner's own copy of the codec (it imports nothing) agrees with the module."""
from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any, Callable

import pytest

import sandbox.sdk as sdk
from engine import classic_rules, event_to_json, new_game
from sandbox.inside import runner
from sandbox.bootline import BootLimits, BootProgram, BotBoot, ForkServerBoot
from sandbox.protocol import (
    MESSAGE_TYPES, PROTOCOL_VERSION, READY_LINE, ActionReply, DecideMessage, EndMessage, HelloMessage, JSONText,
    JSONTexts, MalformedMessage, ReadyReply, TimeLimits, dumps, encode, message_from_json,
)

RUNNER = Path(runner.__file__)


def compact(data: object) -> str:
    return json.dumps(data, separators=(",", ":"))


def real_hello() -> HelloMessage:
    return HelloMessage(1, 3, ("seat0", "seat1", "seat2"), classic_rules().to_json(), 3973660580064430706,
                        TimeLimits(1000.0, 10000.0))


def real_decide() -> DecideMessage:
    game = new_game(classic_rules(), 3, 5)
    decision = game.decision
    assert decision is not None
    return DecideMessage(83, decision.kind.value, game.view_json(decision.seat),
                         tuple(event_to_json(e) for e in game.events), tuple(decision.to_json()["options"]), 11000.0)


def real_boot() -> BotBoot:
    return BotBoot(BootLimits(125, 2136, 536870912, None, 32, 1, None), {"sandbox": [True, "source", ""]}, "bot",
                   "def act(m):\n    return {}\n", b"\x20\x00\x00\x00", 70001, 70001, None,
                   BootProgram(("", "x"), True, b"\x7fELF\x00\xff"), drop_caps=True, seal_mounts=True)


VALUES: dict[str, Callable[[], Any]] = {
    "hello": real_hello,
    "hello-without-optional": lambda: HelloMessage(0, 2, (), {"id": "duel-v1"}, 7, None),
    "time-limits-partial": lambda: TimeLimits(decision_ms=250),
    "decide": real_decide,
    "end": lambda: EndMessage(0, (12, 9, 9), (1, 2, 2), ("ok", "ok", "timeout")),
    "ready": ReadyReply,
    "action": lambda: ActionReply(83, {"type": "plant", "field": 0}),
    "boot-limits": lambda: BootLimits(1, 2, 3, 4, 5, None, 7),
    "boot-program": lambda: BootProgram(("/usr/bin/node", "/dev/fd/3"), False, bytes(range(256))),
    "bot-boot": real_boot,
    "bot-boot-forked-plain": lambda: BotBoot(BootLimits(1, 2, 3, None, 32, None, None), None, "bot", "x = 1\n",
                                             parent=4321),
    "fork-server-boot": lambda: ForkServerBoot(5, {"engine": [True, "code", "AAAA"]}, ("engine", "sandbox.sdk"),
                                               True, False),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_every_value_round_trips_through_its_json_text(name: str) -> None:
    value = VALUES[name]()
    text = compact(value.to_json())
    again = type(value).from_json(json.loads(text))
    assert again == value
    assert compact(again.to_json()) == text  # one JSON form, keys in the same order


def test_a_message_of_texts_written_once_is_the_same_line_and_the_same_json() -> None:
    """A decide message holding its view, events and options as texts (what the referee sends) encodes to the line
    of the same message holding their values, and reads them back as those values."""
    plain = real_decide()
    texts = DecideMessage(plain.id, plain.kind, JSONText(dumps(plain.view)),
                          tuple(JSONText(dumps(e), dict(e)) for e in plain.events),
                          JSONTexts(JSONText(dumps(o)) for o in plain.options), plain.time_left_ms)
    assert encode(texts) == encode(plain) == (compact(plain.to_json()) + "\n").encode()
    assert texts.to_json() == plain.to_json() and texts.view == plain.view
    assert encode({"type": "x", "n": [1]}) == b'{"type":"x","n":[1]}\n' and dumps("é") == '"\\u00e9"'


def test_the_json_forms_have_the_documented_keys_in_wire_order() -> None:
    assert list(real_hello().to_json()) == ["type", "protocol", "seat", "players", "seats", "rules", "bot_seed",
                                            "limits"]
    assert list(real_decide().to_json()) == ["type", "id", "kind", "view", "events", "options", "time_left_ms"]
    assert list(VALUES["end"]().to_json()) == ["type", "seat", "coins", "ranks", "statuses"]
    assert ReadyReply().to_json() == {"type": "ready"}
    assert list(VALUES["action"]().to_json()) == ["id", "action"]
    assert real_hello().to_json()["protocol"] == PROTOCOL_VERSION == 1


def test_a_message_parses_by_its_type() -> None:
    for value in (real_hello(), real_decide(), VALUES["end"]()):
        assert message_from_json(json.loads(compact(value.to_json()))) == value
    assert set(MESSAGE_TYPES) == {"hello", "decide", "end"}
    with pytest.raises(MalformedMessage, match=r"unknown message type 'bye'.*known: hello, decide, end"):
        message_from_json({"type": "bye"})


def test_fields_left_out_by_older_senders_take_their_defaults() -> None:
    """The SDK always took these as optional; the referee always sends them."""
    hello = HelloMessage.from_json({"type": "hello", "seat": 0, "players": 3, "rules": {}, "bot_seed": 1})
    assert (hello.seats, hello.limits, hello.protocol) == ((), None, PROTOCOL_VERSION)
    assert "limits" not in hello.to_json()
    assert HelloMessage.from_json({**hello.to_json(), "limits": {}}).limits == TimeLimits(None, None)
    decide = DecideMessage.from_json({"type": "decide", "id": 1, "kind": "plant_first", "view": {}, "options": []})
    assert (decide.events, decide.time_left_ms) == ((), 0.0)
    assert DecideMessage.from_json({**decide.to_json(), "later": [1]}) == decide  # unknown keys are ignored


HELLO = {"type": "hello", "protocol": 1, "seat": 0, "players": 3, "seats": ["seat0", "seat1", "seat2"],
         "rules": {"id": "classic-v3"}, "bot_seed": 5, "limits": {"decision_ms": 1000.0, "bank_ms": 10000.0}}
DECIDE = {"type": "decide", "id": 83, "kind": "plant_first", "view": {"seat": 0}, "events": [],
          "options": [{"type": "plant", "field": 0}], "time_left_ms": 11000.0}
END = {"type": "end", "seat": 0, "coins": [12, 9, 9], "ranks": [1, 2, 2], "statuses": ["ok", "ok", "timeout"]}
BOOT = real_boot().to_json()
FORK = VALUES["fork-server-boot"]().to_json()


def without(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != key}


MISSING = object()

# (parser, input, the field the error must name, the bad value it must quote or MISSING)
MALFORMED: list[tuple[Callable[[Any], Any], Any, str, Any]] = [
    (HelloMessage.from_json, without(HELLO, "seat"), "seat", MISSING),
    (HelloMessage.from_json, {**HELLO, "seat": "0"}, "seat", "0"),
    (HelloMessage.from_json, {**HELLO, "players": True}, "players", True),
    (HelloMessage.from_json, {**HELLO, "rules": ["classic"]}, "rules", ["classic"]),
    (HelloMessage.from_json, {**HELLO, "seats": ["seat0", 1]}, "seats", ["seat0", 1]),
    (HelloMessage.from_json, {**HELLO, "bot_seed": 1.5}, "bot_seed", 1.5),
    (HelloMessage.from_json, {**HELLO, "limits": {"decision_ms": "fast"}}, "decision_ms", "fast"),
    (HelloMessage.from_json, {**HELLO, "limits": [1000]}, "limits", [1000]),
    (HelloMessage.from_json, {**HELLO, "type": "helo"}, "type", "helo"),
    (HelloMessage.from_json, {**HELLO, "protocol": "1"}, "protocol", "1"),
    (DecideMessage.from_json, {**DECIDE, "id": "83"}, "id", "83"),
    (DecideMessage.from_json, {**DECIDE, "kind": 3}, "kind", 3),
    (DecideMessage.from_json, {**DECIDE, "view": None}, "view", None),
    (DecideMessage.from_json, {**DECIDE, "events": [7]}, "events", [7]),
    (DecideMessage.from_json, without(DECIDE, "options"), "options", MISSING),
    (DecideMessage.from_json, {**DECIDE, "options": {"type": "pass"}}, "options", {"type": "pass"}),
    (DecideMessage.from_json, {**DECIDE, "time_left_ms": "soon"}, "time_left_ms", "soon"),
    (DecideMessage.from_json, HELLO, "type", "hello"),
    (EndMessage.from_json, without(END, "seat"), "seat", MISSING),
    (EndMessage.from_json, {**END, "coins": ["12", 9, 9]}, "coins", ["12", 9, 9]),
    (EndMessage.from_json, {**END, "ranks": None}, "ranks", None),
    (EndMessage.from_json, {**END, "statuses": ["ok", None, "ok"]}, "statuses", ["ok", None, "ok"]),
    (ReadyReply.from_json, {"type": "steady"}, "type", "steady"),
    (ActionReply.from_json, {"id": "83", "action": {"type": "pass"}}, "id", "83"),
    (ActionReply.from_json, {"id": 83, "action": "pass"}, "action", "pass"),
    (ActionReply.from_json, {"action": {"type": "pass"}}, "id", MISSING),
    (BotBoot.from_json, {**BOOT, "limits": {**BOOT["limits"], "cpu": "1"}}, "cpu", "1"),
    (BotBoot.from_json, {**BOOT, "limits": {**BOOT["limits"], "nofile": None}}, "nofile", None),
    (BotBoot.from_json, {**BOOT, "seccomp": "not base64!"}, "seccomp", "not base64!"),
    (BotBoot.from_json, {**BOOT, "program": {**BOOT["program"], "native": "yes"}}, "native", "yes"),
    (BotBoot.from_json, {**BOOT, "modules": ["engine"]}, "modules", ["engine"]),
    (BotBoot.from_json, {**BOOT, "uid": "root"}, "uid", "root"),
    (BotBoot.from_json, without(BOOT, "bot_module"), "bot_module", MISSING),
    (ForkServerBoot.from_json, {**FORK, "fork_server": False}, "fork_server", False),
    (ForkServerBoot.from_json, {**FORK, "preload": "engine"}, "preload", "engine"),
]


@pytest.mark.parametrize("parse, data, field, bad", MALFORMED,
                         ids=[f"{p.__qualname__.split('.')[0]}-{f}-{i}" for i, (p, _, f, _) in enumerate(MALFORMED)])
def test_a_malformed_message_names_the_field_and_quotes_the_input(parse: Callable[[Any], Any], data: Any,
                                                                  field: str, bad: Any) -> None:
    with pytest.raises(MalformedMessage) as caught:
        parse(data)
    text = str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert repr(field) in text, text
    if bad is MISSING:
        assert "lacks field" in text, text
    else:
        assert repr(bad) in text, text
    if bad is MISSING or field in data:  # a field of the message itself: the message is quoted, from its start
        assert repr(data)[:40] in text, text


@pytest.mark.parametrize("parse", [HelloMessage.from_json, DecideMessage.from_json, EndMessage.from_json,
                                   ReadyReply.from_json, ActionReply.from_json, BotBoot.from_json,
                                   ForkServerBoot.from_json, message_from_json])
@pytest.mark.parametrize("data", [["type", "hello"], "hello", None, 3])
def test_a_message_that_is_no_object_is_refused_with_its_text(parse: Callable[[Any], Any], data: Any) -> None:
    with pytest.raises(MalformedMessage, match="must be a JSON object, got " + repr(data).replace("[", r"\[")):
        parse(data)


def test_an_error_quotes_a_long_message_clipped() -> None:
    huge = {**DECIDE, "id": None, "view": {"pad": "x" * 100_000}}
    with pytest.raises(MalformedMessage) as caught:
        DecideMessage.from_json(huge)
    assert "'id'" in str(caught.value) and len(str(caught.value)) < 600


# ------------------------------------------------------------------ the SDK parses with the module
def test_the_sdk_speaks_through_the_module() -> None:
    assert sdk.PROTOCOL_VERSION is PROTOCOL_VERSION
    bot = sdk.Bot()
    assert ReadyReply.from_json(bot.act(real_hello().to_json())) == ReadyReply()
    assert (bot.seat, bot.players) == (1, 3)
    decide = real_decide()
    reply = ActionReply.from_json(bot.act(decide.to_json()))
    assert reply.id == 83 and reply.action in decide.options
    with pytest.raises(MalformedMessage, match="'bot_seed'"):
        sdk.Hello.from_json({**real_hello().to_json(), "bot_seed": "7"})
    with pytest.raises(MalformedMessage, match="'options'"):
        sdk.Request.from_json(without(decide.to_json(), "options"))


def test_the_sdk_hello_keeps_its_fields() -> None:
    hello = sdk.Hello.from_json(real_hello().to_json())
    assert (hello.seat, hello.players, hello.bot_seed, hello.seats, hello.protocol) == (
        1, 3, 3973660580064430706, ("seat0", "seat1", "seat2"), PROTOCOL_VERSION)
    assert hello.rules == classic_rules() and hello.limits == {"decision_ms": 1000.0, "bank_ms": 10000.0}
    assert sdk.Hello.from_json(HelloMessage(0, 2, (), classic_rules().to_json(), 1, None).to_json()).limits == {}


# ------------------------------------------------------------------ the runner's copy of the codec
def test_the_runner_answers_the_messages_that_expect_a_reply() -> None:
    replied = tuple(kind for kind, cls in MESSAGE_TYPES.items() if cls.EXPECTS_REPLY)
    assert runner.REPLY_TYPES == replied == ("hello", "decide")


def test_the_runner_says_ready_as_the_module_does() -> None:
    assert READY_LINE == compact(ReadyReply().to_json()).encode()
    said = [node.value for node in ast.walk(ast.parse(RUNNER.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, bytes) and b"ready" in node.value]
    assert said == [READY_LINE + b"\n"] * 3  # the fork server, a Python bot, a program


def runner_reads() -> set[str]:
    """The keys the runner reads from a boot line (``boot``), its limits (``lim``) and program (``program``)."""
    keys: set[str] = set()
    for node in ast.walk(ast.parse(RUNNER.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            target, key = node.value.id, node.slice
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop")
              and isinstance(node.func.value, ast.Name) and node.args):
            target, key = node.func.value.id, node.args[0]
        else:
            continue
        if target in ("boot", "lim", "run", "program") and isinstance(key, ast.Constant) and isinstance(key.value, str):
            keys.add(key.value)
    return keys


def test_the_runner_reads_only_what_the_boot_line_values_write() -> None:
    written = set(real_boot().to_json()) | set(real_boot().limits.to_json()) | set(FORK)
    written |= set(BootProgram((), False, b"").to_json())
    reads = runner_reads()
    assert {"fork_server", "modules", "seccomp", "as", "cpu", "argv", "native", "file"} <= reads  # the walk finds them
    assert reads - written == {"fd"}  # the one key the runner adds itself (its program's memory file)
    constants = {node.value for node in ast.walk(ast.parse(RUNNER.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert written - constants == set()  # and nothing is written that the runner never names


def test_the_runner_decodes_the_boot_lines_as_the_module_encodes_them() -> None:
    loads, dumps = runner._json_codec()
    for value in (real_boot(), VALUES["fork-server-boot"](), VALUES["bot-boot-forked-plain"]()):
        line = compact(value.to_json())
        assert type(value).from_json(loads(line)) == value
        assert dumps(value.to_json()) == line
