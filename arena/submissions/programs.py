"""A bot's program as the ladder compares it with another's: its source with comments, docstrings and layout
taken out, hashed (``program_hash``). Two files with one hash are one program entered twice; a renamed
variable makes another program (the audit and the one-ticket rule see to the rest: docs/operating.md)."""
from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize

#: Python tokens that carry no meaning once the logical lines are kept (NEWLINE, INDENT and DEDENT are kept:
#: an indentation's width is not a token, so re-indenting a file changes nothing)
_LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_MARKS = {tokenize.NEWLINE: "<newline>", tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>"}
_WORD = re.compile(r"[A-Za-z0-9_$]")


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


def _python_text(source: str) -> str:
    lines: list[list[str]] = [[]]
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
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
