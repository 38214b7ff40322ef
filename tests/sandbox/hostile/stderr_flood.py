"""Hostile: writes 8 MiB to stderr on every decision, then answers correctly."""
import sys


def act(message):
    if message.get("type") == "decide":
        for _ in range(128):
            sys.stderr.write("e" * 65536)
        sys.stderr.write("\nlast words\n")
    return {"ok": True}
