"""How every bot process starts: the bootstrap in its argv, its environment, the runner's first line."""
from __future__ import annotations

import binascii
import functools
import marshal
from pathlib import Path

RUNNER_PATH = Path(__file__).with_name("runner.py")
#: The only code in argv: read the runner (marshalled code "c..." or source "s...", base64) from
#: the first stdin line and run it. Nothing secret is ever in argv or the environment.
BOOTSTRAP = (
    "import sys,marshal,binascii;i=sys.stdin.buffer;l=i.readline();b=binascii.a2b_base64(l[1:]);"
    "exec(marshal.loads(b) if l[:1]==b'c' else compile(b,'<runner>','exec'),"
    "{'__name__':'__bohnanza_runner__','STDIN':i})"
)
# A fixed hash seed: a bot that iterates over a set of strings or enum members plays the same game
# in every process, so a table replays exactly on any worker (hash randomization would not).
CLEAN_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0"}
#: ``-I`` minus its ``-E``, which would ignore PYTHONHASHSEED: the environment is ours alone anyway.
ISOLATED = ("-s", "-P")


@functools.lru_cache(maxsize=4)
def runner_line(marshalled: bool) -> bytes:
    """The runner as the first stdin line: marshalled code for the same interpreter, else its source."""
    source = RUNNER_PATH.read_bytes()
    if marshalled:
        code = compile(source, "<runner>", "exec", dont_inherit=True)
        return b"c" + binascii.b2a_base64(marshal.dumps(code), newline=False) + b"\n"
    return b"s" + binascii.b2a_base64(source, newline=False) + b"\n"
