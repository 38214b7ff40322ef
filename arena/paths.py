"""Where the project's data folders are: next to the packages in a source checkout (and an editable
install), or where a built wheel put them (``<prefix>/share/bohnanza-arena``)."""
from __future__ import annotations

import sys
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
