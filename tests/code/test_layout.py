"""The shape issue 42 gave the code, kept: short modules, a folder per job in arena/, one name for the fork server."""
from __future__ import annotations

import subprocess
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
#: the engine's two state machines are one game each, read top to bottom; every other module stays under this
LONGEST = 400
STATE_MACHINES = {"engine/classic.py", "engine/princes.py"}


def tracked_python() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=PROJECT, capture_output=True, text=True, check=True)
    return listed.stdout.split()


def test_no_module_passes_400_lines_but_the_engines_state_machines() -> None:
    files = tracked_python()
    assert "engine/classic.py" in files  # the listing is the project's
    long = {name: n for name in files if name not in STATE_MACHINES
            and (n := len((PROJECT / name).read_text(encoding="utf-8").splitlines())) > LONGEST}
    assert long == {}


def test_arena_keeps_a_folder_per_job_and_at_most_12_modules_at_its_top() -> None:
    top = sorted(p.name for p in (PROJECT / "arena").glob("*.py"))
    assert "__init__.py" in top and len(top) <= 12, top


def test_the_fork_server_has_one_name() -> None:
    found = subprocess.run(["git", "grep", "-il", "zy" + "gote"], cwd=PROJECT, capture_output=True, text=True)
    assert found.returncode == 1 and found.stdout == ""  # git grep: 1 when nothing matched
