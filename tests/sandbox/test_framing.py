"""Framing against a scripted fake transport: plain pipes driven by the test, no bot process."""
from __future__ import annotations

import os
import time
from typing import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.protocol import encode
from sandbox.framing import (Event, FramingError, LineBuffer, Pipes, StderrTail, decode,
                             nesting_depth, splice_lists)


class FakeBot:
    """The bot's ends of three pipes; the test plays the bot by writing/reading them."""

    def __init__(self, max_line: int = 1000, max_err: int = 100) -> None:
        self.req_r, req_w = os.pipe()
        out_r, self.out_w = os.pipe()
        err_r, self.err_w = os.pipe()
        self.pipes = Pipes(req_w, out_r, err_r, max_line, max_err)
        self._fds = [self.req_r, req_w, out_r, self.out_w, err_r, self.err_w]

    def close(self) -> None:
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass


@pytest.fixture
def fake() -> Iterator[FakeBot]:
    bot = FakeBot()
    yield bot
    bot.close()


def soon(seconds: float = 2.0) -> float:
    return time.monotonic() + seconds


def test_encode_is_one_compact_line() -> None:
    assert encode({"type": "decide", "a": [1, 2]}) == b'{"type":"decide","a":[1,2]}\n'


def test_encode_rejects_nan() -> None:
    with pytest.raises(ValueError):
        encode({"x": float("nan")})


@pytest.mark.parametrize("line, words", [(b"abc", "invalid JSON: 'abc'"), (b"[1,2]", "not a JSON object"),
                                         (b"\xff\xfe", "invalid JSON")])
def test_decode_rejects_with_quoted_input(line: bytes, words: str) -> None:
    with pytest.raises(FramingError, match=words.replace("[", r"\[")):
        decode(line)


@given(st.dictionaries(st.text(), st.one_of(st.integers(), st.text(), st.booleans(), st.none())))
def test_encode_decode_round_trip(message: dict) -> None:
    assert decode(encode(message)[:-1]) == message


def test_line_buffer_splits_lines_and_caps_length() -> None:
    buf = LineBuffer(5)
    buf.feed(b"ab\ncd")
    assert buf.pop_line() == b"ab" and buf.pop_line() is None and not buf.overflow
    buf.feed(b"efgh")
    assert buf.overflow


def test_stderr_tail_keeps_only_the_end() -> None:
    tail = StderrTail(4)
    tail.feed(b"hello ")
    tail.feed(b"world")
    assert tail.text() == "orld" and tail.total == 11


def test_exchange_returns_the_reply_line(fake: FakeBot) -> None:
    os.write(fake.out_w, b'{"ok":1}\n')
    out = fake.pipes.exchange(b'{"q":1}\n', soon(), want_line=True)
    assert out.event is Event.LINE and out.line == b'{"ok":1}'
    assert os.read(fake.req_r, 100) == b'{"q":1}\n'


def test_exchange_times_out_without_reply(fake: FakeBot) -> None:
    out = fake.pipes.exchange(b"{}\n", time.monotonic() + 0.05, want_line=True)
    assert out.event is Event.TIMEOUT and out.line is None


def test_two_lines_are_extra(fake: FakeBot) -> None:
    os.write(fake.out_w, b'{"a":1}\n{"b":2}\n')
    assert fake.pipes.exchange(b"{}\n", soon(), want_line=True).event is Event.EXTRA


def test_huge_line_without_newline_overflows(fake: FakeBot) -> None:
    os.write(fake.out_w, b"x" * 1500)
    assert fake.pipes.exchange(b"{}\n", soon(), want_line=True).event is Event.OVERFLOW
    assert fake.pipes.lines.pending < 70_000  # bounded by what was read, not by the bot's output


def test_eof_is_reported(fake: FakeBot) -> None:
    os.close(fake.out_w)
    assert fake.pipes.exchange(b"{}\n", soon(), want_line=True).event is Event.EOF


