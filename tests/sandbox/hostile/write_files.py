"""Hostile: tries to create, write and delete files in the places it is told about and in the usual ones."""
import os


def act(message):
    results = {}
    paths = list(message.get("paths", []))
    if message.get("usual_places"):
        paths += ["/tmp/bohnanza-hostile", "/bohnanza-hostile", "/dev/shm/bohnanza-hostile"]
    for path in paths:
        try:
            with open(path, "w") as f:
                f.write("pwned" * 100)
            results[path] = "written"
        except Exception as exc:  # noqa: BLE001
            results[path] = "error:" + type(exc).__name__
    for path in message.get("delete", []):
        try:
            os.remove(path)
            results["rm " + path] = "deleted"
        except Exception as exc:  # noqa: BLE001
            results["rm " + path] = "error:" + type(exc).__name__
    return {"results": results}
