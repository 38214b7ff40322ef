"""The service's queue of uploads on disk: an upload is whole or absent, and is never lost.

An accepted upload is written to ``tmp/``, flushed to disk and renamed into ``queue/`` (a rename is
atomic), so a server killed mid-upload leaves at most a stray file in ``tmp/``, removed at the next
start. The worker takes tickets from ``queue/`` in order and writes each verdict to ``done/`` the same
way before it removes the queued ticket: a worker killed mid-check finds the ticket again."""
from __future__ import annotations

import base64
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Iterator


class TicketState(StrEnum):
    QUEUED = "queued"
    ACCEPTED = "accepted"  # stored as a new version (or the same code again)
    REFUSED = "refused"  # refused: the reason says why; nothing was stored


@dataclass(frozen=True)
class Ticket:
    """One upload: who sent it, under which bot name and file name, and its bytes."""

    id: str
    author: str  # the account name the token belongs to
    name: str
    filename: str
    received: float  # seconds since the epoch
    data: bytes = field(repr=False)

    def to_json(self) -> str:
        fields = asdict(self)
        fields["data"] = base64.b64encode(self.data).decode("ascii")
        return json.dumps(fields)

    @classmethod
    def from_json(cls, text: str) -> Ticket:
        fields = json.loads(text)
        fields["data"] = base64.b64decode(fields["data"])
        return cls(**fields)


@dataclass(frozen=True)
class Verdict:
    """What became of a ticket: its state and what `arena submit` would have printed (``out`` on standard
    output, ``err`` on standard error, ``refusal`` its error line)."""

    id: str
    author: str
    name: str
    state: TicketState
    out: tuple[str, ...] = ()
    err: tuple[str, ...] = ()
    refusal: str | None = None
    version: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "bot": self.name, "state": self.state.value, "out": list(self.out),
                "err": list(self.err), "refusal": self.refusal, "version": self.version}


class Spool:
    """The folders of the queue under ``root`` (made when missing)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tmp, self.queue, self.done = root / "tmp", root / "queue", root / "done"
        for folder in (self.tmp, self.queue, self.done):
            folder.mkdir(parents=True, exist_ok=True)

    def clear_partial(self) -> int:
        """Remove what a killed server left half-written; how many files."""
        stray = list(self.tmp.iterdir())
        for path in stray:
            path.unlink(missing_ok=True)
        return len(stray)

    def _write(self, folder: Path, name: str, text: str) -> None:
        partial = self.tmp / f"{name}.{secrets.token_hex(4)}"
        with open(partial, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, folder / name)
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)

    def accept(self, author: str, name: str, filename: str, data: bytes) -> Ticket:
        """Queue an upload for good; its ticket id sorts after every earlier one."""
        ticket = Ticket(f"{time.time_ns():020d}-{secrets.token_hex(4)}", author, name, filename, time.time(), data)
        self._write(self.queue, f"{ticket.id}.json", ticket.to_json())
        return ticket

    def pending(self) -> Iterator[Ticket]:
        """Queued tickets, oldest first."""
        for path in sorted(self.queue.glob("*.json")):
            try:
                yield Ticket.from_json(path.read_text(encoding="utf-8"))
            except FileNotFoundError:  # finished meanwhile
                continue

    def finish(self, verdict: Verdict) -> None:
        record = {**verdict.to_json(), "author": verdict.author, "finished": time.time()}
        self._write(self.done, f"{verdict.id}.json", json.dumps(record))
        (self.queue / f"{verdict.id}.json").unlink(missing_ok=True)

    def lookup(self, ticket_id: str) -> tuple[str, dict[str, Any]] | None:
        """(author, what to show) of ticket ``ticket_id``, queued or done; None if there is none."""
        if not ticket_id.replace("-", "").isalnum() or len(ticket_id) > 40:
            return None
        done = self.done / f"{ticket_id}.json"
        if done.is_file():
            record = json.loads(done.read_text(encoding="utf-8"))
            return record.pop("author"), {k: v for k, v in record.items() if k != "finished"}
        queued = self.queue / f"{ticket_id}.json"
        try:
            ticket = Ticket.from_json(queued.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        ahead = sum(1 for path in self.queue.glob("*.json") if path.name < queued.name)
        return ticket.author, {**Verdict(ticket.id, ticket.author, ticket.name, TicketState.QUEUED).to_json(),
                               "ahead": ahead}

    def is_queued(self, ticket_id: str) -> bool:
        return (self.queue / f"{ticket_id}.json").exists()

    def lock(self) -> Any:
        """Hold the spool for this server alone (an open file with an exclusive lock: keep it open); raises
        ``BlockingIOError`` when another server holds it. Two servers on one spool would check a ticket twice."""
        import fcntl

        handle = open(self.root / "lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise
        return handle

    def queued(self) -> int:
        return sum(1 for _ in self.queue.glob("*.json"))
