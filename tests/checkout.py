"""Whether the checkout under test is the one its commands import (tests/conftest.py refuses to start otherwise)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def package_found_instead(env: dict[str, str] | None = None) -> str | None:
    """Where a ``python -m arena`` started in another folder finds the package, if that is not this checkout (an
    editable install of another clone, or of a folder since moved): None when it is this one."""
    found = subprocess.run([sys.executable, "-c", "import importlib.util as u; s = u.find_spec('arena'); "
                            "print(s.origin if s and s.origin else '')"],
                           capture_output=True, text=True, cwd="/", timeout=60, env=env)
    origin = found.stdout.strip()
    if origin and Path(origin).resolve() == (PROJECT / "arena" / "__init__.py").resolve():
        return None
    return origin or "no arena package at all"
