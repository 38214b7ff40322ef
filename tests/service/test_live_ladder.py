"""The living ladder end to end, as its users meet it: `arena season run --live --site DIR` runs as a real
process beside `arena serve`; two authors upload through `arena submit --to` and both new bots are ranked (10
rated games) and listed on the built site with no other command; a bot that crashes every game is paused; a
retired bot stops taking seats; SIGTERM stops the loop in one line, and the same command resumes it with no game
lost or played twice."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest
from service_helpers import BOTS, Server, add_author, client, start_server
from sqlmodel import Session
from waiting import wait_for

from arena.submissions.accounts import Actor
from arena.db import make_engine
from arena.submissions.versions import register
from forked_arena import arena_popen, arena_run

CRASHER = """from sandbox.sdk import Bot


class Crasher(Bot):
    def plant_first(self, request):
        raise RuntimeError("crasher gives up at once")
"""


def rows(db: Path, query: str, *args: object) -> list[tuple]:
    with sqlite3.connect(db, timeout=30) as conn:
        return list(conn.execute(query, args))


def rated_games(db: Path, bot: str, variant: str = "classic") -> int:
    found = rows(db, "SELECT rating.games FROM rating JOIN botversion ON botversion.id = rating.version_id "
                     "JOIN bot ON bot.id = botversion.bot_id WHERE bot.name = ? AND rating.variant = ? "
                     "AND botversion.active", bot, variant)
    return int(found[0][0]) if found else 0


class Live:
    """`arena season run --live` as a real process, its standard error in a file."""

    def __init__(self, db: Path, folder: Path, *options: str) -> None:
        self.log = folder / f"live-{time.monotonic_ns()}.err"
        self.argv = ["--db", f"sqlite:///{db}", "season", "run", "--live", *options]
        with open(self.log, "wb") as err:
            self.process = arena_popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=err, env={k: v for k, v in os.environ.items()
                                                             if k != "ARENA_TESTS_IN_PROCESS"})

    def stop(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(60)
        return code, self.log.read_text()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path


def test_the_living_ladder_ranks_uploads_pauses_the_sick_and_resumes(folder: Path) -> None:
    db = folder / "ladder.sqlite"
    site = folder / "site"
    tokens = {name: add_author(db, name) for name in ("ann", "bob", "cy")}
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:  # stored by the operator: its smoke game would have refused it
        register(session, "crasher", CRASHER, Actor.author("cy"))
    engine.dispose()
    server: Server = start_server(db, folder / "spool")
    # classic only: the loop's other formats are test_live_loop.py's (every format on Dask)
    live = Live(db, folder, "--variant", "classic", "--bosses", "random,greedy,trader", "--workers", "1",
                "--site", str(site), "--site-every", "6", "--pause-after", "3")
    try:
        (folder / "annbot.py").write_text((BOTS / "greedy_bot.py").read_text() + "\n# ann's\n")
        (folder / "bobbot.py").write_text((BOTS / "trader_bot.py").read_text() + "\n# bob's\n")
        for author in ("ann", "bob"):
            uploaded = client(server.url, tokens[author], str(folder / f"{author}bot.py"))
            assert uploaded.returncode == 0, uploaded.stderr
            assert f"{author}bot version 1 registered for classic" in uploaded.stdout

        # both are ranked with no other command: 10 rated games each, and the built site lists them ranked
        wait_for("annbot and bobbot have 10 rated classic games",
                 lambda: min(rated_games(db, "annbot"), rated_games(db, "bobbot")) >= 10,
                 process=live.process, log=live.log)

        def listed() -> bool:
            try:
                board = json.loads((site / "leaderboard-classic.json").read_text())["rows"]
            except (OSError, ValueError):
                return False
            ranked = {row["name"] for row in board if row["rank"] is not None and not row["provisional"]}
            return {"annbot", "bobbot"} <= ranked
        wait_for("the site lists annbot and bobbot ranked", listed, 120, process=live.process, log=live.log)

        # the crasher failed every game it played and was paused: it takes no seat any more
        wait_for("crasher is paused", lambda: rows(db, "SELECT paused FROM botversion JOIN bot ON bot.id = "
                                                      "botversion.bot_id WHERE bot.name = 'crasher'")[0][0] is not None,
                 process=live.process, log=live.log)
        reason = rows(db, "SELECT paused FROM botversion JOIN bot ON bot.id = botversion.bot_id "
                          "WHERE bot.name = 'crasher'")[0][0]
        assert reason.startswith("its latest 3 games all failed (crash 3); the last: exited with code")
        assert "crasher gives up at once" not in reason  # the referee's words only: the bot's stderr is its author's
        # its author sees why from their own machine: `arena status --to URL` through the service
        status = arena_run(["status", "--to", server.url], capture_output=True, text=True, timeout=120,
                                env={**os.environ, "ARENA_TOKEN": tokens["cy"]})
        assert status.returncode == 0, status.stderr
        assert "paused: its latest 3 games all failed (crash 3)" in status.stdout, status.stdout
        assert "crasher gives up at once" in status.stdout  # the author's own stderr, in the failures' evidence
        listing = arena_run(["--db", f"sqlite:///{db}", "bots"], capture_output=True, text=True,
                                 timeout=60)
        assert [line.split()[2:4] for line in listing.stdout.splitlines() if line.startswith("crasher ")] == \
            [["1", "(paused)"]], listing.stdout
        crasher_page = site / "bots" / f"{rows(db, 'SELECT id FROM bot WHERE name = ?', 'crasher')[0][0]}.html"

        def page_says_paused() -> bool:
            text = crasher_page.read_text() if crasher_page.exists() else ""
            return "is paused by the live ladder: its latest 3 games all failed (crash 3)" in text
        wait_for("the crasher's page on the site says it is paused", page_says_paused, 120,
                 process=live.process, log=live.log)
        assert "crasher gives up at once" not in crasher_page.read_text()

        # a retired bot stops taking seats: no table planned after its retirement seats it
        retired = arena_run(["--db", f"sqlite:///{db}", "bots", "retire", "annbot", "--operator"],
                                 capture_output=True, text=True, timeout=60)
        assert retired.returncode == 0, retired.stderr
        after = rows(db, "SELECT max(id) FROM match")[0][0]
        wait_for("40 more games were planned", lambda: rows(db, "SELECT max(id) FROM match")[0][0] >= after + 40,
                 process=live.process, log=live.log)
        late = rows(db, "SELECT match.id FROM matchseat JOIN match ON match.id = matchseat.match_id "
                        "JOIN botversion ON botversion.id = matchseat.version_id "
                        "JOIN bot ON bot.id = botversion.bot_id "
                        "WHERE bot.name IN ('annbot', 'crasher') AND match.id > ?", after + 20)
        assert late == []  # (tables planned in the loop's round that saw the retirement come first: 20 games at most)

        # SIGTERM: one line, exit 0, and every planned game is played after the same command starts again
        code, said = live.stop()
        assert code == 0, said
        lines = [line for line in said.splitlines() if "stopped" in line]
        assert len(lines) == 1 and lines[0].startswith("live season live stopped: ") and "resumes" in lines[0]
        assert "Traceback" not in said
        planned = {m for (m,) in rows(db, "SELECT id FROM match WHERE status = 'planned'")}
        recorded = {m for (m,) in rows(db, "SELECT id FROM match WHERE status = 'done'")}
        live = Live(db, folder, "--variant", "classic", "--workers", "1")
        wait_for("the tables left planned are played",
                 lambda: planned <= {m for (m,) in rows(db, "SELECT id FROM match WHERE status = 'done'")},
                 process=live.process, log=live.log)
        code, said = live.stop()
        assert code == 0 and "live: resuming" in said, said
        now_done = {m for (m,) in rows(db, "SELECT id FROM match WHERE status = 'done'")}
        assert recorded | planned <= now_done
        # each game recorded once: its ratings once per seat, one rated order of its own
        twice = rows(db, "SELECT match.id FROM match JOIN matchseat ON matchseat.match_id = match.id "
                         "WHERE match.status = 'done' AND match.rules_id NOT LIKE 'solo%' GROUP BY match.id "
                         "HAVING (SELECT count(*) FROM ratingsnapshot WHERE ratingsnapshot.match_id = match.id) "
                         "<> count(matchseat.id)")
        assert twice == []
    finally:
        live.kill()
        server.stop()
