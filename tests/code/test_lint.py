"""The whole repository passes the linter (``ruff``, configured in pyproject.toml: pycodestyle and pyflakes)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, input=stdin, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_no_error() -> None:
    result = ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_ruff_checks_every_python_folder() -> None:
    """No folder is left out of the check (an ``exclude`` would make the clean run above say nothing)."""
    result = ruff("check", "--no-cache", "--show-files", ".")
    assert result.returncode == 0, result.stderr[-2000:]
    checked = {Path(line.strip()).resolve().relative_to(ROOT).parts[0] for line in result.stdout.splitlines()
               if line.strip().endswith(".py")}
    assert {"engine", "sandbox", "arena", "bots", "bench", "tests"} <= checked, sorted(checked)


def test_ruff_uses_the_project_rules() -> None:
    """A line of 121 characters, an unused import and an undefined name are each reported."""
    source = "import os\n\nx = undefined_name\n" + "y = '" + "a" * 115 + "'\n"
    assert len(source.splitlines()[-1]) == 121
    result = ruff("check", "--no-cache", "--output-format", "concise", "--stdin-filename", "engine/lint_probe.py", "-",
                  stdin=source)
    assert result.returncode == 1, result.stdout + result.stderr
    reported = {code for code in ("E501", "F401", "F821") if f" {code} " in result.stdout}
    assert reported == {"E501", "F401", "F821"}, result.stdout
