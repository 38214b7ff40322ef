"""A new version starts from its predecessor's mean where it was stored, and keeps it only while the games before
stand: a flag that takes back the games a pair fed its bot takes the fed mean from the version uploaded since,
too (arena/ladder/inheritance.py); a recompute with nothing taken back changes no mean."""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from arena_helpers import db_url, present
from competition_helpers import entered, game
from pytest import MonkeyPatch
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.audit.store import rerate_all, run_audit
from arena.db import AuditFlag, Bot, BotVersion, Rating, Season, VersionFormat, make_engine, now
from arena.db.queries import stored_id
from arena.formats import format_of
from arena.submissions.accounts import ensure_author
from arena.ladder import inheritance
from arena.submissions import versions
from arena.submissions.versions import register

HONEST = ("ann", "bob", "cy")


def mean_of(session: Session, version: int) -> float:
    """The version's rated mean in classic, else the mean it starts from."""
    rating = session.get(Rating, (version, "classic"))
    return rating.mu if rating else prior_of(session, version)


def prior_of(session: Session, version: int) -> float:
    """The mean the version starts from in classic."""
    return present(session.get(VersionFormat, (version, "classic"))).prior_mu


def unchanged_by_a_recompute(session: Session) -> bool:
    return format_of("classic").ranking.rerate(session, "classic", write=False) == []


def fed_ladder(engine: Engine) -> dict[str, int]:
    """pal's bot fed by fed's in 30 of its 40 games beside three honest bots, rated: the bots' version ids."""
    ids = entered(engine, ["fed", "pal", *HONEST], "classic")
    with Session(engine) as session:
        season = Season(name="ladder", variant="classic", games=60, min_players=4, max_players=4, seed=1)
        session.add(season)
        session.flush()
        for k in range(40):  # the feeder at 30 of pal's 40 tables, giving it 6 coins of value each time
            fed = k < 30
            seated = ["pal", "fed" if fed else HONEST[k % 3], *[h for h in HONEST if fed or h != HONEST[k % 3]][:2]]
            match = game(session, season, k, now(), {ids[n]: r for r, n in enumerate(seated, 1)})
            match.flows = json.dumps([[1, 0, 6.0]] if fed else [[1, 2, 0.5]])
            session.add(match)
        session.commit()
        rerate_all(session)  # as the ladder rated the games
    return ids


def test_a_version_uploaded_after_its_bot_was_fed_loses_the_fed_mean_when_the_pair_is_flagged(tmp_path: Path) -> None:
    engine = make_engine(db_url(tmp_path / "ladder.sqlite"))
    ids = fed_ladder(engine)
    with Session(engine) as session:
        season = session.exec(select(Season)).one()
        fed_mean = mean_of(session, ids["pal"])
        # pal's author uploads a new version before the audit runs: it starts from the fed mean
        second = stored_id(register(session, "pal-bot", "# pal, version 2\n", ensure_author(session, "pal"),
                                    variants=["classic"]).version)
        assert mean_of(session, second) == fed_mean
        table = [second, *(ids[h] for h in HONEST)]
        for k in range(40, 52):  # it plays on, beside the honest bots only
            game(session, season, k, now(), {v: (seat + k) % 4 + 1 for seat, v in enumerate(table)})
        session.commit()
        rerate_all(session)
        assert unchanged_by_a_recompute(session)  # nothing taken back: every mean is where it was stored
        assert prior_of(session, second) == fed_mean

        _, flagged = run_audit(session, "classic")  # flags the pair, takes back its games, recomputes

        names = {stored_id(b): b.name for b in session.exec(select(Bot)).all()}
        pairs = [{names[f.bot_a], names[f.bot_b]} for f in session.exec(select(AuditFlag)).all()]
        assert flagged and pairs == [{"fed-bot", "pal-bot"}]
        unfed = mean_of(session, ids["pal"])
        assert unfed < fed_mean - 1  # the first version's mean without the 30 fed games
        assert prior_of(session, second) == unfed  # and the second starts there
        assert unchanged_by_a_recompute(session)
        assert present(session.get(BotVersion, second)).inherits_after == 40  # the games recorded when it was stored
    engine.dispose()


def test_a_version_stored_during_the_flags_recompute_starts_from_the_recomputed_mean(tmp_path: Path,
                                                                                     monkeypatch: MonkeyPatch) -> None:
    """The upload's register reads the predecessor's mean while the audit's recompute runs (paused right after it
    read which versions inherit), and stores the version after: it waits for the recompute, and reads the mean
    without the fed games. Before, it read the fed mean and the recompute, which had not seen the version, kept
    it. Whatever the threads' pace, the version must start from the recomputed mean; the pause is only waited out
    (2 s) when the register holds back, as it should."""
    engine = make_engine(db_url(tmp_path / "ladder.sqlite"))
    ids = fed_ladder(engine)
    recomputing, register_read = threading.Event(), threading.Event()
    real_init, real_means = inheritance.Inheritance.__init__, inheritance.inherited_means

    def paused_init(self: inheritance.Inheritance, session: Session, hold: bool = False) -> None:
        real_init(self, session, hold)
        if hold:
            recomputing.set()
            register_read.wait(2)

    def noted_means(*args: Any, **kwargs: Any) -> tuple[int, dict[str, float]]:
        found = real_means(*args, **kwargs)
        register_read.set()
        return found

    monkeypatch.setattr(inheritance.Inheritance, "__init__", paused_init)
    monkeypatch.setattr(versions, "inherited_means", noted_means)
    stored: list[int] = []

    def upload() -> None:
        recomputing.wait(60)
        with Session(engine) as session:
            stored.append(stored_id(versions.register(session, "pal-bot", "# pal, version 2\n",
                                                      ensure_author(session, "pal"), variants=["classic"]).version))

    uploader = threading.Thread(target=upload)
    uploader.start()
    with Session(engine) as session:
        _, flagged = run_audit(session, "classic")
    uploader.join(120)
    with Session(engine) as session:
        assert flagged and stored and prior_of(session, stored[0]) == mean_of(session, ids["pal"])
        assert unchanged_by_a_recompute(session)
    engine.dispose()
