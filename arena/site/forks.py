"""Work split over forked children: each inherits the caller's state at the fork (nothing of it is
pickled), does one slice and sends back its result. The caller holds the children and passes them on;
no module keeps them."""
from __future__ import annotations

import multiprocessing
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import TracebackType
from typing import Callable, Generic, Sequence, TypeVar, cast

from arena.site.errors import SiteError

#: one slice of the work: the first and last id it covers
Slice = tuple[int, int]
T = TypeVar("T")


def _child(job: Callable[[int, int], T], part: Slice, send: Connection) -> None:
    try:
        outcome: tuple[bool, object] = (True, job(*part))
    except Exception as exc:  # the parent raises it again, as a pool's result would
        outcome = (False, exc)
    try:
        send.send(outcome)
    except Exception as exc:  # an exception that does not pickle: its text
        send.send((False, SiteError(f"{type(exc).__name__}: {exc}")))
    finally:
        send.close()


class ForkedSlices(Generic[T]):
    """``job(first, last)`` for every slice, each in a child forked at once; ``results()`` waits for them and
    returns their results. A context manager: leaving it ends every child still running."""

    def __init__(self, job: Callable[[int, int], T], parts: Sequence[Slice]) -> None:
        context = multiprocessing.get_context("fork")
        self._children: list[tuple[BaseProcess, Connection, Slice]] = []
        try:
            for part in parts:
                receive, send = context.Pipe(duplex=False)
                child = context.Process(target=_child, args=(job, part, send), daemon=True)
                child.start()
                send.close()  # the child's end: once the child is gone, receiving ends instead of waiting
                self._children.append((child, receive, part))
        except BaseException:
            self.close()
            raise

    def results(self) -> list[T]:
        """The children's results, in the order of the slices; a child's exception is raised here."""
        results: list[T] = []
        for child, receive, (first, last) in self._children:
            try:
                ok, value = receive.recv()
            except EOFError:
                child.join()
                raise SiteError(f"the process writing ids {first}..{last} died (exit code {child.exitcode})") from None
            if not ok:
                assert isinstance(value, BaseException)
                raise value
            results.append(cast(T, value))
        return results

    def close(self) -> None:
        for child, receive, _part in self._children:
            if child.is_alive():
                child.terminate()
            child.join()
            receive.close()
        self._children = []

    def __enter__(self) -> ForkedSlices[T]:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def slices(ids: Sequence[int], count: int) -> list[Slice]:
    """Sorted ``ids`` cut into at most ``count`` runs of about equal length, each as (first, last)."""
    size = -(-len(ids) // count)
    return [(ids[i], ids[min(i + size, len(ids)) - 1]) for i in range(0, len(ids), size)]
