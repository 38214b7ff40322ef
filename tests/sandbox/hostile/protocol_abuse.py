"""Hostile: writes to the real protocol descriptor behind the runner's back, in the mode it is told."""
import os
import stat


def _protocol_fd():
    for fd in range(3, 20):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISFIFO(st.st_mode) and os.get_blocking(fd) is not None:
            try:
                os.write(fd, b"")
                return fd
            except OSError:
                continue
    raise RuntimeError("no protocol fd found")


def act(message):
    mode = message.get("mode")
    if message.get("type") != "decide":
        return {}
    fd = _protocol_fd()
    if mode == "huge-line":
        chunk = b"x" * 65536
        for _ in range(40):
            os.write(fd, chunk)
        return {}
    if mode == "garbage":
        os.write(fd, b"this is not json\n")
        return None
    if mode == "extra-lines":
        os.write(fd, b'{"a":1}\n{"b":2}\n')
        return None
    if mode == "non-object":
        os.write(fd, b"[1,2,3]\n")
        return None
    if mode == "stdout-flood":
        for _ in range(2000):
            print("flooding stdout " * 20)
        return {"flooded": True}
    raise ValueError(mode)

