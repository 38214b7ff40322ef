"""The steps that upgrade a database of an older schema version (arena.db.connect runs them in order)."""
from __future__ import annotations

import zlib

from sqlalchemy import LargeBinary
from sqlalchemy.engine import Connection, Engine


def _upgrade_to_2(engine: Engine) -> None:
    """Schema 1 -> 2, in one transaction: the formats a version plays and its starting means, kept in
    ``botversion`` as the texts ``variants`` ("classic,duel") and ``priors`` ("classic=31.2;duel=24.0",
    else ``prior_mu`` everywhere), become ``versionformat`` rows, and those columns go. Schema 1 gained
    columns during its life (``variants``, ``priors``, ``season.closed_at``): an older file lacks them,
    which means classic only, ``prior_mu`` in every format, and open seasons."""
    from sqlalchemy import inspect, text

    inspector = inspect(engine)
    columns = {c["name"] for c in inspector.get_columns("botversion")}
    season_columns = {c["name"] for c in inspector.get_columns("season")}
    with engine.begin() as conn:
        if "closed_at" not in season_columns:
            conn.execute(text("ALTER TABLE season ADD COLUMN closed_at TIMESTAMP NULL"))
        if "prior_mu" not in columns:
            return  # made by schema 2 already (a database whose version row was lost)
        pick = ", ".join(["id", "prior_mu", "variants" if "variants" in columns else "'classic'",
                          "priors" if "priors" in columns else "''"])
        known = ("classic", "duel", "solo")  # every format schema 1 knew: a row for each, as register() makes
        for version_id, prior_mu, variants, priors in conn.execute(text(f"SELECT {pick} FROM botversion")).all():
            plays = set(filter(None, variants.split(",")))
            means = dict(item.partition("=")[::2] for item in filter(None, priors.split(";")))
            for variant in sorted(set(known) | plays | set(means)):
                conn.execute(text("INSERT INTO versionformat (version_id, variant, plays, prior_mu) "
                                  "VALUES (:v, :f, :p, :mu)"),
                             {"v": version_id, "f": variant, "p": variant in plays,
                              "mu": float(means.get(variant, prior_mu))})
        for column in ("prior_mu", "variants", "priors"):
            if column in columns:
                conn.execute(text(f"ALTER TABLE botversion DROP COLUMN {column}"))
        conn.execute(text("UPDATE meta SET value = '2' WHERE key = 'schema_version'"))


def _upgrade_to_3(engine: Engine) -> None:
    """Schema 2 -> 3: the failure evidence of a seat (empty for the games recorded before)."""
    from sqlalchemy import inspect, text

    columns = {c["name"] for c in inspect(engine).get_columns("matchseat")}
    added = {"failure_request": "VARCHAR NOT NULL DEFAULT ''", "failure_step": "INTEGER NULL",
             "failure_log": "VARCHAR NOT NULL DEFAULT ''"}
    with engine.begin() as conn:
        for column, kind in added.items():
            if column not in columns:
                conn.execute(text(f"ALTER TABLE matchseat ADD COLUMN {column} {kind}"))
        conn.execute(text("UPDATE meta SET value = '3' WHERE key = 'schema_version'"))


def _upgrade_to_4(engine: Engine) -> None:
    """Schema 3 -> 4: the language of a version (every version stored before is Python)."""
    from sqlalchemy import inspect, text

    columns = {c["name"] for c in inspect(engine).get_columns("botversion")}
    with engine.begin() as conn:
        if "language" not in columns:
            conn.execute(text("ALTER TABLE botversion ADD COLUMN language VARCHAR NOT NULL DEFAULT 'python'"))
        conn.execute(text("UPDATE meta SET value = '4' WHERE key = 'schema_version'"))


def _upgrade_to_7(engine: Engine) -> None:
    """Schema 6 -> 7: a failed seat's ``failure_step`` becomes the replay's step (actions played, the
    one numbering of engine/spectator.py) instead of the number of events before the request."""
    from sqlalchemy import text

    from arena.db.columns import stored_text
    from engine.replay import Replay
    from engine.spectator import step_after_events

    with engine.begin() as conn:
        rows = conn.execute(text("SELECT matchseat.id, matchseat.failure_step, \"match\".replay FROM matchseat "
                                 "JOIN \"match\" ON \"match\".id = matchseat.match_id "
                                 "WHERE matchseat.failure_step IS NOT NULL")).all()
        for seat_id, events, replay in rows:
            try:
                if isinstance(replay, (bytes, memoryview)):  # a database made by this arena, marked older
                    replay = stored_text(bytes(replay))
                step = step_after_events(Replay.loads(replay), int(events)) if replay else None
            except ValueError:  # a replay this arena cannot play again: the position is unknown
                step = None
            conn.execute(text("UPDATE matchseat SET failure_step = :s WHERE id = :i"), {"s": step, "i": seat_id})
        conn.execute(text("UPDATE meta SET value = '7' WHERE key = 'schema_version'"))


