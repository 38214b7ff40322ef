"""The tests' private PostgreSQL server starts even when another process takes its port first (two
clones of the project running their suites at once)."""
from __future__ import annotations

import socket

import pg_server
import pytest
from arena_helpers import missing
from pg_server import NoPostgres, PostgresServer


def test_a_taken_port_is_given_up_for_another(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing("psycopg is not installed (pip install -e '.[test]')")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        ports = iter([taken.getsockname()[1]])
        real_free_port = pg_server.free_port
        monkeypatch.setattr(pg_server, "free_port", lambda: next(ports, None) or real_free_port())
        try:
            server = PostgresServer.start()
        except NoPostgres as exc:
            missing(str(exc))
        try:
            assert server.port != taken.getsockname()[1]
            assert server.create_database().startswith(f"postgresql://postgres@127.0.0.1:{server.port}/")
        finally:
            server.stop()
