"""sandbox/control.py: the fork server's reports have one JSON form each that round-trips, a malformed
one is a ValueError naming the field and quoting the input, and the runner's own bytes agree."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from sandbox.inside import forks
from sandbox.boot import RUNNER_PARTS
from sandbox.control import FORK_REQUEST, Exited, Forked, report_from_json, report_from_line
from sandbox.protocol import MalformedMessage


@pytest.mark.parametrize("report", [Forked(2), Exited(0), Exited(3), Exited(-9)])
def test_each_report_round_trips(report: Forked | Exited) -> None:
    line = json.dumps(report.to_json(), separators=(",", ":")).encode()
    assert report_from_line(line) == report_from_json(report.to_json()) == report


@pytest.mark.parametrize("line, words", [
    (b"[1]", "must be a JSON object, got [1]"), (b'{"pid":"7"}', "field 'pid' must be an integer, got '7'"),
    (b'{"exit":true}', "field 'exit' must be an integer, got True"), (b"{}", "neither 'pid' nor 'exit'"),
    (b"{", "is not JSON: b'{'"),
])
def test_a_malformed_report_names_what_is_wrong(line: bytes, words: str) -> None:
    with pytest.raises(MalformedMessage) as caught:
        report_from_line(line)
    assert words in str(caught.value)


def test_the_runner_writes_the_reports_as_the_module_encodes_them() -> None:
    source = (RUNNER_PARTS[3]).read_text(encoding="utf-8")
    assert RUNNER_PARTS[3] == Path(forks.__file__)
    said = {node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, bytes) and b"%d" in node.value}
    assert said == {json.dumps(Forked(0).to_json(), separators=(",", ":")).replace("0", "%d").encode() + b"\n",
                    json.dumps(Exited(0).to_json(), separators=(",", ":")).replace("0", "%d").encode() + b"\n"}
    assert len(FORK_REQUEST) == 1  # the template reads one byte with the descriptors
