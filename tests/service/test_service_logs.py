"""A bot's standard error reaches its owner through the service, and nobody else: not another author, and
not its owner either for a game whose deals are still secret (an open solo season), where a bot could print
the deal and fail for its author to read it."""
from __future__ import annotations

from pathlib import Path

from service_helpers import add_author, http, start_server
from sqlmodel import Session

from arena.submissions.accounts import Actor
from arena.db import make_engine
from arena.submissions.versions import register
from forked_arena import arena_run


def crasher(marker: str) -> str:
    """An SDK bot that prints ``marker`` on its standard error, then raises, at its first planting."""
    return ("import sys\nfrom sandbox.sdk import Bot\n\n"
            "class Crasher(Bot):\n"
            "    def plant_first(self, request):\n"
            f"        print({marker!r}, file=sys.stderr)\n"
            f"        raise ZeroDivisionError({marker!r})\n")


def arena(db: Path, *args: str) -> None:
    done = arena_run(["--db", f"sqlite:///{db}", "-q", *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def test_a_failures_stderr_is_its_owners_alone_and_never_from_a_secret_deal(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    tokens = {name: add_author(db, name) for name in ("ann", "bob")}
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register(session, "crashy", crasher("MARK-SECRET-OF-ANN"), Actor.author("ann"),
                 variants=("classic", "solo"))
    engine.dispose()
    arena(db, "season", "run", "--name", "open", "--games", "3", "--players", "3", "--bosses", "random,greedy")
    arena(db, "season", "run", "--name", "alone", "--variant", "solo", "--games", "2")  # left open: deals secret
    server = start_server(db, tmp_path / "spool")
    try:
        status, mine = http("GET", f"{server.url}/api/me", tokens["ann"])
        status_bob, bobs = http("GET", f"{server.url}/api/me", tokens["bob"])
        status_none, nobody = http("GET", f"{server.url}/api/me")
    finally:
        server.stop()
    assert status == 200 and [b["name"] for b in mine["bots"]] == ["crashy"]
    failures = mine["bots"][0]["failures"]
    assert {f["rules"].split("-")[0] for f in failures} == {"classic"}  # the solo season's games: none
    assert len(failures) == 3 and all(f["status"] == "crash" for f in failures)
    assert all("MARK-SECRET-OF-ANN" in f["stderr"] and "ZeroDivisionError" in f["stderr"] for f in failures)
    assert all(f["request"] == "plant_first" and f["step"] is not None for f in failures)
    assert status_bob == 200 and bobs == {"author": "bob", "bots": []}
    assert "MARK-SECRET-OF-ANN" not in str(bobs)
    assert status_none == 401 and "MARK" not in str(nobody)
