"""A real small ladder (sandboxed seasons through the CLI, plus a hostile bot), its built site, and a
headless Chromium driven by Selenium with the system chromedriver (never selenium-manager downloads)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, VersionFormat, make_engine, source_hash

PROJECT = Path(__file__).resolve().parents[2]
SCREENSHOTS = PROJECT / "screenshots"
HOSTILE = "<script>alert(1)</script>"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1000")


def run_arena(db: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{db}", *args],
                            capture_output=True, text=True, timeout=timeout, cwd=db.parent)
    assert result.returncode == 0, f"arena {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
    return result


def run_sprt(db: Path, *args: str) -> None:
    """`arena test ARGS`, whatever its verdict (exit 0 H1, 3 H0, 4 undecided)."""
    result = subprocess.run([sys.executable, "-m", "arena", "-q", "--db", f"sqlite:///{db}", "test", *args],
                            capture_output=True, text=True, timeout=600, cwd=db.parent)
    assert result.returncode in (0, 3, 4), f"arena test {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"


def fix_seed_key(db: Path) -> None:
    from arena.db import Meta
    from arena.seeds import KEY_NAME

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
        version = BotVersion(bot_id=bot.id, number=1, source=source, sha256=source_hash(source),  # type: ignore[arg-type]
                             prior_sigma=25 / 3)
        session.add(version)
        session.flush()
        session.add(VersionFormat(version_id=version.id, variant="classic", prior_mu=25.0))  # type: ignore[arg-type]
        original = session.exec(select(Match).where(Match.status == "done").order_by(Match.id)).first()
        assert original is not None
        copy = Match(**{k: v for k, v in original.model_dump().items() if k not in ("id", "rated_order")})
        copy.number = 1000
        copy.rated_order = (session.exec(select(func.max(Match.rated_order))).one() or 0) + 1
        session.add(copy)
        session.flush()
        for seat in session.exec(select(MatchSeat).where(MatchSeat.match_id == original.id)).all():
            data = {k: v for k, v in seat.model_dump().items() if k != "id"} | {"match_id": copy.id}
            if seat.seat == 0:
                data |= {"version_id": version.id, "status": "crash", "detail": "</script><script>alert(3)</script>"}
            session.add(MatchSeat(**data))
        session.add(Rating(version_id=version.id, variant="classic", mu=30.0, sigma=1.0, games=1))  # type: ignore[arg-type]
        session.commit()
        return int(copy.id)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Example bots through `arena submit` under names of their own (built-in names are reserved): dice
    (random_bot.py, with a script as author), glutton (greedy_bot.py) and merchant (trader_bot.py); two
    sandboxed classic seasons (glutton gets a second version in between), a small duel and a small solo
    season, two `arena test` runs of the built-in bots (classic with a field, duel), then the hostile bot
    and its game."""
    folder = tmp_path_factory.mktemp("site-ladder")
    db = folder / "ladder.sqlite"
    bots = PROJECT / "bots"
    run_arena(db, "submit", str(bots / "random_bot.py"), "--name", "dice", "--author", HOSTILE)
    run_arena(db, "submit", str(bots / "greedy_bot.py"), "--name", "glutton", "--author", "arena tests")
    if (bots / "trader_bot.py").is_file():
        run_arena(db, "submit", str(bots / "trader_bot.py"), "--name", "merchant", "--author", "Tina & Tom")
    fix_seed_key(db)  # chosen seeds are keyed with the database's secret: a fixed one keeps this ladder the same
    run_arena(db, "season", "run", "--name", "spring", "--games", "12", "--players", "3-4", "--seed", "11")
    changed = folder / "glutton_v2.py"
    changed.write_text((bots / "greedy_bot.py").read_text() + "\n# second version\n")
    run_arena(db, "submit", str(changed), "--name", "glutton")
    run_arena(db, "season", "run", "--name", "summer", "--games", "6", "--players", "3", "--seed", "12")
    run_arena(db, "season", "run", "--name", "duel-1", "--variant", "duel", "--games", "8", "--seed", "13")
    run_arena(db, "season", "run", "--name", "solo-1", "--variant", "solo", "--games", "3", "--seed", "14")
    run_sprt(db, "trader", "--against", "random", "--field", "random,greedy", "--elo1", "50", "--max-pairs", "30",
             "--name", "trader-vs-random")
    run_sprt(db, "trader", "--against", "random", "--format", "duel", "--elo1", "50", "--max-pairs", "30",
             "--name", "duel-test")
    hostile_game = add_hostile_bot(db)
    flag_pair(db, "dice", "merchant")
    return {"db": db, "folder": folder, "hostile_game": hostile_game}


def flag_pair(db: Path, a: str, b: str) -> None:
    """A standing audit flag on bots ``a`` and ``b`` with the evidence `arena audit` measured on this
    ladder's games (honest bots are not flagged by it: the flag itself is set here, for the pages)."""
    import json

    from arena.db import AuditFlag

    report = json.loads(run_arena(db, "audit", "--json", "--all").stdout)
    evidence = next(p for p in report["pairs"] if p["bots"] == sorted([a, b])) | {"flagged": True}
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        ids = {bot.name: bot.id for bot in session.exec(select(Bot)).all()}
        session.add(AuditFlag(bot_a=ids[min(a, b)], bot_b=ids[max(a, b)], scope="variant classic",  # type: ignore[arg-type]
                              evidence=json.dumps(evidence)))
        session.commit()
    engine.dispose()


@pytest.fixture(scope="session")
def site(ladder: dict) -> Path:
    out = ladder["folder"] / "site"
    result = run_arena(ladder["db"], "site", "build", "--out", str(out))
    index = Path(result.stdout.strip().splitlines()[-1])
    assert index == out.resolve() / "index.html" and index.is_file()
    return out


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
