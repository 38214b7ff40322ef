"""The README's first command on a machine without bubblewrap: the demo still runs, plain tier,
built-in bots only, and says so in one line."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def test_demo_runs_the_builtin_bots_in_the_plain_tier_when_bwrap_is_missing(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}  # no bwrap (nor anything else) on PATH
    db_file = tmp_path / "demo.sqlite"
    db = f"sqlite:///{db_file}"
    mine = tmp_path / "mine.py"
    mine.write_text((PROJECT / "bots" / "greedy_bot.py").read_text() + "\n# a submission\n")
    refused = subprocess.run([sys.executable, "-m", "arena", "--db", db, "submit", str(mine)],
                             capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert refused.returncode != 0 and "no strong sandbox" in refused.stderr
    submitted = subprocess.run([sys.executable, "-m", "arena", "--db", db, "submit", str(mine), "--unsafe"],
                               capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert submitted.returncode == 0, submitted.stderr

    result = subprocess.run([sys.executable, "-m", "arena", "--db", db, "-q", "demo", "--games", "2"],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: no strong sandbox here")]
    assert len(notes) == 1 and "bwrap not found" in notes[0] and "built-in" in notes[0]
    assert "sandbox tier plain" in result.stderr
    audits = [line for line in result.stderr.splitlines() if line.startswith("audit of season demo-")]
    assert len(audits) == 1 and "2 games audited" in audits[0] and "nothing flagged" in audits[0]  # the season's own
    assert "Traceback" not in result.stderr
    assert result.stdout.strip().splitlines()[-1] == f"site: {(tmp_path / 'arena-site' / 'index.html').resolve()}"

    with sqlite3.connect(db_file) as con:
        seated = {name for (name,) in con.execute(
            "SELECT DISTINCT bot.name FROM matchseat JOIN botversion ON matchseat.version_id = botversion.id "
            "JOIN bot ON botversion.bot_id = bot.id")}
        statuses = {status for (status,) in con.execute("SELECT status FROM match")}
    assert seated and "mine" not in seated  # the submission is never run without the strong tier
    assert seated <= {"random", "greedy", "trader", "search"}
    assert statuses == {"done"}
