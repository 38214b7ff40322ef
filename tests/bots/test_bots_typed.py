"""The example bots and the SDK are typed to mypy's strict standard, with nothing silenced.

mypy itself runs in tests/code/test_types.py; this checks that its configuration holds every bot file.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_bot_file_is_checked_strictly() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert "bots" in config["files"]
    strict = next(o for o in config["overrides"] if o.get("disallow_untyped_defs"))["module"]
    bots = {path.stem for path in (ROOT / "bots").glob("*.py")}
    missing = sorted(name for name in bots | {"sandbox.sdk", "strategy.policies"} if not covered(name, strict))
    assert bots and not missing, missing


def covered(module: str, patterns: list[str]) -> bool:
    """Whether mypy's override ``patterns`` name ``module`` itself or a package of it (``pkg.*``)."""
    parts = module.split(".")
    return module in patterns or any(".".join(parts[:i]) + ".*" in patterns for i in range(1, len(parts)))


def test_bots_and_the_sdk_have_no_type_ignores() -> None:
    paths = [*sorted((ROOT / "bots").glob("*.py")), ROOT / "sandbox" / "sdk.py",
             *sorted((ROOT / "strategy").glob("*.py"))]
    found = [f"{path.relative_to(ROOT)}:{number}" for path in paths
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if re.search(r"#\s*type:\s*ignore", line)]
    assert not found, found
