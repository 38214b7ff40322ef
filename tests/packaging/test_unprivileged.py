"""The strong tier as an ordinary user: a real unprivileged account, with its own Python environment,
runs the sandbox's hostile battery, alone and at real tables (every test, none skipped), submits a bot
and plays a short season,
each bot in a user namespace of its own. Runs when the suite runs as root (CI), which can make the
account. The account's environment holds the project's dependencies and the test runner, not the project: it is
kept in ``/var/tmp`` and shared by every clone (one per list of requirements), and each clone's copy is put on
``PYTHONPATH``."""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import pwd
import re
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
USER = "arena-ci"
HOME = Path("/var/tmp/arena-ci")
#: this checkout's folder in the account's home: two clones tested at once share no copy and no environment
WORK = HOME / hashlib.sha256(str(PROJECT).encode()).hexdigest()[:12]


#: what the account's environment holds beside the project's dependencies: the test runner the battery needs
RUNNER = ("pytest", "pytest-xdist", "hypothesis")


@functools.cache
def requirements() -> list[str]:
    """The account's requirements: the project's dependencies and the runner's part of the test extra."""
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runner = [r for r in project["optional-dependencies"]["test"] if re.split(r"[<>=!~\[ ]", r)[0] in RUNNER]
    return sorted(project["dependencies"] + runner)


def venv_for(wanted: list[str]) -> Path:
    """The shared environment made for the requirements ``wanted`` (named by their hash)."""
    return HOME / ("venv-" + hashlib.sha256("\n".join(wanted).encode()).hexdigest()[:12])


