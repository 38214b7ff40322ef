"""A program as the ladder compares it (arena/submissions/programs.py): comments, docstrings and layout make no other
program; any change of code, or of a string, does."""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.submissions.programs import program_hash, program_text

PROGRAMS = Path(__file__).resolve().parents[2] / "arena" / "submissions" / "programs.py"
BOTS = Path(__file__).resolve().parents[2] / "bots"


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


#: f-strings (Python 3.12 splits one into parts where 3.11 reads one string token) and the text each program is
F_STRINGS = {
    'print(f"hi {name}!")\n': 'print\0(\0s:f"hi {name}!"\0)\0<newline>',
    "x = f'a{b + f\"{c:{w}}\"}d' f'e'\n": "x\0=\0s:f'a{b + f\"{c:{w}}\"}d'\0s:f'e'\0<newline>",
    "x = f'''{\n  a +\n  b}'''\ny = 1\n": "x\0=\0s:f'''{\n  a +\n  b}'''\0<newline>\0y\0=\0001\0<newline>",
    "x = f'{ name :>10}' + f\"{{literal}}\"\n": "x\0=\0s:f'{ name :>10}'\0+\0s:f\"{{literal}}\"\0<newline>",
    "x = rf'\\d{n}' + F'{n=}' + f'é€{a!r}'":
        "x\0=\0s:rf'\\d{n}'\0+\0s:F'{n=}'\0+\0s:f'é€{a!r}'\0<newline>",
}
#: every CPython 3.12 or later this machine has: pyenv's, and those on PATH (not pyenv's shims, which run only
#: the versions its settings select)
PYENV = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
OTHER_PYTHONS = sorted({os.path.realpath(path) for path in [
    *glob.glob(f"{PYENV}/versions/3.1[2-9]*/bin/python3"),
    *filter(None, (shutil.which(f"python3.{minor}") for minor in range(12, 20)))] if "/shims/" not in path})


def test_an_f_string_is_one_string_of_its_source_text_on_every_python() -> None:
    """A program's hash is the same whichever Python reads it: an f-string is its source text, as one string, on
    3.11 and on 3.12 and later (which tokenize its parts), so a copy is still found once the server's Python is
    upgraded. Here on this interpreter; then on every other CPython 3.12 or later this machine has."""
    for source, text in F_STRINGS.items():
        assert program_text(source, "python") == text, source
    sources = [*F_STRINGS, *(path.read_text() for path in sorted(BOTS.glob("*.py")))]
    here = [program_text(source, "python") for source in sources]
    for python in OTHER_PYTHONS:  # the module imports only the standard library: loaded by its path there
        ran = subprocess.run([python, "-c", THERE, str(PROGRAMS)], input=json.dumps(sources), capture_output=True,
                             text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout) == here, python


THERE = """import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("programs", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(json.dumps([module.program_text(source, "python") for source in json.load(sys.stdin)]))
"""
