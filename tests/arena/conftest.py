from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from arena_helpers import missing
from pg_server import NoPostgres, PostgresServer


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "ladder.sqlite"


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing("psycopg is not installed (pip install -e '.[test]')")
    try:
        server = PostgresServer.start()
    except NoPostgres as exc:
        missing(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(postgres: PostgresServer) -> str:
    return postgres.create_database()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, db: Path) -> str:
    """A fresh database on each backend, for the migration tests (PostgreSQL: a private server, ``postgres``)."""
    return f"sqlite:///{db}" if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
