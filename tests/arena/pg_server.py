"""A private PostgreSQL server for tests: initdb into a temporary folder, pg_ctl on a free localhost port.

As root the server runs as the ``postgres`` user (through ``runuser``); the folder lives under /tmp
so that user can reach it. Authentication is ``trust`` on 127.0.0.1 only.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path


class NoPostgres(RuntimeError):
    """The PostgreSQL server binaries (Debian package ``postgresql``) or its user are missing."""


def server_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise NoPostgres("no initdb under /usr/lib/postgresql/*/bin (apt-get install postgresql)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PostgresServer:
    folder: Path
    port: int
    bin: Path
    user: str

    def _run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", self.user, "--"] if os.geteuid() == 0 else []
        result = subprocess.run([*prefix, *argv], capture_output=True, text=True, timeout=timeout, cwd=self.folder)
        if result.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({result.returncode}): {result.stderr or result.stdout}")
        return result

    @classmethod
    def start(cls) -> PostgresServer:
        bin_ = server_bin()
        user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        try:
            entry = pwd.getpwnam(user)
        except KeyError:
            raise NoPostgres(f"no user {user!r} to run the server as") from None
        folder = Path(tempfile.mkdtemp(prefix="arena-pg-", dir="/tmp"))
        os.chown(folder, entry.pw_uid, entry.pw_gid)
        server = cls(folder, free_port(), bin_, user)
        try:
            server._run(str(bin_ / "initdb"), "-D", str(folder / "data"), "-U", "postgres", "-A", "trust",
                        "-E", "UTF8", "--locale=C", "--no-sync")
            for attempt in range(3):  # another process (a second clone's tests) may take the free port first
                options = (f"-p {server.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                           "-c synchronous_commit=off -c full_page_writes=off")
                try:
                    server._run(str(bin_ / "pg_ctl"), "-D", str(folder / "data"), "-l", str(folder / "server.log"),
                                "-o", options, "-w", "-t", "60", "start", timeout=90)
                    break
                except RuntimeError:
                    log = ((folder / "server.log").read_text(errors="replace") if (folder / "server.log").exists()
                           else "")
                    if attempt == 2 or "already in use" not in log:
                        raise
                    server.port = free_port()
        except BaseException:
            server.stop()
            raise
        return server

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        name = f"arena_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if (self.folder / "data" / "postmaster.pid").exists():
            try:
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(self.folder, ignore_errors=True)
