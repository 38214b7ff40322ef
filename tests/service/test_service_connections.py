"""The service's connections over real sockets on a loopback port: a head sent a byte at a time is cut off
(slowloris), and so are a body dribbled after the answer and a client that reads none of its answers, while a
slow reader gets its whole answer; one address
holds at most --connections-per-address connections, while another address, and a trusted proxy, are served; an
IPv6 client counts by its /64."""
from __future__ import annotations

import socket
from ipaddress import ip_network
import time
from pathlib import Path
from typing import Iterator

import pytest
from service_helpers import Server, start_server, three_authors

from arena.service.connections import address_key, is_proxy, trusted_proxies


def connect(server: Server, source: str = "127.0.0.1", receive_buffer: int = 0) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.socket()
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(30)
    sock.bind((source, 0))
    sock.connect((host, int(port)))
    return sock


def status_of(sock: socket.socket, token: str) -> int:
    """Send one whole GET /api/me on ``sock``; the status it is answered (0: closed unanswered)."""
    try:
        sock.sendall(f"GET /api/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    except (BrokenPipeError, ConnectionResetError):
        return 0
    head = b""
    try:
        while b"\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                return 0
            head += chunk
    except ConnectionResetError:  # closed before it read what was sent
        return 0
    return int(head.split()[1])


def closed_while_dribbling(sock: socket.socket, dribble: bytes, seconds: float = 30) -> bool:
    """Send ``dribble`` a byte every 0.2 s for at most ``seconds``: whether the server closed the connection."""
    sock.settimeout(0.2)
    deadline = time.monotonic() + seconds
    for byte in dribble * 1000:
        if time.monotonic() > deadline:
            return False
        try:
            sock.send(bytes([byte]))
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            return True
    return False


def slowly_read(sock: socket.socket, path: str, pace: float = 640_000) -> int:
    """GET ``path`` on ``sock`` and read the answer at ``pace`` bytes a second: the length of its body as received."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    received, started = bytearray(), time.monotonic()
    with sock:
        while chunk := sock.recv(1 << 16):
            received += chunk
            time.sleep(max(0.0, started + len(received) / pace - time.monotonic()))
    head, _, body = bytes(received).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), head
    return len(body)


def served_within(server: Server, token: str, seconds: float, source: str = "127.0.0.1") -> bool:
    """Whether a new connection from ``source`` is served within ``seconds`` (the server sees a close when its loop
    reads it, so a connection made at once may still find the closed one counted)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with connect(server, source) as sock:
            if status_of(sock, token) == 200:
                return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def authors(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return three_authors(tmp_path_factory.mktemp("connections"))


@pytest.fixture
def capped(authors: tuple[Path, dict[str, str]], tmp_path: Path) -> Iterator[Server]:
    """A server that trusts 127.0.0.3 as its proxy, with a long head deadline and 3 connections an address."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("FORWARDED_ALLOW_IPS", "127.0.0.3")
        server = start_server(authors[0], tmp_path / "spool", "--connections-per-address", "3",
                              "--head-seconds", "300")
    try:
        yield server
    finally:
        server.stop()


def test_a_slow_head_and_a_dribbled_body_are_cut_off_and_others_are_served(authors: tuple[Path, dict[str, str]],
                                                                          tmp_path: Path) -> None:
    tokens = authors[1]
    site = tmp_path / "site"
    site.mkdir()
    (site / "big.bin").write_bytes(bytes(16 << 20))  # more than the socket buffers on both sides hold
    (site / "slow.bin").write_bytes(bytes(6 << 20))
    server = start_server(authors[0], tmp_path / "spool", "--head-seconds", "1", "--stall-seconds", "1",
                          "--connections-per-address", "2", "--site", str(site))
    try:
        slow = connect(server)
        slow.sendall(b"GET /api/me HTTP/1.1\r\nHost: x\r\n")
        with connect(server) as other:
            assert status_of(other, tokens["ann"]) == 200  # served while the slow head is still coming
        assert closed_while_dribbling(slow, b"X-Padding: 1\r\n")
        slow.close()
        # a request with a body it never sends whole: answered (the route reads no body), then the rest is cut off
        with connect(server) as sock:
            sock.sendall(f"GET /api/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tokens['bob']}\r\n"
                         "Content-Length: 100000\r\n\r\n".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")
            assert closed_while_dribbling(sock, b"#")
        with connect(server) as sock:
            assert status_of(sock, tokens["cy"]) == 200
        # a client on a slow link (640 KB/s) gets the whole file: its answer stalls for seconds at a time
        # while the buffers drain, but moves within every --stall-seconds
        assert slowly_read(connect(server, "127.0.0.6", receive_buffer=4096), "/slow.bin") == 6 << 20
        # two connections that ask for a big file and read none of it: the answer fills the buffers, and after
        # --stall-seconds without a byte taken the server drops them, so their address is served again
        unread = [connect(server, "127.0.0.5", receive_buffer=4096) for _ in range(2)]
        for sock in unread:
            sock.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        assert served_within(server, tokens["ann"], 60, "127.0.0.5"), "a client that reads nothing kept its slots"
        for sock in unread:
            sock.close()
    finally:
        server.stop()


def test_one_address_holds_a_few_connections_and_others_are_served(capped: Server,
                                                                   authors: tuple[Path, dict[str, str]]) -> None:
    tokens = authors[1]
    held = [connect(capped) for _ in range(3)]
    try:
        with connect(capped) as fourth:
            assert status_of(fourth, tokens["ann"]) == 0  # closed unanswered
        with connect(capped, "127.0.0.2") as elsewhere:
            assert status_of(elsewhere, tokens["ann"]) == 200
        proxied = [connect(capped, "127.0.0.3") for _ in range(5)]  # a trusted proxy carries many clients
        assert [status_of(sock, tokens["bob"]) for sock in proxied] == [200] * 5
        for sock in proxied:
            sock.close()
        assert [status_of(sock, tokens["cy"]) for sock in held] == [200, 200, 200]  # the held ones still work
        held.pop().close()
        assert served_within(capped, tokens["ann"], 30), "a closed connection still counts against its address"
    finally:
        for sock in held:
            sock.close()


def test_a_client_is_counted_by_its_address_an_ipv6_host_by_its_64_and_a_mapped_proxy_is_trusted() -> None:
    assert address_key("203.0.113.7") == "203.0.113.7"
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:203.0.113.7") == "203.0.113.7"  # IPv4 on a dual-stack socket
    assert address_key("unix-peer") == "unix-peer"
    assert trusted_proxies("127.0.0.1, ::1") == (False, [ip_network("127.0.0.1"), ip_network("::1")])
    assert is_proxy("::ffff:127.0.0.3", "127.0.0.3") and is_proxy("127.0.0.3", ["10.0.0.0/8", "127.0.0.3"])
    assert not is_proxy("127.0.0.4", "127.0.0.3") and not is_proxy("::ffff:127.0.0.4", "127.0.0.3")
    assert is_proxy("a-socket", "*") and not is_proxy("a-socket", "127.0.0.3")
    assert trusted_proxies("*")[0] and trusted_proxies(["10.0.0.0/8", "a-socket"])[1][0].num_addresses == 2 ** 24
