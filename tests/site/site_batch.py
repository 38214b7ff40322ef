"""Several `arena` commands in one Python process: the real command line (click's test runner around
`arena.cli.cli`), one interpreter start-up for all instead of one each (~1 s of CPU apiece). The
commands run in a subprocess of their own, so that a season's signal handlers, worker pools and
logging stay out of the test process; `python -m arena` itself is run for real elsewhere."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

PROJECT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Outcome:
    """One command's exit status and output, as `subprocess.run` would have given them."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


def run_batch(db: Path, commands: Sequence[tuple[list[str], tuple[int, ...] | None]], cwd: Path,
              timeout: float = 900) -> list[Outcome]:
    """Run ``arena --db DB ARGS`` for each (ARGS, allowed exit codes or None for any) in order, stopping
    after the first command whose exit code is not allowed; the outcomes of the commands that ran."""
    handle, name = tempfile.mkstemp(suffix=".json", prefix="arena-batch-", dir=cwd)
    os.close(handle)
    results = Path(name)
    request = json.dumps({"db": f"sqlite:///{db}", "commands": [[args, ok] for args, ok in commands],
                          "results": str(results)})
    done = subprocess.run([sys.executable, __file__], input=request, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)
    assert done.returncode == 0 and results.stat().st_size, f"the batch failed:\n{done.stdout}\n{done.stderr}"
    outcomes = [Outcome(**o) for o in json.loads(results.read_text())]
    results.unlink()
    return outcomes


def _main() -> None:
    sys.path.insert(0, str(PROJECT))
    from click.testing import CliRunner

    from arena.cli import cli

    request = json.loads(sys.stdin.read())
    runner = CliRunner()
    outcomes = []
    for args, ok in request["commands"]:
        full = ["--db", request["db"], *args]
        result = runner.invoke(cli, full, prog_name="arena")
        stderr = result.stderr
        if result.exc_info is not None and not isinstance(result.exception, SystemExit):
            stderr += "".join(traceback.format_exception(*result.exc_info))
        outcomes.append({"args": args, "returncode": result.exit_code, "stdout": result.stdout, "stderr": stderr})
        if ok is not None and result.exit_code not in ok:
            break
    Path(request["results"]).write_text(json.dumps(outcomes))


if __name__ == "__main__":
    _main()
