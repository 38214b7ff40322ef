"""bubblewrap found once, where the operator's PATH has it: a bot, its fork server and a compiled bot's build all
start the same absolute path (they start with a fixed PATH of their own, which would not find a bubblewrap in
/usr/local/bin, a Nix profile or a container's folder)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.isolation import bwrap_path

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture
def own_bwrap(tmp_path: Path) -> tuple[Path, Path]:
    """A folder holding the only ``bwrap`` on a PATH without /usr/bin's: a script that notes each start, then runs
    the real one; (folder, the file of its notes)."""
    real = bwrap_path()
    if real is None:
        pytest.skip("bubblewrap is not installed")  # the plain tier's own tests cover that machine
    folder = tmp_path / "opt-bin"
    folder.mkdir()
    notes = tmp_path / "starts"
    script = folder / "bwrap"
    script.write_text(f"#!/bin/sh\necho started >> {notes}\nexec {real} \"$@\"\n")
    script.chmod(0o755)
    os.chmod(tmp_path, 0o755)  # an ordinary user's sandbox (user namespaces) may run it too
    return folder, notes


def arena(folder: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` with ``folder`` first on PATH and /usr/bin's bwrap out of its reach (its folders come after, so
    python3 and the compilers are still found, but ``bwrap`` is found in ``folder`` first)."""
    env = {**os.environ, "PATH": f"{folder}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=env)


def test_every_start_uses_the_bwrap_found_on_the_callers_path(own_bwrap: tuple[Path, Path], tmp_path: Path) -> None:
    folder, notes = own_bwrap
    found = arena(folder, "play", "greedy", "random", "trader", "--seed", "3", "--json", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    seats = json.loads(found.stdout)["seats"]
    assert [s["status"] for s in seats] == ["ok"] * 3
    started = len(notes.read_text().splitlines()) if notes.exists() else 0
    assert started >= 1, "the bots started without the bubblewrap the operator's PATH names"
    if shutil.which("gcc") is not None:  # a compiled bot's build is sandboxed by the same bubblewrap
        before = started
        built = arena(folder, "play", str(PROJECT / "docs" / "examples" / "first_option_bot.c"), "random", "trader",
                      "--seed", "3", "--json", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        assert len(notes.read_text().splitlines()) > before


def test_bwrap_path_is_the_callers_and_none_without_one(tmp_path: Path) -> None:
    """Found on this process's PATH as an absolute path; a PATH without any is None, and the strong tier says why
    in one line."""
    probe = ("import shutil; from sandbox.isolation import bwrap_path, strong_tier_problem, interpreter; "
             "print(bwrap_path()); print(strong_tier_problem(interpreter()))")
    empty = tmp_path / "empty"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": str(empty)}, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["None", "bwrap not found (Debian package 'bubblewrap')"]
