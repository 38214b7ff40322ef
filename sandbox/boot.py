"""How every bot process starts: the bootstrap in its argv, its environment, the runner's first line,
the modules of its bundle as the boot line carries them, and the limits of a plain-tier program."""
from __future__ import annotations

import binascii
import dataclasses
import functools
import hashlib
import json
import marshal
import math
import re
import subprocess
from pathlib import Path
from typing import Any, Mapping

from .bootline import BootLimits, BootProgram, BotBoot, ForkServerBoot
from .framing import Pipes
from .languages import Program
from .values import PACKAGE_SUFFIX, BotBundle, Limits, SandboxError

#: The bot's own module in a bundle (its file); the other modules are trusted (the SDK, the engine)
BOT_MODULE = "bot"
#: The runner's parts (sandbox/inside/: the code that runs in the bot's process), run in this order in one
#: namespace; the last, sandbox/inside/runner.py, starts it
RUNNER_PARTS = tuple(Path(__file__).with_name("inside") / f"{name}.py"
                     for name in ("output", "confine", "loader", "forks", "runner"))
RUNNER_PATH = RUNNER_PARTS[-1]
#: The only code in argv: read the runner's parts (marshalled code "c..." or source "s...", each in
#: base64, separated by commas) from the first stdin line and run them in one namespace. Nothing
#: secret is ever in argv or the environment.
BOOTSTRAP = (
    "import sys,marshal,binascii;l=sys.stdin.buffer.readline();g={'__name__':'__bohnanza_runner__'};"
    "[exec(marshal.loads(p) if l[:1]==b'c' else compile(p,'<runner>','exec'),g)"
    " for p in map(binascii.a2b_base64,l[1:].split(b','))]"
)
# A fixed hash seed: a bot that iterates over a set of strings or enum members plays the same game
# in every process, so a table replays exactly on any worker (hash randomization would not).
CLEAN_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0"}
#: ``-I`` minus its ``-E``, which would ignore PYTHONHASHSEED: the environment is ours alone anyway.
ISOLATED = ("-s", "-P")


@functools.lru_cache(maxsize=4)
def runner_line(marshalled: bool) -> bytes:
    """The runner as the first stdin line: its parts as marshalled code for the same interpreter, else their source."""
    parts = []
    for path in RUNNER_PARTS:
        source = path.read_bytes()
        if marshalled:
            source = marshal.dumps(compile(source, f"<{path.stem}>", "exec", dont_inherit=True))
        parts.append(binascii.b2a_base64(source, newline=False))
    return (b"c" if marshalled else b"s") + b",".join(parts) + b"\n"


def runner_argv(executable: str, tag: str) -> list[str]:
    """The runner's command line: ``executable`` runs the bootstrap; ``tag`` finds its processes."""
    return [executable, *ISOLATED, "-S", "-B", "-c", f"{BOOTSTRAP}#{tag}"]


def boot_line(boot: BotBoot | ForkServerBoot) -> bytes:
    """The boot line as the runner reads it: compact JSON and a newline."""
    return json.dumps(boot.to_json(), separators=(",", ":")).encode() + b"\n"


def start_runner(cmd: list[str], max_line_bytes: int, max_stderr_bytes: int,
                 pass_fds: tuple[int, ...] = ()) -> tuple[subprocess.Popen[bytes], Pipes]:
    """Start ``cmd`` in its own session with the clean environment, in /, and pipes for its stdio."""
    try:
        popen = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=dict(CLEAN_ENV), cwd="/", close_fds=True, pass_fds=pass_fds,
                                 start_new_session=True, bufsize=0)
    except OSError as exc:
        raise SandboxError(f"cannot start bot process {cmd[0]!r}: {exc}") from exc
    assert popen.stdin and popen.stdout and popen.stderr
    return popen, Pipes(popen.stdin.fileno(), popen.stdout.fileno(), popen.stderr.fileno(), max_line_bytes,
                        max_stderr_bytes)


@functools.lru_cache(maxsize=512)
def module_entry(name: str, source: str, marshalled: bool) -> tuple[str, list[Any]]:
    """Bundle module as [is_package, kind, payload]; trusted modules are compiled once here."""
    is_package = name.endswith(PACKAGE_SUFFIX)
    mod_name = name[: -len(PACKAGE_SUFFIX)] if is_package else name
    if marshalled:
        code = compile(source, f"<bundle:{mod_name}>", "exec", dont_inherit=True)
        return mod_name, [is_package, "code", binascii.b2a_base64(marshal.dumps(code), newline=False).decode("ascii")]
    return mod_name, [is_package, "source", source]


def bundle_modules(modules: Mapping[str, str], marshalled: bool) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for name, source in modules.items():
        mod_name, entry = module_entry(name, source, marshalled)
        out[mod_name] = entry
    for mod_name in list(out):  # parents that were not given become empty packages
        parts = mod_name.split(".")
        for i in range(1, len(parts)):
            parent = ".".join(parts[:i])
            if parent not in out:
                out[parent] = [True, "source", ""]
            elif not out[parent][0]:
                raise ValueError(f"bundle module {parent!r} has submodules, "
                                 f"so it must be named {parent + PACKAGE_SUFFIX!r}")
    if BOT_MODULE in out:
        raise ValueError(f"bundle module name {BOT_MODULE!r} is reserved for the bot itself")
    return out


