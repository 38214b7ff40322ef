"""The strong tier as an ordinary user: a real unprivileged account, with its own Python environment,
runs the sandbox's hostile battery, alone and at real tables (every test, none skipped), submits a bot
and plays a short season,
each bot in a user namespace of its own. Runs when the suite runs as root (CI), which can make the
account; the account's environment is kept between runs in ``/var/tmp`` (rebuilt when
pyproject.toml changes)."""
from __future__ import annotations

import hashlib
import json
import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
USER = "arena-ci"
HOME = Path("/var/tmp/arena-ci")
#: this checkout's folder in the account's home: two clones tested at once share no copy and no environment
WORK = HOME / hashlib.sha256(str(PROJECT).encode()).hexdigest()[:12]


def as_user(*argv: str, cwd: Path, timeout: float = 1200) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` as the unprivileged account with a clean environment (pip's settings kept)."""
    env = {"HOME": str(HOME), "PATH": f"{WORK / 'venv' / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8"}
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


def venv_is_current(venv: Path, stamp: str) -> bool:
    """Whether ``venv`` is there and was built for the pyproject.toml whose hash is ``stamp``."""
    stamp_file = venv.with_name(venv.name + ".stamp")
    built_for = stamp_file.read_text() if stamp_file.exists() else ""
    return built_for == stamp and (venv / "bin" / "python").exists()


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
    # the editable install maps the packages' names to the copy's folders, always this path (WORK is
    # fixed per checkout): a fresh copy needs no new install until pyproject.toml changes
    stamp = hashlib.sha256((PROJECT / "pyproject.toml").read_bytes() + str(src).encode()).hexdigest()
    venv = WORK / "venv"
    if not (venv_is_current(venv, stamp) and imports_from(src)):
        (WORK / "venv.stamp").unlink(missing_ok=True)  # written again only once the install succeeded
        shutil.rmtree(venv, ignore_errors=True)
        made = as_user("/usr/bin/python3", "-m", "venv", str(venv), cwd=WORK)
        assert made.returncode == 0, made.stderr
        installed = as_user(str(venv / "bin" / "pip"), "install", "-q", "-e", f"{src}[test]", cwd=src)
        assert installed.returncode == 0, installed.stderr[-2000:]
        assert imports_from(src)
        (WORK / "venv.stamp").write_text(stamp)
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
                    f"import importlib.util as u; print(*(u.find_spec(n).origin for n in {packages!r}))", cwd=WORK)
    return found.returncode == 0 and found.stdout.split() == [str(src / n / "__init__.py") for n in packages]


def test_an_ordinary_user_gets_the_strong_tier_in_user_namespaces(account: Path) -> None:
    shown = as_user("python", "-c", "from sandbox import strong_tier_summary; print(strong_tier_summary())",
                    cwd=account)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == ("strong tier: bubblewrap + seccomp, user namespaces "
                                    "(not root: each bot in a user namespace of its own)")


def test_the_hostile_battery_passes_as_an_ordinary_user_with_nothing_skipped(account: Path) -> None:
    hostile = sorted(p.relative_to(PROJECT).as_posix() for p in PROJECT.glob("tests/sandbox/test_hostile*.py"))
    battery = as_user("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *hostile,
                      "tests/arena/test_hostile_ladder.py", cwd=account)
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
                        "--name", "mytrader", cwd=work)  # refused without the strong tier (no --unsafe)
    assert submitted.returncode == 0, submitted.stderr
    season = as_user("python", "-m", "arena", "--db", db, "-q", "season", "run", "--games", "6",
                     "--bosses", "random,greedy", cwd=work)
    assert season.returncode == 0, season.stderr
    board = as_user("python", "-m", "arena", "--db", db, "leaderboard", "--json", cwd=work)
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)
    assert {row["name"] for row in rows} == {"mytrader", "random", "greedy"} and all(row["games"] > 0 for row in rows)
    rerated = as_user("python", "-m", "arena", "--db", db, "leaderboard", "--rerate", cwd=work)
    assert rerated.returncode == 0 and "0 ratings differed" in rerated.stderr, rerated.stderr


def test_the_accounts_environment_is_rebuilt_only_when_pyproject_changes(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    assert not venv_is_current(venv, "abc")  # never stamped
    (tmp_path / "venv.stamp").write_text("abc")
    assert venv_is_current(venv, "abc") and not venv_is_current(venv, "abd")
    (venv / "bin" / "python").unlink()
    assert not venv_is_current(venv, "abc")  # stamped, but gone
