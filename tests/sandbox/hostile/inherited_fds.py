"""Hostile: lists the descriptors it holds and what they point at."""
import os


def act(message):
    fds = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            fds[name] = os.readlink("/proc/self/fd/" + name)
        except OSError:
            fds[name] = "?"
    return {"fds": fds}
