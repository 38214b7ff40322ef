"""A real small ladder (sandboxed seasons through the CLI, plus a hostile bot), its built site, and a
headless Chromium driven by Selenium with the system chromedriver (never selenium-manager downloads)."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Iterator

import pytest
from sqlalchemy import func
from sqlmodel import Session, col, select

from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, VersionFormat, make_engine, source_hash
from arena.db.queries import stored_id
from site_batch import run_batch
from site_values import EVIDENCE, PROJECT
from forked_arena import arena_run

SCREENSHOTS = PROJECT / "screenshots"
HOSTILE = "<script>alert(1)</script>"
SPRT_ELO1 = 150  # the stored tests' H1 margin (test_site_browser.py quotes it)
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1000")


def run_arena(db: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    result = arena_run(["--db", f"sqlite:///{db}", *args],
                            capture_output=True, text=True, timeout=timeout, cwd=db.parent)
    assert result.returncode == 0, f"arena {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
    return result


def fix_seed_key(db: Path) -> None:
    from arena.db import Meta
    from arena.ladder.random_seeds import KEY_NAME

    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        session.merge(Meta(key=KEY_NAME, value="5e" * 32))
        session.commit()
    engine.dispose()


def add_hostile_bot(db: Path) -> int:
    """A bot named like a script (only possible straight in the database: `submit` checks names),
    seated in a copy of a real game with a failure detail that tries to close the page's script."""
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        bot = Bot(name=HOSTILE, author='<img src=x onerror="alert(2)">')
        session.add(bot)
        session.flush()
        source = "# hostile\n"
        version = BotVersion(bot_id=stored_id(bot), number=1, source=source, sha256=source_hash(source),
                             prior_sigma=25 / 3)
        session.add(version)
        session.flush()
        session.add(VersionFormat(version_id=stored_id(version), variant="classic", prior_mu=25.0))
        original = session.exec(select(Match).where(Match.status == "done").order_by(col(Match.id))).first()
        assert original is not None
        copy = Match(**{k: v for k, v in original.model_dump().items() if k not in ("id", "rated_order")})
        copy.number = 1000
        copy.rated_order = (session.exec(select(func.max(Match.rated_order))).one() or 0) + 1
        session.add(copy)
        session.flush()
        for seat in session.exec(select(MatchSeat).where(MatchSeat.match_id == original.id)).all():
            data = {k: v for k, v in seat.model_dump().items() if k != "id"} | {"match_id": copy.id}
            if seat.seat == 0:  # its evidence (the request, the step, its output) tries to close the page's <pre>
                data |= {"version_id": version.id, "status": "crash", "detail": "</script><script>alert(3)</script>",
                         "failure_request": "plant_second </code><script>alert(4)</script>", "failure_step": 5,
                         "failure_log": f"Traceback (most recent call last):\n{EVIDENCE}\n"}
            session.add(MatchSeat(**data))
        session.add(Rating(version_id=stored_id(version), variant="classic", mu=30.0, sigma=1.0, games=1))
        session.commit()
        return stored_id(copy)


@pytest.fixture(scope="session")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The ladder of `build_ladder` and its site, built once per test run (pytest-xdist workers share it)."""
    return built_once(tmp_path_factory, "site-ladder", build_ladder)


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], dict]) -> dict:
    """``build(folder)`` once per test run: under pytest-xdist the first worker to ask builds it in the run's
    shared temporary folder while the others wait on a lock, then every worker reads what it wrote."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return build(tmp_path_factory.mktemp(name))
    root = tmp_path_factory.getbasetemp().parent  # this run's folder, shared by its workers
    folder, record = root / name, root / f"{name}.json"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # a worker that failed half-way
            folder.mkdir()
            value = build(folder)
            record.write_text(json.dumps({k: str(v) if isinstance(v, Path) else v for k, v in value.items()}))
        stored = json.loads(record.read_text())
    return {k: Path(v) if k in ("db", "folder", "site") else v for k, v in stored.items()}


