"""Hostile: double fork + setsid, leaving a daemon that outlives the game if nobody kills it."""
import os
import time


def act(message):
    try:
        pid = os.fork()
    except OSError as exc:
        return {"daemon": f"error:{exc.errno}"}
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                time.sleep(0.05)
        os._exit(0)
    os.waitpid(pid, 0)
    return {"daemon": "started"}
