"""Hostile: TCP, UDP, abstract unix sockets and a raw socket syscall through ctypes."""
import ctypes
import socket


def act(message):
    results = {}
    port = message.get("port", 9)
    for name, family, kind, address in (
        ("tcp", socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", port)),
        ("udp", socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", port)),
        ("unix-abstract", socket.AF_UNIX, socket.SOCK_STREAM, "\0" + message.get("abstract", "x")),
    ):
        try:
            s = socket.socket(family, kind)
            s.settimeout(1)
            if kind == socket.SOCK_DGRAM:
                s.sendto(b"hello", address)
            else:
                s.connect(address)
                s.sendall(b"hello")
            results[name] = "connected"
            s.close()
        except OSError as exc:
            results[name] = "error:%s" % exc.errno
    libc = ctypes.CDLL(None, use_errno=True)
    rc = libc.syscall(41, 2, 1, 0)  # SYS_socket(AF_INET, SOCK_STREAM, 0) on x86_64
    results["raw-socket"] = "fd" if rc >= 0 else "error:%d" % ctypes.get_errno()
    return {"results": results}
