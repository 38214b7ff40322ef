"""The languages a bot may be written in: how its file is recognised, built and run in the sandbox.

Python bots are imported by the runner itself. A bot in another language is a *program*: the runner
sets up the same confinement, then replaces itself with the program (``execve``), which speaks the
protocol of docs/protocol.md on its stdin and stdout. A compiled language is built once per source,
by its compiler in a sandbox of its own (no network, nothing of the machine's but ``/usr``).
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .isolation import bwrap_path, system_binds
from .values import SandboxError

__all__ = ["Language", "LANGUAGES", "PYTHON", "language_named", "language_of_file", "BuildError", "Program",
           "program_for", "runtime_problem"]

#: Where the program's file is inside the sandbox: the runner's memory file, at descriptor 3.
PROGRAM_FD = 3
BUILD_TIMEOUT_S = 60.0
MAX_PROGRAM_BYTES = 8 * 1024 * 1024  # the program travels in the boot line of every game
BUILD_WORDS = 3000  # the end of the compiler's messages, kept for the author


class BuildError(ValueError):
    """The bot's source does not build; the message carries the compiler's own words."""


@dataclass(frozen=True)
class Language:
    """One language: its name (as stored with a bot version), file extensions, the Debian package
    that brings its tools, the command that runs a program (``{program}`` is the program's file, or
    empty for a native executable) and, for a compiled language, the build command (``{source}`` and
    ``{output}``)."""

    name: str
    extensions: tuple[str, ...]
    package: str
    run: tuple[str, ...] = ()
    build: tuple[str, ...] = ()
    #: threads of its own (a runtime like V8): clone is allowed for threads, and every thread's CPU
    #: time counts toward the bot's time (docs/sandbox.md, "Programs")
    threads: bool = False

    @property
    def is_python(self) -> bool:
        return self.name == "python"

    @property
    def tool(self) -> str | None:
        """The executable this language needs on the machine (the runtime or the compiler)."""
        if self.run:
            return self.run[0]
        if self.build:
            return self.build[0]
        return None


#: A loader given to node with ``-e``: the bot's source is the file at descriptor 3, compiled as the
#: CommonJS module /bot.js (so ``require`` of node's own modules works); nothing else is read.
_NODE_LOADER = ("const M=require('module');const m=new M('/bot.js',null);m.filename='/bot.js';m.paths=[];"
                "m._compile(require('fs').readFileSync(%d,'utf8'),'/bot.js')" % PROGRAM_FD)

PYTHON = Language("python", (".py",), "python3")
LANGUAGES: tuple[Language, ...] = (
    PYTHON,
    Language("javascript", (".js", ".cjs"), "nodejs",
             run=("node", "--max-old-space-size={heap_mb}", "--max-semi-space-size=8", "--v8-pool-size=1",
                  "-e", _NODE_LOADER),
             threads=True),
    Language("c", (".c",), "gcc",
             build=("gcc", "-O2", "-std=gnu17", "-fmax-errors=20", "-o", "{output}", "{source}", "-lm")),
)


def language_named(name: str) -> Language:
    for language in LANGUAGES:
        if language.name == name:
            return language
    known = ", ".join(language.name for language in LANGUAGES)
    raise ValueError(f"unknown bot language {name!r} (known: {known})")


def language_of_file(filename: str) -> Language | None:
    """The language a file's extension names, or None."""
    suffix = Path(filename).suffix.lower()
    for language in LANGUAGES:
        if suffix in language.extensions:
            return language
    return None


@functools.lru_cache(maxsize=8)
def _installed(tool: str) -> str | None:
    """Where ``tool`` is (its real path), looked up once per process: every game of a program asks."""
    found = shutil.which(tool)
    return os.path.realpath(found) if found else None


def runtime_problem(language: Language) -> str | None:
    """Why bots in ``language`` cannot run here (its tool is missing), or None."""
    tool = language.tool
    if language.is_python or tool is None or _installed(tool):
        return None
    return f"{language.name} bots need {tool!r} (Debian package {language.package!r}), which is not installed"


