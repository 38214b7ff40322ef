"""The site's output folder: made ready before a build, its stale files removed after."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from arena.paths import data_dir

from arena.site.errors import SiteError

MARKER = ".arena-site"
#: the folders of a built site; every other file sits at its top
SUBFOLDERS = ("bots", "competitions", "games", "seasons", "tests")


def prepare_out(out: Path) -> None:
    """Make ``out`` a site folder; refuse a non-empty folder this command did not build.

    Files of an earlier build are kept, rewritten only when they changed (arena/site/manifest.py), and the
    stale ones removed at the end (``remove_stale``).
    """
    if out.exists() and not out.is_dir():
        raise SiteError(f"output {str(out)!r} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SiteError(f"output folder {str(out)!r} is not empty and was not built by 'arena site build'; "
                        "choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    marker = "built by 'arena site build'; every build rewrites this folder\n"
    if not (out / MARKER).is_file() or (out / MARKER).read_text(errors="replace") != marker:
        (out / MARKER).write_text(marker)
    for sub in (*SUBFOLDERS, "static"):
        (out / sub).mkdir(exist_ok=True)


def static_sources() -> dict[str, Path]:
    """The static assets a build copies, by their path in the site."""
    return {f"static/{p.name}": p for p in sorted((data_dir("site") / "static").iterdir())}


def remove_stale(out: Path, keep: set[str]) -> int:
    """Delete the files under ``out``'s site folders whose relative path is not in ``keep``, and the temporary
    files a killed build left at the top."""
    removed = 0
    for sub in (*SUBFOLDERS, "static"):
        for entry in os.scandir(out / sub):
            name = f"{sub}/{entry.name}"
            if name in keep:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed += 1
    for entry in os.scandir(out):
        if entry.name.startswith(".") and ".tmp-" in entry.name and entry.is_file(follow_symlinks=False):
            os.unlink(entry.path)
            removed += 1
    return removed
