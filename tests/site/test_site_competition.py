"""A whole competition through the `arena` command, in the sandbox, on a real SQLite file: bots submitted, the
competition created with a deadline seconds ahead, a version uploaded after it (no entry), the final played,
stopped by SIGTERM and resumed, its podium from `show --json`, and its winners page in Chromium. Kept small: a duel
final of three finalists, two built-in programs and a bot that crashes at its first decision (it keeps its seat and
loses those games), one pair flagged by the audit (never seated together)."""
from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from contextlib import closing
from pathlib import Path

import pytest
from browser_helpers import open_page, severe_console_messages
from sqlmodel import Session, col, select

from arena.db import AuditFlag, Bot, Competition, Match, make_engine
from arena.db.queries import stored_id
from arena.submissions.accounts import ensure_author
from arena.submissions.versions import register
from site_batch import run_batch
from site_values import PROJECT

CRASHER = ("from sandbox.sdk import Bot\n\n\nclass Crasher(Bot):\n    def act(self, message):\n"
           "        raise RuntimeError('crashes at its first decision')\n")
FINAL_GAMES = 12  # three rounds of the two pairs that may meet: 2 games each (a deal, the seats swapped)


def arena(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{db}", *args], capture_output=True,
                          text=True, timeout=300, cwd=db.parent)


