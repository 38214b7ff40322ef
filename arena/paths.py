"""Where the project's data folders are: next to the packages in a source checkout (and an editable
install), or where a built wheel put them (``<prefix>/share/bohnanza-arena``); and whether a user's
folder takes new files."""
from __future__ import annotations

import sys
import tempfile
from functools import cache
from pathlib import Path

SHARE = "share/bohnanza-arena"


@cache
def data_dir(name: str) -> Path:
    """The folder ``name`` (``bots``, ``seeds``, ``site``) of the project."""
    for root in (Path(__file__).resolve().parent.parent, Path(sys.prefix) / SHARE):
        if (root / name).is_dir():
            return root / name
    raise FileNotFoundError(f"the project's {name!r} folder is neither next to the arena package nor in "
                            f"{Path(sys.prefix) / SHARE}: reinstall bohnanza-arena")


def new_file_refused(folder: Path) -> str | None:
    """Why ``folder`` takes no new file (the system's reason), or None when it does: tried, not guessed
    from permission bits (root passes ``os.access`` on any folder, and a read-only file system too)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)
