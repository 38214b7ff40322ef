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
import fcntl
import ipaddress
import logging
import socket
import struct
import termios
from typing import Any, cast

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

#: Linux's ``struct tcp_info``: the offset of ``tcpi_bytes_acked`` (a u64, since Linux 4.1), and what is read of it
_BYTES_ACKED = 120
_TCP_INFO_BYTES = 192


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
    """uvicorn's h11 protocol with a deadline for each request's head, a watch on answers that stop going out, and
    a cap on connections per address; the bounds are read from the class (``bounded`` makes one with them)."""

    head_seconds: float = 10.0
    stall_seconds: float = 60.0
    per_address: int = 16

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_deadline: asyncio.TimerHandle | None = None
        self.stall_check: asyncio.TimerHandle | None = None  # while an answer waits on its client
        self.taken = 0  # how far the client had read at the last look (``_taken``)
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
        if self._unsent():  # the last answer is still going out: the stall watch bounds that, not the head's wait
            self._watch()
            return
        log.debug("closed a connection from %s: no request head within %g s", self.key, self.head_seconds)
        self.transport.abort()

    def _unsent(self) -> int:
        """Bytes of answers the client has not taken yet: in the transport's buffer and in the socket's send queue."""
        unsent, sock = self.transport.get_write_buffer_size(), self.transport.get_extra_info("socket")
        if sock is not None:
            try:
                unsent += struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
            except OSError:
                pass
        return unsent

    def _taken(self) -> int:
        """How far the client has read: the bytes its side acknowledged (Linux's ``tcpi_bytes_acked``; it stops
        once a client that reads nothing has a full receive buffer), else minus what is unsent."""
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            try:
                raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_BYTES)
            except OSError:  # not TCP
                raw = b""
            if len(raw) >= _BYTES_ACKED + 8:
                return int(struct.unpack_from("Q", raw, _BYTES_ACKED)[0])
        return -self._unsent()

    def _watch(self) -> None:
        """Look again in ``stall_seconds``: an answer the client took nothing of meanwhile ends the connection."""
        if self.stall_check is None:
            self.taken = self._taken()
            self.stall_check = self.loop.call_later(self.stall_seconds, self._stalled)

    def _stalled(self) -> None:
        self.stall_check = None
        if not self._unsent():  # all taken
            if self.head_deadline is None and (self.cycle is None or self.cycle.response_complete):
                self._arm()  # and no request under way: the next head has its own wait
            return
        if self._taken() <= self.taken:  # not a byte taken in stall_seconds: a client that reads nothing
            log.debug("closed a connection from %s: its answer stalled %g s", self.key, self.stall_seconds)
            self.transport.abort()  # not close(): a closing transport waits, for ever, until its client reads
            return
        self._watch()  # slow, but moving: an honest client on a slow link

    def pause_writing(self) -> None:
        super().pause_writing()
        self._watch()

    def _stop_watching(self) -> None:
        if self.stall_check is not None:
            self.stall_check.cancel()
            self.stall_check = None

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
        self._stop_watching()
        super().connection_lost(exc)


def bounded(head_seconds: float, stall_seconds: float, per_address: int) -> type[BoundedH11Protocol]:
    """The protocol class for uvicorn's ``http``, with these bounds."""
    return type("ServiceH11Protocol", (BoundedH11Protocol,), {"head_seconds": head_seconds,
                                                               "stall_seconds": stall_seconds,
                                                               "per_address": per_address})