def as_user(*argv: str, cwd: Path, timeout: float = 1200, venv: Path | None = None,
            src: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` as the unprivileged account with a clean environment (pip's settings kept), ``venv``'s
    programs first on its PATH and the packages of the copy ``src`` importable."""
    env = {"HOME": str(HOME), "PATH": f"{(venv or venv_for(requirements())) / 'bin'}:/usr/bin:/bin",
           "LANG": "C.UTF-8"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
    return subprocess.run(["runuser", "-u", USER, "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)


def _copy_checkout(target: Path) -> None:
    """The files of this checkout as they are now (tracked and new, not ignored), owned by the account."""
    if target.exists():
        shutil.rmtree(target)
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=PROJECT,
                            capture_output=True, text=True, check=False)
    names = [n for n in listed.stdout.split("\0") if n] if listed.returncode == 0 else None
    if names is None:  # not a git checkout: everything but caches
        shutil.copytree(PROJECT, target, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", ".git"))
    else:
        for name in names:
            source = PROJECT / name
            if source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(target)], check=True)


def venv_is_current(venv: Path) -> bool:
    """Whether ``venv`` is there and its install finished (its ``done`` mark is written last)."""
    return (venv / "done").exists() and (venv / "bin" / "python").exists()


def shared_venv(wanted: list[str]) -> Path:
    """The account's environment for ``wanted``, made unless it is there; one clone makes it while the others wait."""
    venv = venv_for(wanted)
    with open(HOME / "venv.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not venv_is_current(venv):
            shutil.rmtree(venv, ignore_errors=True)
            made = as_user("/usr/bin/python3", "-m", "venv", str(venv), cwd=HOME, venv=venv)
            assert made.returncode == 0, made.stderr
            installed = as_user(str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *wanted, cwd=HOME,
                                venv=venv)
            assert installed.returncode == 0, installed.stderr[-2000:]
            (venv / "done").write_text("\n".join(wanted) + "\n")
    return venv


@pytest.fixture(scope="module")
def account() -> Path:
    """The account, a copy of this checkout in its home, and its environment; returns the copy."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("making an unprivileged account needs root (CI runs the suite as root)")
    make_account()
    HOME.mkdir(mode=0o755, exist_ok=True)
    shutil.chown(HOME, USER, USER)
    WORK.mkdir(mode=0o755, exist_ok=True)
    shutil.chown(WORK, USER, USER)
    user = pwd.getpwnam(USER)
    assert user.pw_uid != 0 and user.pw_gid != 0
    src = WORK / "src"
    _copy_checkout(src)
    shared_venv(requirements())
    assert imports_from(src)
    return src


def make_account() -> None:
    """The unprivileged account, made unless it exists; another clone's suite may be making it at the same moment."""
    made = None
    for _ in range(10):
        if subprocess.run(["id", USER], capture_output=True).returncode == 0:
            return
        made = subprocess.run(["useradd", "--system", "--home-dir", str(HOME), "--shell", "/bin/sh", USER],
                              capture_output=True, text=True)
        if made.returncode not in (0, 9):  # 9: made meanwhile; else e.g. /etc/passwd locked by the other useradd
            time.sleep(0.5)
    assert subprocess.run(["id", USER], capture_output=True).returncode == 0, made and made.stderr


def imports_from(src: Path) -> bool:
    """Whether the account's environment finds this checkout's packages in the copy ``src``."""
    packages = ("arena", "engine", "sandbox")
    found = as_user("python", "-c",
                    f"import importlib.util as u; print(*(u.find_spec(n).origin for n in {packages!r}))", cwd=WORK,
                    src=src)
    return found.returncode == 0 and found.stdout.split() == [str(src / n / "__init__.py") for n in packages]


def test_an_ordinary_user_gets_the_strong_tier_in_user_namespaces(account: Path) -> None:
    shown = as_user("python", "-c", "from sandbox import strong_tier_summary; print(strong_tier_summary())",
                    cwd=account, src=account)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == ("strong tier: bubblewrap + seccomp, user namespaces "
                                    "(not root: each bot in a user namespace of its own)")


def test_the_hostile_battery_passes_as_an_ordinary_user_with_nothing_skipped(account: Path) -> None:
    hostile = sorted(p.relative_to(PROJECT).as_posix() for p in PROJECT.glob("tests/sandbox/test_hostile*.py"))
    # in one process (-n 0): the suite's other workers keep the cores busy meanwhile, and 3 more workers would each
    # import the tests and the arena again (about 6 s of CPU; docs/benchmarks.md, "Where the suite's CPU goes")
    battery = as_user("python", "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-rs", *hostile,
                      "tests/arena/test_hostile_ladder.py", cwd=account, src=account)
    summary = battery.stdout.strip().splitlines()[-1]
    assert battery.returncode == 0, battery.stdout[-3000:] + battery.stderr[-2000:]
    assert " passed" in summary and "skipped" not in summary and "deselected" not in summary, summary


def test_an_ordinary_user_submits_a_bot_and_runs_a_season(account: Path) -> None:
    work = WORK / "season"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.chown(work, USER, USER)
    db = f"sqlite:///{work / 'ladder.sqlite'}"
    submitted = as_user("python", "-m", "arena", "--db", db, "-q", "submit", str(account / "bots" / "trader_bot.py"),
                        "--name", "mytrader", cwd=work, src=account)  # refused without the strong tier (no --unsafe)
    assert submitted.returncode == 0, submitted.stderr
    season = as_user("python", "-m", "arena", "--db", db, "-q", "season", "run", "--games", "6",
                     "--bosses", "random,greedy", cwd=work, src=account)
    assert season.returncode == 0, season.stderr
    board = as_user("python", "-m", "arena", "--db", db, "leaderboard", "--json", cwd=work, src=account)
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)
    assert {row["name"] for row in rows} == {"mytrader", "random", "greedy"} and all(row["games"] > 0 for row in rows)
    rerated = as_user("python", "-m", "arena", "--db", db, "leaderboard", "--rerate", cwd=work, src=account)
    assert rerated.returncode == 0 and "0 ratings differed" in rerated.stderr, rerated.stderr


def test_the_accounts_environment_is_named_by_its_requirements_and_current_once_finished(tmp_path: Path) -> None:
    wanted = requirements()
    assert any(r.startswith("sqlmodel") for r in wanted) and any(r.startswith("pytest-xdist") for r in wanted)
    assert not any(r.startswith(("selenium", "mypy", "dask")) for r in wanted)  # the battery needs none of them
    assert venv_for(wanted) == venv_for(list(wanted)) != venv_for(wanted + ["rich>=14"])
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    assert not venv_is_current(venv)  # an install that never finished
    (venv / "done").write_text("\n".join(wanted))
    assert venv_is_current(venv)
    (venv / "bin" / "python").unlink()
    assert not venv_is_current(venv)  # finished, but gone
