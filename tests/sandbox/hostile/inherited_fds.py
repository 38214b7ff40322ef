"""Hostile: lists the descriptors it holds and what they are (device and inode: in the strong tier
there is no /proc to name them)."""
import os
import stat


def act(message):
    fds = {}
    for fd in range(1024):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        fds[str(fd)] = [st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode)]
    return {"fds": fds}
