"""The suite refuses to start when `python -m arena` in another folder would import another checkout (conftest)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from checkout import package_found_instead

PROJECT = Path(__file__).resolve().parents[1]


def test_this_checkout_is_the_package_commands_import() -> None:
    assert package_found_instead() is None


def test_another_clone_on_the_path_is_named(tmp_path: Path) -> None:
    other = tmp_path / "arena"
    other.mkdir()
    (other / "__init__.py").write_text("")
    assert package_found_instead({**os.environ, "PYTHONPATH": str(tmp_path)}) == str(other / "__init__.py")


def test_the_suite_says_so_in_one_line_and_runs_nothing(tmp_path: Path) -> None:
    other = tmp_path / "arena"
    other.mkdir()
    (other / "__init__.py").write_text("")
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                          "tests/test_checkout.py"], capture_output=True, text=True, timeout=120, cwd=PROJECT,
                         env={**os.environ, "PYTHONPATH": f"{tmp_path}:{PROJECT}"})
    assert ran.returncode == 4, ran.stdout + ran.stderr  # pytest's usage error
    assert (f"the arena package that commands started elsewhere import is {other / '__init__.py'}, not this "
            "checkout's") in ran.stderr
    assert "passed" not in ran.stdout