def build_ladder(folder: Path) -> dict:
    """Example bots through `arena submit` under names of their own (built-in names are reserved): dice
    (random_bot.py, with a script as author), glutton (greedy_bot.py) and merchant (trader_bot.py); two
    sandboxed classic seasons (glutton gets a second version in between), a small duel and a small solo
    season (closed, so that its games are published), two short `arena test` runs of the built-in bots (classic
    with a field, duel), then the hostile bot and its game, an audit flag, and the site (`arena site build`).
    The arena commands before the site run in one process (site_batch.py)."""
    db = folder / "ladder.sqlite"
    bots = PROJECT / "bots"
    fix_seed_key(db)  # chosen seeds are keyed with the database's secret: a fixed one keeps this ladder the same
    changed = folder / "glutton_v2.py"
    changed.write_text((bots / "greedy_bot.py").read_text() + "\n# second version\n")
    ok, sprt = (0,), (0, 3, 4)  # `arena test`, whatever its verdict (exit 0 H1, 3 H0, 4 undecided)
    commands: list[tuple[list[str], tuple[int, ...]]] = [
        *((["authors", "add", author], ok) for author in (HOSTILE, "arena tests", "Tina & Tom")),
        (["submit", str(bots / "random_bot.py"), "--name", "dice", "--author", HOSTILE], ok),
        (["submit", str(bots / "greedy_bot.py"), "--name", "glutton", "--author", "arena tests"], ok)]
    if (bots / "trader_bot.py").is_file():
        commands.append((["submit", str(bots / "trader_bot.py"), "--name", "merchant", "--author", "Tina & Tom"], ok))
    # a short test (3 pairs): a wide Elo margin and 40% error rates, so that it ends with a verdict soon
    quick = ["--elo1", str(SPRT_ELO1), "--alpha", "0.4", "--beta", "0.4", "--max-pairs", "30"]
    commands += [
        (["season", "run", "--name", "spring", "--games", "12", "--players", "3-4", "--seed", "11"], ok),
        (["submit", str(changed), "--name", "glutton", "--author", "arena tests"], ok),
        (["season", "run", "--name", "summer", "--games", "6", "--players", "3", "--seed", "12"], ok),
        (["season", "run", "--name", "duel-1", "--variant", "duel", "--games", "8", "--seed", "13"], ok),
        (["season", "run", "--name", "solo-1", "--variant", "solo", "--games", "3", "--seed", "14"], ok),
        (["season", "close", "solo-1"], ok),  # its deals published: the solo games get pages with replays
        (["-q", "test", "trader", "--against", "random", "--field", "random,greedy", *quick,
          "--name", "trader-vs-random"], sprt),
        (["-q", "test", "trader", "--against", "random", "--format", "duel", *quick, "--name", "duel-test"], sprt),
    ]
    outcomes = run_batch(db, commands, folder)
    for (args, allowed), outcome in zip(commands, outcomes):
        assert outcome.returncode in allowed, f"arena {' '.join(args)} failed:\n{outcome.stdout}\n{outcome.stderr}"
    assert len(outcomes) == len(commands)
    hostile_game = add_hostile_bot(db)
    flag_pair(db, "dice", "merchant")
    site = folder / "site"
    result = run_arena(db, "site", "build", "--out", str(site))
    index = Path(result.stdout.strip().splitlines()[-1])
    assert index == site.resolve() / "index.html" and index.is_file()
    return {"db": db, "folder": folder, "hostile_game": hostile_game, "site": site}


def flag_pair(db: Path, a: str, b: str) -> None:
    """A standing audit flag on bots ``a`` and ``b`` with the evidence the audit (`arena audit --json
    --all` calls `run_audit`) measured on this ladder's games (honest bots are not flagged by it: the flag
    itself is set here, for the pages)."""
    from arena.audit.store import run_audit
    from arena.db import AuditFlag

    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        audited, _ = run_audit(session, "classic")
        report = json.loads(json.dumps(audited.to_json()))
    evidence = next(p for p in report["pairs"] if p["bots"] == sorted([a, b])) | {"flagged": True}
    with Session(engine) as session:
        ids = {bot.name: stored_id(bot) for bot in session.exec(select(Bot)).all()}
        session.add(AuditFlag(bot_a=ids[min(a, b)], bot_b=ids[max(a, b)], scope="variant classic",
                              evidence=json.dumps(evidence)))
        session.commit()
    engine.dispose()


@pytest.fixture(scope="session")
def site(ladder: dict) -> Path:
    return Path(ladder["site"])


def browser_missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    reason = browser_missing()
    if reason and os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the browser tests (.ci/run installs their packages): {reason}")
    if reason:
        pytest.skip(reason)
    os.environ["SE_OFFLINE"] = "true"  # selenium-manager must never download a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tmp_path_factory.mktemp("chromium-profile")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
