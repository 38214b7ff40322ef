"""The site's output folder: made ready before a build, its stale files removed after."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from arena.paths import data_dir

from arena.site.errors import SiteError

MARKER = ".arena-site"
#: the folders of a built site; every other file sits at its top
SUBFOLDERS = ("bots", "games", "seasons", "tests")


def static_files() -> set[str]:
    """The static assets a build copies, as paths relative to the site."""
    return {f"static/{p.name}" for p in (data_dir("site") / "static").iterdir()}


def prepare_out(out: Path) -> None:
    """Make ``out`` a site folder; refuse a non-empty folder this command did not build.

    Files of an earlier build are overwritten in place and the stale ones removed at the end
    (``remove_stale``): deleting twenty thousand freshly written pages first can take longer than
    the build itself.
    """
    if out.exists() and not out.is_dir():
        raise SiteError(f"output {str(out)!r} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SiteError(f"output folder {str(out)!r} is not empty and was not built by 'arena site build'; "
                        "choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("built by 'arena site build'; every build rewrites this folder\n")
    for sub in SUBFOLDERS:
        (out / sub).mkdir(exist_ok=True)
    shutil.copytree(data_dir("site") / "static", out / "static", dirs_exist_ok=True)


def remove_stale(out: Path, keep: set[str]) -> int:
    """Delete the files under ``out``'s site folders whose relative path is not in ``keep``."""
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
    return removed
