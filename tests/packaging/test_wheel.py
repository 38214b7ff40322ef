"""A normal install, not the editable one: build the wheel, install it into a fresh virtual
environment and use the arena from another folder, where no checkout is in reach."""
from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Without $PYTHONPATH: a developer's (a checkout's folder on it) would put that checkout before the wheel."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


def site_dirs() -> list[str]:
    """The site directories this interpreter reads its packages from (a venv's own, or the system's)."""
    return [p for p in [*site.getsitepackages(), site.getusersitepackages()] if Path(p).is_dir() and p in sys.path]


def test_the_built_wheel_plays_a_game_runs_a_season_and_builds_the_site(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(PROJECT), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    wheel, = wheels.glob("bohnanza_arena-*.whl")
    venv = tmp_path / "venv"
    # The dependencies come from this environment, the project itself only from the wheel.
    # `--system-site-packages` would not do: from a venv it reaches the base interpreter's packages.
    # This pip installs into the venv (`--python`): a pip of its own would cost the venv ~6 s of CPU.
    assert run(sys.executable, "-m", "venv", "--without-pip", str(venv), cwd=tmp_path).returncode == 0
    python = str(venv / "bin" / "python")
    purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=tmp_path).stdout.strip()
    (Path(purelib) / "test-environment.pth").write_text(
        f"import site; {'; '.join(f'site.addsitedir({p!r})' for p in site_dirs())}\n")
    installed = run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", str(wheel),
                    cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = run(python, "-c", "import arena, engine, sandbox; print(arena.__file__, engine.__file__, sandbox.__file__)",
                cwd=elsewhere)
    assert all(path.startswith(str(venv)) for path in where.stdout.split()), where.stdout

    game = run(python, "-m", "arena", "play", "random", "greedy", "trader", "--json", cwd=elsewhere)
    assert game.returncode == 0, game.stderr
    assert [s["status"] for s in json.loads(game.stdout)["seats"]] == ["ok"] * 3
    db = f"sqlite:///{elsewhere / 'ladder.sqlite'}"
    season = run(python, "-m", "arena", "--db", db, "-q", "season", "run", "--games", "3",
                 "--bosses", "random,greedy,trader", cwd=elsewhere)
    assert season.returncode == 0, season.stderr
    site = run(python, "-m", "arena", "--db", db, "-q", "site", "build", "--out", str(elsewhere / "site"),
               cwd=elsewhere)
    assert site.returncode == 0, site.stderr
    assert ((elsewhere / "site" / "static" / "replay.js").is_file()
            and "greedy" in (elsewhere / "site" / "index.html").read_text())
