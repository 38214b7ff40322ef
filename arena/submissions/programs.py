"""A bot's program as the ladder compares it with another's: its source with comments, docstrings and layout
taken out, hashed (``program_hash``). Two files with one hash are one program entered twice; a renamed
variable makes another program (the audit and the one-ticket rule see to the rest: docs/operating.md)."""
from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from itertools import accumulate
from typing import Iterator

#: Python tokens that carry no meaning once the logical lines are kept (NEWLINE, INDENT and DEDENT are kept:
#: an indentation's width is not a token, so re-indenting a file changes nothing)
_LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_MARKS = {tokenize.NEWLINE: "<newline>", tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>"}
_WORD = re.compile(r"[A-Za-z0-9_$]")
#: an f-string's first and last tokens, from Python 3.12 on (before, an f-string is one STRING token)
_FSTRING_START, _FSTRING_END = getattr(tokenize, "FSTRING_START", -1), getattr(tokenize, "FSTRING_END", -1)


def program_text(source: str, language: str) -> str:
    """``source`` without what cannot change how it plays: for Python its tokens without comments, blank lines,
    indentation widths and statements that are only a string (docstrings), each string written one way; for
    the C-like languages (JavaScript, C) the text without ``//`` and ``/* */`` comments, whitespace only where it
    separates two words."""
    if language == "python":
        try:
            return _python_text(source)
        except (tokenize.TokenError, SyntaxError, IndentationError):  # checked before; a refusal is not ours to make
            pass
    return _c_like_text(source)


def program_hash(source: str, language: str) -> str:
    """The SHA-256 of ``program_text``, keyed with the language (one text in two languages is two programs)."""
    return hashlib.sha256(f"{language}\0{program_text(source, language)}".encode("utf-8")).hexdigest()


def _tokens(source: str) -> Iterator[tokenize.TokenInfo]:
    """Python's tokens of ``source``, each f-string one string token of its source text, as Python 3.11 reads it:
    3.12 splits an f-string into its parts, and a program's hash must not change with the Python that reads it
    (a copy must be found after the server's Python is upgraded)."""
    offsets = list(accumulate((len(line) for line in io.StringIO(source).readlines()), initial=0))
    depth, opened = 0, (0, 0)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == _FSTRING_START:
            depth, opened = depth + 1, (opened if depth else token.start)
        elif depth:  # a part of the f-string that is open (an f-string may hold another)
            if token.type == _FSTRING_END:
                depth -= 1
                if not depth:
                    text = source[offsets[opened[0] - 1] + opened[1]:offsets[token.end[0] - 1] + token.end[1]]
                    yield tokenize.TokenInfo(tokenize.STRING, text, opened, token.end, token.line)
        else:
            yield token


def _python_text(source: str) -> str:
    lines: list[list[str]] = [[]]
    for token in _tokens(source):
        if token.type not in _LAYOUT:
            lines[-1].append(_MARKS.get(token.type) or (
                _string(token.string) if token.type == tokenize.STRING else token.string))
        if token.type == tokenize.NEWLINE:
            lines.append([])
    kept: list[str] = []
    for line in lines:
        words = [w for w in line if w not in _MARKS.values()]
        if words and all(w.startswith("s:") for w in words):  # only a string: a docstring or a note does nothing
            line = [w for w in line if w in (_MARKS[tokenize.INDENT], _MARKS[tokenize.DEDENT])]
        kept.extend(line)
    return "\0".join(kept)


def _string(literal: str) -> str:
    """A string literal written one way ('a' and "a" are one string); an f-string stays as written."""
    try:
        return "s:" + repr(ast.literal_eval(literal))
    except (ValueError, SyntaxError):
        return "s:" + literal


def _c_like_text(source: str) -> str:
    out: list[str] = []
    gap = False  # whitespace or a comment since the last text kept: a space only where it parts two words
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char.isspace() or source.startswith(("//", "/*"), i):
            if char.isspace():
                end = i + 1
            elif source.startswith("//", i):
                end = source.find("\n", i)
            else:
                end = source.find("*/", i + 2)
                end = end + 2 if end >= 0 else end
            i = n if end < 0 else end
            gap = True
            continue
        if char in "\"'`":  # a string is kept whole: a '//' inside it is no comment
            end = i + 1
            while end < n and source[end] != char:
                end += 2 if source[end] == "\\" else 1
            text = source[i:end + 1]
        else:
            text = char
        if gap and out and _WORD.match(out[-1][-1]) and _WORD.match(text[0]):
            out.append(" ")
        out.append(text)
        gap = False
        i += len(text)
    return "".join(out)