def start_cpu_seconds(limits: Limits) -> int:
    """The CPU net's soft limit at start, where the referee raises it later: the start-up limit plus
    the margin; ``BotProcess`` raises it before each request to what that request may use."""
    return math.ceil(limits.startup_ms / 1000.0) + int(limits.cpu_seconds)


def game_cpu_seconds(limits: Limits) -> int:
    """All the CPU the time rules can grant a bot in a game, plus the margin: start-up, every decision
    it can be asked at its full limit (``max_decisions``) and its bank."""
    granted_ms = limits.startup_ms + limits.max_decisions * limits.decision_ms + limits.bank_ms
    return math.ceil(granted_ms / 1000.0) + int(limits.cpu_seconds)


def cpu_rlimit(limits: Limits, follows: bool) -> tuple[int, int]:
    """(soft, hard) RLIMIT_CPU at start. The hard limit is the whole game's grant (nobody may raise a
    hard limit later without CAP_SYS_RESOURCE); the soft one starts low when the referee can raise it
    as decisions are granted (``follows``), else it sits just below the hard one."""
    hard = game_cpu_seconds(limits) + 1
    return (start_cpu_seconds(limits) if follows else hard - 1), hard


def limit_child(limits: Limits) -> None:
    """In the forked child before exec: the limits the runner sets for Python bots."""
    import resource

    for res, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, 0),
                       (resource.RLIMIT_AS, limits.memory_mb * 1024 * 1024)):
        resource.setrlimit(res, (value, value))
    resource.setrlimit(resource.RLIMIT_CPU, cpu_rlimit(limits, follows=True))  # same uid as the referee


#: The address space of a threaded runtime (V8 reserves far more than it uses); its memory is
#: limited by RLIMIT_DATA instead, which counts what it makes writable
RUNTIME_ADDRESS_SPACE = 64 << 30
PROGRAM_STACK = 8 << 20


def boot_message(bundle: BotBundle, limits: Limits, marshalled: bool, program: Program | None = None,
                 threads: bool = False, cpu_follows: bool = True) -> BotBoot:
    """The runner's boot line for one bot, before a tier adds its confinement (``isolation.confine``):
    a Python bot with its modules, or a program (sandbox/languages.py) the runner executes."""
    memory = int(limits.memory_mb) * 1024 * 1024
    cpu, cpu_hard = cpu_rlimit(limits, cpu_follows)
    return BotBoot(
        BootLimits(cpu, cpu_hard, RUNTIME_ADDRESS_SPACE if threads else memory, memory if threads else None,
                   int(limits.max_open_files), None,
                   PROGRAM_STACK if program is not None else None),  # a program's main stack is not data either
        bundle_modules(bundle.modules, marshalled) if program is None else {},
        BOT_MODULE,
        bundle.source if program is None else None,
        program=None if program is None else BootProgram(tuple(program.argv), program.native, program.file),
    )


#: The line a runner asked for its bot's code says first (sandbox/inside/runner.py ``_say_code``), then the
#: code (marshalled, base64; empty if none) and ``"}``
CODE_LINE = b'{"type":"code","code":"'
_BASE64 = re.compile(rb"[A-Za-z0-9+/]*={0,2}")
#: a Python bot's code by the digest of its source, as a runner compiled it before any of its code ran
_BOT_CODE: dict[str, str] = {}


def with_bot_code(boot: BotBoot, marshalled: bool, max_line_bytes: int) -> BotBoot:
    """A Python bot's boot line with the code a runner compiled from the same source before (sent instead of
    the source: each start is spared compiling it), or asking this runner for it. Only where marshalled
    code is sent at all (the sandbox runs this interpreter). The code is what the trusted runner said
    before the bot's own code ran: a bot can put nothing in it that its source does not say."""
    if not marshalled or boot.bot is None:
        return boot
    code = _BOT_CODE.get(hashlib.sha256(boot.bot.encode()).hexdigest())
    if code is not None:
        return dataclasses.replace(boot, bot=None, bot_code=code)
    return dataclasses.replace(boot, say_code=max_line_bytes)


def take_code_line(source: str, line: bytes | None) -> bool:
    """Whether ``line`` is the code line of a runner asked for it (the first it says); its code is kept
    for the next start of ``source``."""
    if line is None or not line.startswith(CODE_LINE) or not line.endswith(b'"}'):
        return False
    code = line[len(CODE_LINE):-2]
    if code and _BASE64.fullmatch(code):
        if len(_BOT_CODE) >= 256:
            _BOT_CODE.clear()
        _BOT_CODE[hashlib.sha256(source.encode()).hexdigest()] = code.decode("ascii")
    return True