def _upgrade_to_8(engine: Engine) -> None:
    """Schema 7 -> 8: a game's replay is stored compressed (``CompressedText``). PostgreSQL's text column
    becomes bytea first; SQLite keeps the column and stores bytes in it. Rows are rewritten in batches, so
    an upgrade holds little memory; a row already compressed is left as it is."""
    from sqlalchemy import inspect, text

    from arena.db.columns import COMPRESSION, is_plain

    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            kind = {c["name"]: c["type"] for c in inspect(conn).get_columns("match")}["replay"]
            if not isinstance(kind, LargeBinary):
                conn.execute(text("ALTER TABLE \"match\" ALTER COLUMN replay TYPE bytea "
                                  "USING convert_to(replay, 'UTF8')"))
        last = -1
        while True:
            rows = conn.execute(text("SELECT id, replay FROM \"match\" WHERE id > :last AND replay IS NOT NULL "
                                     "ORDER BY id LIMIT 500"), {"last": last}).all()
            if not rows:
                break
            for match_id, stored in rows:
                data = stored.encode("utf-8") if isinstance(stored, str) else bytes(stored)
                if is_plain(data):
                    conn.execute(text("UPDATE \"match\" SET replay = :r WHERE id = :i"),
                                 {"r": zlib.compress(data, COMPRESSION), "i": match_id})
            last = rows[-1][0]
        conn.execute(text("UPDATE meta SET value = '8' WHERE key = 'schema_version'"))


def _upgrade_to_9(engine: Engine) -> None:
    """Schema 8 -> 9: ``botversion.by_operator`` (false for every version stored before), and an account
    (``author``, made by create_all) for every free-text author of a submitted bot, without a token: its
    bots stay its own, and the operator gives it a token with ``arena authors rotate NAME``. Authors whose
    names differ only in spaces or case were one group at the tables already, and become one account. A
    name no account may take (the built-in bots' "arena", control characters, over 64 characters) makes
    none: those bots stay unowned, and only the operator changes them."""
    from sqlalchemy import inspect, text

    from arena.db.queries import author_key

    columns = {c["name"] for c in inspect(engine).get_columns("botversion")}
    with engine.begin() as conn:
        if "by_operator" not in columns:
            conn.execute(text("ALTER TABLE botversion ADD COLUMN by_operator BOOLEAN NOT NULL DEFAULT FALSE"))
        taken = {key for (key,) in conn.execute(text("SELECT key FROM author")).all()}
        for (name,) in conn.execute(text("SELECT author FROM bot WHERE NOT builtin AND author <> '' "
                                         "ORDER BY id")).all():
            key = author_key(name)
            if key == "arena" or not name.isprintable() or len(name) > 64:
                continue  # no account may take these: their bots stay unowned, changed by the operator
            if key and key not in taken:
                taken.add(key)
                conn.execute(text("INSERT INTO author (name, key, created_at) VALUES (:n, :k, CURRENT_TIMESTAMP)"),
                             {"n": " ".join(name.split()), "k": key})
        conn.execute(text("UPDATE meta SET value = '9' WHERE key = 'schema_version'"))


def _upgrade_to_10(engine: Engine) -> None:
    """Schema 9 -> 10: ``season.live`` (false: every season before was a batch), ``botversion.paused`` and
    ``paused_at`` (none paused); the seats' logs (``seatlog``) are a new table made by create_all."""
    from sqlalchemy import inspect, text

    inspector = inspect(engine)
    season = {c["name"] for c in inspector.get_columns("season")}
    version = {c["name"] for c in inspector.get_columns("botversion")}
    with engine.begin() as conn:
        if "live" not in season:
            conn.execute(text("ALTER TABLE season ADD COLUMN live BOOLEAN NOT NULL DEFAULT FALSE"))
        if "paused" not in version:
            conn.execute(text("ALTER TABLE botversion ADD COLUMN paused VARCHAR NULL"))
        if "paused_at" not in version:
            conn.execute(text("ALTER TABLE botversion ADD COLUMN paused_at TIMESTAMP NULL"))
        conn.execute(text("UPDATE meta SET value = '10' WHERE key = 'schema_version'"))


def _upgrade_to_11_confirmed_flags(engine: Engine) -> None:
    """Schema 10 -> 11: ``auditflag.confirmed_at`` (no flag stored before was confirmed)."""
    from sqlalchemy import inspect, text

    columns = {c["name"] for c in inspect(engine).get_columns("auditflag")}
    with engine.begin() as conn:
        if "confirmed_at" not in columns:
            conn.execute(text("ALTER TABLE auditflag ADD COLUMN confirmed_at TIMESTAMP NULL"))
        conn.execute(text("UPDATE meta SET value = '11' WHERE key = 'schema_version'"))