def test_stderr_is_drained_while_waiting(fake: FakeBot) -> None:
    os.set_blocking(fake.err_w, False)
    written = 0
    try:
        while True:
            written += os.write(fake.err_w, b"e" * 4096)
    except BlockingIOError:
        pass  # the pipe is full: a real bot would now block
    os.write(fake.out_w, b"{}\n")
    out = fake.pipes.exchange(b"{}\n", soon(), want_line=True)
    assert out.event is Event.LINE
    assert fake.pipes.err.total > 0 and len(fake.pipes.err.text()) <= 100


def test_big_request_to_a_bot_that_does_not_read_times_out(fake: FakeBot) -> None:
    out = fake.pipes.exchange(b"x" * 1_000_000 + b"\n", time.monotonic() + 0.1, want_line=True)
    assert out.event is Event.TIMEOUT


def test_unsolicited_output_is_seen_before_a_request(fake: FakeBot) -> None:
    assert not fake.pipes.stdout_has_data()
    os.write(fake.out_w, b'{"late":1}\n')
    assert fake.pipes.stdout_has_data()


@pytest.mark.parametrize("line", [
    b"[" * 200_000 + b"]" * 200_000,
    b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    b'{"id":1,"action":{"want":' + b"[" * 17 + b"]" * 17 + b"}}",
])
def test_decode_refuses_deep_nesting_before_the_decoder(line: bytes) -> None:
    with pytest.raises(FramingError, match="nested deeper than 16 levels"):
        decode(line)


def test_decode_accepts_brackets_inside_strings_and_nesting_up_to_the_limit() -> None:
    assert decode(b'{"a":"' + b"[" * 500 + b'"}') == {"a": "[" * 500}
    assert nesting_depth(b'{"a":' + b"[" * 15 + b"]" * 15 + b"}") == 16
    value = decode(b'{"a":' + b"[" * 15 + b"]" * 15 + b"}")["a"]
    for _ in range(14):
        value = value[0]
    assert value == []


@pytest.mark.parametrize("line", [b'{"x":' + b"9" * 5000 + b"}", b"\xff", b'{"x":"\\ud800"}' + b"\x00"])
def test_decode_turns_any_decoder_failure_into_a_framing_error(line: bytes) -> None:
    with pytest.raises(FramingError):
        decode(line)


_JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                            lambda inner: st.lists(inner, max_size=3)
                            | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                            max_leaves=8)


@given(st.dictionaries(st.text(max_size=4), _JSON_VALUES, max_size=4), st.lists(_JSON_VALUES, max_size=4),
       st.text(max_size=4), st.integers(min_value=0, max_value=4))
def test_a_spliced_line_is_exactly_the_json_of_the_message(others: dict, items: list, key: str, at: int) -> None:
    import json

    others.pop(key, None)
    keys = list(others)
    order = keys[:at] + [key] + keys[at:]
    message = {k: (None if k == key else others[k]) for k in order}
    texts = [json.dumps(item, separators=(",", ":")) for item in items]
    expected = {k: (items if k == key else others[k]) for k in order}
    assert splice_lists(message, {key: texts}) == json.dumps(expected, separators=(",", ":"))


@given(st.dictionaries(st.text(max_size=4), _JSON_VALUES, max_size=5), st.lists(st.lists(_JSON_VALUES, max_size=3),
       max_size=3), st.integers(min_value=0, max_value=5))
def test_lists_spliced_anywhere_are_exactly_the_json_of_the_message(message: dict, lists: list, seed: int) -> None:
    import json
    import random

    keys = list(message)
    random.Random(seed).shuffle(keys)
    spliced = dict(zip(keys, lists))  # some keys (none, one, several, side by side or not) get a list of texts
    texts = {k: [json.dumps(item, separators=(",", ":")) for item in items] for k, items in spliced.items()}
    expected = {k: spliced.get(k, v) for k, v in message.items()}
    assert splice_lists(message, texts) == json.dumps(expected, separators=(",", ":"))
