"""Hostile: allocates far beyond its address-space limit; mode "catch" survives, "crash" does not."""
hoard: list[bytearray] = []


def act(message):
    try:
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))
    except MemoryError:
        hoard.clear()
        if message.get("mode") == "catch":
            return {"memory": "MemoryError"}
        raise
