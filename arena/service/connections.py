"""The service's connections, bounded before a request exists: uvicorn's HTTP/1.1 protocol (h11) with a deadline
for each request's head and a cap on one address's open connections.

uvicorn alone bounds a kept-alive connection only between requests, and only until its first byte: a client that
opens connections and sends a head a byte at a time holds each one forever, and ``limit_concurrency`` of them
make the server answer 503 to everybody (slowloris). Here a connection waiting for a request must have its whole
head within ``head_seconds`` of the wait's start (its opening, or the previous answer), or it is closed, and so is
one whose client reads nothing of its answers for ``head_seconds`` (its answers would wait in memory for ever); one
address may hold ``per_address`` connections (an IPv6 address counts by its /64, what one host is usually given),
and a further one is closed at once. The addresses uvicorn trusts as proxies (``FORWARDED_ALLOW_IPS``) are not
capped: a proxy carries many clients' connections, and bounds their heads itself."""
from __future__ import annotations

import asyncio
import ipaddress
import logging
from typing import Any, cast

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)


def address_key(host: str) -> str:
    """What one client is counted by: an IPv4 address as it is, an IPv6 address by its /64 (one host usually holds
    a whole /64, so counting full addresses would give it 2**64 budgets), anything else (a Unix socket's peer)
    as it is."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # an IPv4 client of a dual-stack socket
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def trusted_proxies(setting: list[str] | str) -> tuple[bool, list[ipaddress.IPv4Network | ipaddress.IPv6Network]]:
    """(every address trusted, the trusted networks) of uvicorn's ``forwarded_allow_ips``; names that are no
    address (a Unix socket's) are left out."""
    items = setting.split(",") if isinstance(setting, str) else setting
    networks = []
    for item in (i.strip() for i in items):
        if item == "*":
            return True, []
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            continue
    return False, networks


def is_proxy(host: str, setting: list[str] | str) -> bool:
    """Whether the peer ``host`` is a proxy uvicorn trusts (``forwarded_allow_ips``); an IPv4 proxy on a dual-stack
    socket ([::]:PORT) is seen as ``::ffff:A.B.C.D`` and counts as A.B.C.D."""
    everyone, networks = trusted_proxies(setting)
    if everyone:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's head and for answers left unread, and a cap on
    connections per address; the bounds are read from the class (``bounded`` makes one with them)."""

    head_seconds: float = 10.0
    per_address: int = 16

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_deadline: asyncio.TimerHandle | None = None
        self.write_deadline: asyncio.TimerHandle | None = None  # while its answers wait for a client that reads none
        self.key: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(cast(asyncio.Transport, transport))  # what asyncio gives a stream protocol
        host = self.client[0] if self.client else None
        if host is not None and not is_proxy(host, self.config.forwarded_allow_ips):
            self.key = address_key(host)
            held = sum(1 for c in self.connections if isinstance(c, BoundedH11Protocol) and c.key == self.key)
            if held > self.per_address:
                log.debug("closed a connection from %s: it holds %d already", self.key, held - 1)
                transport.close()
                return
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self.head_deadline = self.loop.call_later(self.head_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def _too_slow(self) -> None:
        self.head_deadline = None
        log.debug("closed a connection from %s: no request head within %g s", self.key, self.head_seconds)
        self.transport.abort()  # not close(): a closing transport waits, for ever, until its client reads the rest

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.write_deadline is None:  # the client reads nothing of its answers: it would hold the connection
            self.write_deadline = self.loop.call_later(self.head_seconds, self._not_reading)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._stop_write_deadline()

    def _stop_write_deadline(self) -> None:
        if self.write_deadline is not None:
            self.write_deadline.cancel()
            self.write_deadline = None

    def _not_reading(self) -> None:
        self.write_deadline = None
        log.debug("closed a connection from %s: its answers unread for %g s", self.key, self.head_seconds)
        self.transport.abort()

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # a request's head arrived: its body and answer are the application's to bound
            self._disarm()

    def on_response_complete(self) -> None:
        self._arm()  # first: answering may start a pipelined request at once, which disarms it
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._stop_write_deadline()
        super().connection_lost(exc)


def bounded(head_seconds: float, per_address: int) -> type[BoundedH11Protocol]:
    """The protocol class for uvicorn's ``http``, with these bounds."""
    return type("ServiceH11Protocol", (BoundedH11Protocol,), {"head_seconds": head_seconds,
                                                               "per_address": per_address})
