"""The service's queue of uploads on disk: an upload is whole or absent, and is never lost.

An accepted upload is written to ``tmp/``, flushed to disk and renamed into ``queue/`` (a rename is
atomic), so a server killed mid-upload leaves at most a stray file in ``tmp/``, removed at the next
start. Several worker processes share the queue: a worker claims a ticket by holding an exclusive
``flock`` on ``working/ID.lock`` while it checks it (claims are made one at a time under ``claims.lock``),
and writes the verdict to ``done/`` before it removes the queued ticket. The kernel releases the lock of a
worker that dies, so a ticket whose check was cut off by a kill is simply queued again, whole.

Which ticket is next is fair across authors: never two uploads of one author at once, and among the
authors with an upload waiting, the one whose turn came first, a turn beginning when their oldest waiting
upload arrived or when their previous upload finished, whichever is later (round-robin: an author who was
just served goes behind everyone already waiting)."""
from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO, Any, Iterator


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


@dataclass(frozen=True)
class Claim:
    """A ticket one worker checks: ``handle`` holds the exclusive lock of ``lock`` until the verdict."""

    ticket: Ticket
    lock: Path
    handle: IO[str] = field(repr=False)


class Spool:
    """The folders of the queue under ``root`` (made when missing)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tmp, self.queue, self.done = root / "tmp", root / "queue", root / "done"
        self.working = root / "working"
        for folder in (self.tmp, self.queue, self.done, self.working):
            folder.mkdir(parents=True, exist_ok=True)
        self._seen: dict[str, tuple[str, float]] = {}  # ticket id -> (author, received): tickets never change

    def clear_partial(self) -> int:
        """Remove what a killed server left half-written (and its workers' lock files: none runs yet); how many
        half-received uploads."""
        stray = list(self.tmp.iterdir())
        for path in stray:
            path.unlink(missing_ok=True)
        for path in self.working.glob("*.lock"):
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

    def finish(self, verdict: Verdict, claim: Claim | None = None) -> None:
        """Keep the verdict, then take its ticket off the queue (and end ``claim``, the worker's hold on it)."""
        finished = time.time()
        record = {**verdict.to_json(), "author": verdict.author, "finished": finished}
        with self._claims():
            self._write(self.done, f"{verdict.id}.json", json.dumps(record))
            (self.queue / f"{verdict.id}.json").unlink(missing_ok=True)
            self._seen.pop(verdict.id, None)
            self._take_turn(verdict.author, finished)
            if claim is not None:
                self._unclaim(claim)

    def release(self, claim: Claim) -> None:
        """Give a claimed ticket back to the queue unchecked (a machine fault: it is tried again), its author's turn
        taken now: an upload whose check keeps failing goes behind the other authors' waiting ones, never again
        first in line (it stalled the queue for everyone)."""
        with self._claims():
            self._take_turn(claim.ticket.author, time.time())
            self._unclaim(claim)

    def fault(self, claim: Claim) -> tuple[int, float]:
        """Count a machine fault met checking ``claim``'s ticket: the faults its checks met so far and the seconds
        since the first (``faults.json``, which keeps only the tickets still queued)."""
        now = time.time()
        with self._claims():
            faults = self._faults()
            count, first = faults.get(claim.ticket.id, (0, now))
            faults[claim.ticket.id] = (count + 1, first)
            self._write(self.root, "faults.json", json.dumps(faults))
        return count + 1, now - first

    def _faults(self) -> dict[str, tuple[int, float]]:
        """Under the claims lock: the fault counts of the tickets still queued."""
        try:
            stored = json.loads((self.root / "faults.json").read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        queued = {path.name.removesuffix(".json") for path in self.queue.glob("*.json")}
        return {str(i): (int(c), float(t)) for i, (c, t) in stored.items() if i in queued} \
            if isinstance(stored, dict) else {}

    def _take_turn(self, author: str, at: float) -> None:
        """Under the claims lock: ``author`` had its turn at ``at`` (the round-robin's order, ``claim``)."""
        turns = self._turns()
        turns[author] = at
        # a turn matters only while it is later than its author's waiting upload arrived: keep a day's
        oldest = min([at - 86400.0, *(received for _, received in self._seen.values())])
        self._write(self.root, "turns.json", json.dumps({a: t for a, t in turns.items() if t >= oldest}))

    def _unclaim(self, claim: Claim) -> None:
        claim.lock.unlink(missing_ok=True)  # under the claims lock: no other worker has it open meanwhile
        claim.handle.close()

    @contextlib.contextmanager
    def _claims(self) -> Iterator[None]:
        """Hold the spool's claims lock: one worker at a time takes, finishes or gives back a ticket."""
        with open(self.root / "claims.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield

    def _turns(self) -> dict[str, float]:
        try:
            turns = json.loads((self.root / "turns.json").read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return {str(a): float(t) for a, t in turns.items()} if isinstance(turns, dict) else {}

    def _try_lock(self, ticket_id: str) -> IO[str] | None:
        """The held lock of a ticket no worker holds, or None when a worker checks it."""
        handle = open(self.working / f"{ticket_id}.lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        return handle

    def _meta(self, path: Path) -> tuple[str, float] | None:
        """(author, received) of a queued ticket file; None if it is gone."""
        ticket_id = path.name.removesuffix(".json")
        if ticket_id not in self._seen:
            try:
                ticket = Ticket.from_json(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                return None
            self._seen[ticket_id] = (ticket.author, ticket.received)
        return self._seen[ticket_id]

    def claim(self) -> Claim | None:
        """Take the next ticket to check (the module's docstring says which), locked for this process until
        ``finish`` or ``release``; None when every waiting upload is of an author whose upload is being checked."""
        with self._claims():
            queued = sorted(self.queue.glob("*.json"))
            ids = {path.name.removesuffix(".json") for path in queued}
            self._seen = {i: meta for i, meta in self._seen.items() if i in ids}
            busy: set[str] = set()
            free: dict[str, tuple[Path, float, IO[str]]] = {}  # each free author's oldest ticket
            try:
                for path in queued:
                    meta = self._meta(path)
                    if meta is None or meta[0] in free:
                        continue
                    if (self.done / path.name).exists():  # a worker died between its verdict and this removal
                        path.unlink(missing_ok=True)
                        continue
                    handle = self._try_lock(path.name.removesuffix(".json"))
                    if handle is None:
                        busy.add(meta[0])
                    else:
                        free[meta[0]] = (path, meta[1], handle)
                turns = self._turns()
                waiting = [(max(received, turns.get(author, 0.0)), path.name, author)
                           for author, (path, received, _) in free.items() if author not in busy]
                chosen = min(waiting)[2] if waiting else None
                if chosen is None:
                    return None
                path, _, handle = free.pop(chosen)
                try:
                    ticket = Ticket.from_json(path.read_text(encoding="utf-8"))
                except FileNotFoundError:
                    handle.close()
                    return None
                handle.seek(0)
                handle.truncate()
                handle.write(f"{os.getpid()}\n")  # who checks it: for the operator (and a test that kills it)
                handle.flush()
                return Claim(ticket, self.working / f"{ticket.id}.lock", handle)
            finally:
                for _, _, other in free.values():
                    other.close()

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
        ``BlockingIOError`` when another server holds it: its workers' locks would be swept at the start."""
        handle = open(self.root / "lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise
        return handle

    def queued(self) -> int:
        return sum(1 for _ in self.queue.glob("*.json"))
