"""Hostile: ignores SIGTERM/SIGINT and spins forever when asked."""
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)


def act(message):
    if message.get("type") == "decide":
        while True:
            pass
    return {}