def _upgrade_to_12_tickets(engine: Engine) -> None:
    """Schema 11 -> 12 (one ticket per author): ``botversion.program_sha256``, computed for every version, and
    ``author.removed_at``. A bot whose author has no account lost it to `arena authors remove` (schema 9 made
    an account of every author): that name becomes a removed account, reserved, so that nobody inherits its bots."""
    from sqlalchemy import inspect, text

    from arena.db.queries import author_key

    inspector = inspect(engine)
    version = {c["name"] for c in inspector.get_columns("botversion")}
    author = {c["name"] for c in inspector.get_columns("author")}
    with engine.begin() as conn:
        if "program_sha256" not in version:
            conn.execute(text("ALTER TABLE botversion ADD COLUMN program_sha256 VARCHAR NOT NULL DEFAULT ''"))
            conn.execute(text("CREATE INDEX ix_botversion_program_sha256 ON botversion (program_sha256)"))
        if "removed_at" not in author:
            conn.execute(text("ALTER TABLE author ADD COLUMN removed_at TIMESTAMP NULL"))
        _hash_programs(conn, only_missing=True)
        taken = {key for (key,) in conn.execute(text("SELECT key FROM author")).all()}
        for (name,) in conn.execute(text("SELECT author FROM bot WHERE NOT builtin AND author <> '' "
                                         "ORDER BY id")).all():
            key = author_key(name)
            if key and key != "arena" and key not in taken and name.isprintable() and len(name) <= 64:
                taken.add(key)
                conn.execute(text("INSERT INTO author (name, key, created_at, removed_at) "
                                  "VALUES (:n, :k, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
                             {"n": " ".join(name.split()), "k": key})
        conn.execute(text("UPDATE meta SET value = '12' WHERE key = 'schema_version'"))


def _upgrade_to_13_flows(engine: Engine) -> None:
    """Schema 12 -> 13: ``match.flows``, the audit's trade flows of a game as it was played. Older games keep
    None: the audit plays them again from their replays, as before."""
    from sqlalchemy import inspect, text

    with engine.begin() as conn:
        if "flows" not in {c["name"] for c in inspect(engine).get_columns("match")}:
            conn.execute(text('ALTER TABLE "match" ADD COLUMN flows VARCHAR NULL'))
        conn.execute(text("UPDATE meta SET value = '13' WHERE key = 'schema_version'"))


def _upgrade_to_14_competitions(engine: Engine) -> None:
    """Schema 13 -> 14: competitions; their two tables (``competition``, ``competitionentry``) are made by create_all,
    and nothing stored before changes."""
    from sqlalchemy import text

    with engine.begin() as conn:
        conn.execute(text("UPDATE meta SET value = '14' WHERE key = 'schema_version'"))


def _upgrade_to_15_test_games(engine: Engine) -> None:
    """Schema 14 -> 15: the games of `arena test`'s pairs; their table (``testrungame``) is made by create_all. A
    pair counted before has no games stored: its test page lists it without links."""
    from sqlalchemy import text

    with engine.begin() as conn:
        conn.execute(text("UPDATE meta SET value = '15' WHERE key = 'schema_version'"))


def _upgrade_to_16_program_hashes(engine: Engine) -> None:
    """Schema 15 -> 16: every version's program hash computed again. Under Python 3.12 and later the hash of a
    program with an f-string was made of the f-string's parts (``arena.submissions.programs``): such a database
    would not find a copy submitted now. A database made under 3.11 keeps every hash as it was."""
    from sqlalchemy import text

    with engine.begin() as conn:
        _hash_programs(conn, only_missing=False)
        conn.execute(text("UPDATE meta SET value = '16' WHERE key = 'schema_version'"))


def _upgrade_to_17_inheritance(engine: Engine) -> None:
    """Schema 16 -> 17: ``botversion.inherits_after`` (None for every version stored before: each keeps the means
    it was stored with, as a recompute of the ratings left them until now)."""
    from sqlalchemy import inspect, text

    columns = {c["name"] for c in inspect(engine).get_columns("botversion")}
    with engine.begin() as conn:
        if "inherits_after" not in columns:
            conn.execute(text("ALTER TABLE botversion ADD COLUMN inherits_after INTEGER NULL"))
        conn.execute(text("UPDATE meta SET value = '17' WHERE key = 'schema_version'"))


def _hash_programs(conn: Connection, only_missing: bool) -> None:
    """Store each version's program hash (``arena.submissions.programs``) where it differs from the stored one
    (``only_missing``: of the versions that have none yet), in batches: a source is up to 256 KiB."""
    from sqlalchemy import text

    from arena.submissions.programs import program_hash

    missing = "AND program_sha256 = '' " if only_missing else ""
    last = -1
    while True:
        rows = conn.execute(text(f"SELECT id, source, language, program_sha256 FROM botversion WHERE id > :last "
                                 f"{missing}ORDER BY id LIMIT 200"), {"last": last}).all()
        if not rows:
            return
        for version_id, source, language, stored in rows:
            if (digest := program_hash(source, language)) != stored:
                conn.execute(text("UPDATE botversion SET program_sha256 = :h WHERE id = :i"),
                             {"h": digest, "i": version_id})
        last = rows[-1][0]
