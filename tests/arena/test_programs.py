"""A program as the ladder compares it (arena/submissions/programs.py): comments, docstrings and layout make no other
program; any change of code, or of a string, does."""
from __future__ import annotations

import pytest

from arena.submissions.programs import program_hash


@pytest.mark.parametrize("language, original, copy", [
    ("python", "def f(x):\n    '''Doubles.'''\n    return x * 2  # twice\n",
     "# mine\ndef f( x ):\n  return x*2\n\n\n"),
    ("python", "s = 'a'\n", 's = "a"\n'),
    ("javascript", "// bot\nfunction f(x) {\n  return x * 2; /* twice */\n}\n",
     "function f(x){return x*2;}"),
    ("c", "#include <stdio.h>\nint main(void) { /* hi */ return 0; }\n",
     "#include <stdio.h>\n// mine\nint  main( void )\n{\n\treturn 0;\n}\n"),
])
def test_comments_docstrings_and_layout_do_not_make_another_program(language: str, original: str, copy: str) -> None:
    assert program_hash(original, language) == program_hash(copy, language)


@pytest.mark.parametrize("language, one, other", [
    ("python", "def f(x):\n    return x * 2\n", "def f(x):\n    return x * 3\n"),
    ("python", "if a:\n    b()\n    c()\n", "if a:\n    b()\nc()\n"),  # the same tokens, another block
    ("python", "s = 'a # b'\n", "s = 'a'\n"),  # a '#' in a string is no comment
    ("javascript", 'const s = "a // b";\n', 'const s = "a";\n'),
    ("c", "int x = 1;", "int x = 2;"),
])
def test_different_programs_stay_different(language: str, one: str, other: str) -> None:
    assert program_hash(one, language) != program_hash(other, language)
