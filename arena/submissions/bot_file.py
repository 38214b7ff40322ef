"""A bot file as uploaded: read safely from disk, its text and language checked, a compiled bot built."""
from __future__ import annotations

import ast
import errno
import os
import stat
from pathlib import Path

from arena.submissions.errors import SubmissionError
from sandbox.isolation import bwrap_path
from sandbox.languages import LANGUAGES, PYTHON, BuildError, build, language_of_file, runtime_problem

MAX_BOT_BYTES = 256 * 1024


def read_bot_file(path: str | Path, limit: int = MAX_BOT_BYTES) -> bytes:
    """The bytes of the bot file at ``path``, at most ``limit``: a symbolic link, a FIFO, a device or a
    folder is refused before it is read, and no more than ``limit`` + 1 bytes are ever read."""
    shown = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SubmissionError(f"{shown!r} is a symbolic link; give the bot file itself") from None
        if exc.errno == errno.ENOENT:
            raise SubmissionError(f"no such file: {shown!r}") from None
        raise SubmissionError(f"cannot read {shown!r}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode)
                    else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                    else "not a regular file")
            raise SubmissionError(f"{shown!r} is {kind}, not a bot file")
        if info.st_size > limit:
            raise SubmissionError(f"{shown!r} is {info.st_size} bytes; the limit is {limit}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # a file that grows after fstat still stops at limit + 1
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise SubmissionError(f"{shown!r} is more than {limit} bytes; the limit is {limit}")
        return b"".join(chunks)
    except OSError as exc:
        raise SubmissionError(f"cannot read {shown!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_bot(data: bytes, filename: str) -> tuple[str, str]:
    """(source, language) of a bot file, its language named by its extension (sandbox/languages.py):
    a Python file is checked by ``check_source``; a compiled language's file is built now, so that a
    build error is the submission's one line; a language whose tools are missing is refused."""
    language = language_of_file(filename)
    if language is None or language.is_python:
        return check_source(data, filename), PYTHON.name
    source = _text(data, filename)
    problem = runtime_problem(language)
    if problem is not None:
        raise SubmissionError(f"{filename!r}: {problem}")
    if language.build:
        try:  # without bubblewrap only the plain tier runs bots (--unsafe), and so builds them
            build(language, source, sandboxed=bwrap_path() is not None)
        except BuildError as exc:
            raise SubmissionError(f"{filename!r} does not build: {exc}") from None
    return source, language.name


def _text(data: bytes, filename: str) -> str:
    if len(data) > MAX_BOT_BYTES:
        raise SubmissionError(f"{filename!r} is {len(data)} bytes; the limit is {MAX_BOT_BYTES}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{filename!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if "\x00" in text:
        raise SubmissionError(f"{filename!r} is not text: it holds a NUL byte at byte {data.index(0)}")
    return text


def check_source(data: bytes, filename: str) -> str:
    """The file's text if it could be a Python bot: size, UTF-8, Python syntax, an entry point."""
    source = _text(data, filename)
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        suffix = Path(filename).suffix
        if suffix and suffix != ".py":  # e.g. bot.rb: not a Python bot that fails to parse
            known = ", ".join(f"{lang.name} ({'/'.join(lang.extensions)})" for lang in LANGUAGES)
            raise SubmissionError(f"{filename!r} is not a bot file the ladder knows: it takes {known} "
                                  "(docs/protocol.md); a bot in another language plays locally with "
                                  "'arena play exec:COMMAND … --unsafe'") from None
        raise SubmissionError(f"{filename!r} has a syntax error at line {exc.lineno}: {exc.msg}") from None
    has_act = any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "act"
                  or isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "act" for t in node.targets)
                  for node in tree.body)
    bot_classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef) and any(
        (isinstance(b, ast.Name) and b.id.endswith("Bot")) or (isinstance(b, ast.Attribute) and b.attr.endswith("Bot"))
        for b in node.bases)]
    if not has_act and not bot_classes:
        raise SubmissionError(f"{filename!r} has no entry point: define act(message) or a subclass of "
                              "sandbox.sdk.Bot at module level")
    if not has_act and len(bot_classes) > 1:
        raise SubmissionError(f"{filename!r} defines {len(bot_classes)} bot classes ({', '.join(bot_classes)}); "
                              "keep exactly one")
    return source
