"""Hostile: never answers a decision."""
import time


def act(message):
    if message.get("type") == "decide":
        time.sleep(10**6)
    return {}