@dataclass(frozen=True)
class Program:
    """What the runner executes for a non-Python bot: argv (the first item a path inside the sandbox,
    or "" for the file itself), the file's bytes, and the host paths to bind read-only."""

    argv: tuple[str, ...]
    file: bytes
    binds: tuple[str, ...]
    native: bool  # the file itself is executed


def program_for(language: Language, source: str, memory_mb: int, sandboxed: bool = True) -> Program:
    """The program of a bot's source: interpreted as it is, or built once (cached by its source;
    ``sandboxed`` False, for the plain tier, builds without bubblewrap if it is missing)."""
    problem = runtime_problem(language)
    if problem is not None:
        raise SandboxError(problem)
    if language.build:
        return Program(("bot",), build(language, source, sandboxed), (), True)
    runtime = _installed(language.run[0]) or language.run[0]
    argv = tuple(part.format(heap_mb=max(16, memory_mb * 3 // 4)) if "{heap_mb}" in part else part
                 for part in language.run[1:])
    return Program((runtime, *argv), source.encode("utf-8"), (runtime,), False)


def build(language: Language, source: str, sandboxed: bool = True) -> bytes:
    """The built program of ``source`` (a compiled language), from the cache or the compiler."""
    built = _build(language.name, source, sandboxed)
    if isinstance(built, str):
        raise BuildError(built)
    return built


@functools.lru_cache(maxsize=64)
def _build(name: str, source: str, sandboxed: bool) -> bytes | str:
    """The program, or why it did not build (a failure is cached too: a source that fails, or takes
    the whole time limit, does so once per process, not once per game). The compiler runs in a sandbox
    of its own: bubblewrap with no network, ``/usr`` read-only, an empty /tmp and the build folder; no
    capability; no standard input (it is the operator's terminal); limits on CPU, memory, file size and
    time; its messages go to a file (bounded by the file size limit) of which the tail is kept. (The
    source could name any file the compiler can read, ``#include`` or ``.incbin``, and its program, or
    the compiler's error, would print it.)"""
    language = language_named(name)
    bwrap = bwrap_path()
    if bwrap is None and sandboxed:
        raise SandboxError("building a compiled bot needs bwrap (Debian package 'bubblewrap')")
    with tempfile.TemporaryDirectory(prefix="arena-build-") as folder, tempfile.TemporaryFile() as words:
        os.chmod(folder, 0o755)
        src = Path(folder, "bot" + language.extensions[0])
        src.write_text(source, encoding="utf-8")
        where = "/build" if bwrap is not None else folder  # the plain tier's build is not confined either
        argv = [part.format(source=f"{where}/{src.name}", output=f"{where}/bot") for part in language.build]
        cmd = argv if bwrap is None else [
            bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--ro-bind", "/usr", "/usr", *system_binds(("/bin", "/sbin", "/lib", "/lib64", "/lib32")),
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", folder, "/build", "--chdir", "/build",
            "--", *argv]
        try:
            done = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=words, stderr=words, timeout=BUILD_TIMEOUT_S,
                                  preexec_fn=_build_limits,
                                  env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TMPDIR": "/tmp"})
        except subprocess.TimeoutExpired:
            return f"the {name} build took longer than {BUILD_TIMEOUT_S:g} s"
        except OSError as exc:
            raise SandboxError(f"cannot run the {name} build: {exc}") from None
        output = Path(folder, "bot")
        if done.returncode != 0 or not output.is_file():
            size = words.seek(0, os.SEEK_END)
            words.seek(max(0, size - BUILD_WORDS))
            tail = words.read().decode("utf-8", "replace").strip()
            return f"the {name} build failed:\n{'…' if size > BUILD_WORDS else ''}{tail}"
        if output.stat().st_size > MAX_PROGRAM_BYTES:
            return f"the built program is {output.stat().st_size} bytes; the limit is {MAX_PROGRAM_BYTES}"
        return output.read_bytes()


def _build_limits() -> None:
    import resource

    for res, value in ((resource.RLIMIT_CPU, int(BUILD_TIMEOUT_S)), (resource.RLIMIT_AS, 2 << 30),
                       (resource.RLIMIT_FSIZE, 64 << 20), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(res, (value, value))