def final_games_done(db: Path) -> int:
    """The final's games recorded so far (read with sqlite3 alone, while the final writes)."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as con:
        return int(con.execute("SELECT count(*) FROM match JOIN season ON season.id = match.season_id "
                               "WHERE season.name = 'final-cup' AND match.status = 'done'").fetchone()[0])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The competition, played: what each step printed, and the site built after it."""
    folder = tmp_path_factory.mktemp("competition")
    db = folder / "cup.sqlite"
    bots = PROJECT / "bots"
    ok = (0,)
    setup = run_batch(db, [
        *((["authors", "add", a], ok) for a in ("ann", "bob", "cat")),
        (["submit", str(bots / "random_bot.py"), "--name", "dice", "--author", "ann"], ok),
        (["submit", str(bots / "greedy_bot.py"), "--name", "glutton", "--author", "bob"], ok)], folder)
    assert [o.returncode for o in setup] == [0] * 5, setup[-1].stderr
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:  # it would fail its smoke game: stored as the operator's script would
        register(session, "crasher", CRASHER, ensure_author(session, "cat"), variants=["duel"])
        ids = {b.name: stored_id(b) for b in session.exec(select(Bot)).all()}
        session.add(AuditFlag(bot_a=ids["crasher"], bot_b=ids["dice"], scope="variant duel", evidence="{}"))
        session.commit()
    engine.dispose()
    made = run_batch(db, [(["competition", "create", "cup", "--variant", "duel", "--deadline", "+3s",
                            "--finalists", "3", "--final-games", str(FINAL_GAMES)], ok),
                          (["competition", "show", "cup"], ok),
                          (["competition", "final", "cup"], None)], folder)
    deadline = datetime.fromisoformat(json.loads(arena(db, "competition", "show", "cup", "--json").stdout)["deadline"])
    time.sleep(max(0.0, deadline.timestamp() - time.time()) + 0.2)
    late = folder / "dice_v2.py"
    late.write_text((bots / "random_bot.py").read_text() + "\n# after the deadline\n")
    after = run_batch(db, [(["submit", str(late), "--name", "dice", "--author", "ann"], ok)], folder)
    final = subprocess.Popen([sys.executable, "-m", "arena", "--db", f"sqlite:///{db}", "competition", "final", "cup",
                              "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=folder)
    try:
        stop = time.monotonic() + 120
        while final_games_done(db) < 2 and final.poll() is None and time.monotonic() < stop:
            time.sleep(0.05)
        assert final.poll() is None, "the final ended before it could be stopped"
        final.send_signal(signal.SIGTERM)
        stopped_out, stopped_err = final.communicate(timeout=60)
    finally:
        final.kill()
    stopped_at = final_games_done(db)
    resumed = arena(db, "competition", "final", "cup", "--workers", "2")
    shown = arena(db, "competition", "show", "cup", "--json")
    site = folder / "site"
    built = arena(db, "site", "build", "--out", str(site))
    assert built.returncode == 0, built.stderr
    with Session(make_engine(f"sqlite:///{db}")) as session:
        competition = session.exec(select(Competition)).one()
        final_ids = session.exec(select(Match.id).where(Match.season_id == competition.season_id)
                                 .order_by(col(Match.id))).all()
    return {"db": db, "made": made, "after": after, "stopped": (final.returncode, stopped_out, stopped_err),
            "stopped_at": stopped_at, "resumed": resumed, "shown": shown, "site": site, "id": competition.id,
            "final_ids": list(final_ids)}


def test_a_competition_is_played_through_the_command_line(played: dict) -> None:
    created, opened, early = played["made"]
    assert created.stdout.startswith("competition cup (duel): entries freeze at ")
    assert "open: the ladder decides who enters" in opened.stdout
    assert early.returncode == 2 and "competition 'cup' is open until its deadline" in early.stderr
    [late] = played["after"]
    assert late.returncode == 0 and late.stdout.startswith("dice version 2 registered")
    assert any(re.fullmatch(r"note: competition cup \(duel\): this version came after its deadline \([-\d :]+ UTC\) "
                            r"and is not an entry; it plays on the ladder \(its entry is version 1\)", line)
               for line in late.stderr.splitlines()), late.stderr
    code, _out, err = played["stopped"]
    assert code == 1 and err.strip().splitlines()[-1] == (
        "Error: interrupted; finished games are saved: 'arena competition final cup' resumes")
    assert 2 <= played["stopped_at"] < FINAL_GAMES
    resumed = played["resumed"]
    assert resumed.returncode == 0, resumed.stderr
    assert "podium: " in resumed.stdout and "crasher and dice were flagged by the audit" in resumed.stdout
    assert played["shown"].returncode == 0
    cup = json.loads(played["shown"].stdout)
    assert cup["phase"] == "finished" and cup["games"] == cup["planned"] == FINAL_GAMES
    assert len(played["final_ids"]) == FINAL_GAMES  # every planned game recorded once, none played twice
    assert [(e["name"], e["version"]) for e in cup["entries"]] == [("crasher", 1), ("dice", 1), ("glutton", 1)]
    assert all(e["finalist"] for e in cup["entries"])  # dice entered with version 1: version 2 came too late
    assert [p["place"] for p in cup["podium"]] == [1, 2, 3] and cup["podium"][2]["name"] == "crasher"
    rows = {s["name"]: s for s in cup["standings"]}
    assert rows["crasher"]["failures"] == rows["crasher"]["games"] == FINAL_GAMES // 2 and rows["crasher"]["wins"] == 0
    assert rows["glutton"]["games"] == FINAL_GAMES and rows["dice"]["games"] == FINAL_GAMES // 2  # kept apart
    assert all(s["low"] < s["value"] < s["high"] for s in cup["standings"])
    assert 0.0 <= cup["winner_better"] <= 1.0 and cup["kept_apart"] == [["crasher", "dice", "audit"]]


def test_the_winners_page_in_a_browser(played: dict, browser) -> None:
    from selenium.webdriver.common.by import By

    site = played["site"]
    cup = json.loads(played["shown"].stdout)
    open_page(browser, site / "competitions" / "index.html")
    link = browser.find_element(By.CSS_SELECTOR, "#competitions a")
    assert link.text == "cup"
    link.click()
    assert browser.current_url.endswith(f"/competitions/{played['id']}.html")
    podium = browser.find_elements(By.CSS_SELECTOR, "#podium li")
    assert [li.get_attribute("data-name") for li in podium] == [p["name"] for p in cup["podium"]]
    rows = browser.find_elements(By.CSS_SELECTOR, "#final-standings tbody tr")
    assert [r.get_attribute("data-name") for r in rows] == [s["name"] for s in cup["standings"]]
    assert all(" – " in r.find_element(By.CSS_SELECTOR, "td.interval").text for r in rows)
    sure = browser.find_element(By.ID, "winner-better").text
    assert sure.startswith(f"{cup['standings'][0]['name']} is better than {cup['standings'][1]['name']} with "
                           f"probability {cup['winner_better']:.2f}")
    assert "crasher and dice were flagged by the audit" in browser.find_element(By.ID, "kept-apart").text
    games = browser.find_elements(By.CSS_SELECTOR, ".finalist .final-games a")
    assert sorted({int(a.text.lstrip("#")) for a in games}) == played["final_ids"]
    assert severe_console_messages(browser) == []
    games[0].click()  # a final's game is replayable like any other
    assert "step 0 of" in browser.find_element(By.ID, "step-label").text
    browser.back()
    browser.find_element(By.CSS_SELECTOR, ".finalist .ladder-path").click()
    assert "/bots/" in browser.current_url and browser.current_url.endswith("#format-duel")
    assert browser.find_element(By.ID, "format-duel").is_displayed()  # its duel section: its way on the ladder
