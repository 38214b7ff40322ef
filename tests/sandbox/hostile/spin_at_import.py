"""Hostile: never finishes importing."""
while True:
    pass


def act(message):
    return {}
