"""What an earlier build wrote, so that a rebuild writes only what changed: the manifest in the output folder
(every file's key, size and modification time, and the builder's own key), and atomic writes.

A file is fresh, and neither made nor written again, when the manifest gives it the same key and the file on
disk has the size and modification time the manifest recorded: a file changed, cut or deleted since, a build
killed before it saved the manifest, or a new builder key (code, templates, formats) makes it again.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Iterable

from arena.formats import formats
from arena.paths import data_dir

NAME = ".build-manifest.json"
#: raised by hand when the output changes in a way no hashed file shows
BUILDER_VERSION = 1
#: a file as the manifest records it: its key, size and modification time (ns)
Entry = tuple[str, int, int]


def digest(*parts: str | bytes) -> str:
    """A key of ``parts`` (each length-prefixed, so that no two lists of parts share one)."""
    hashed = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hashed.update(len(data).to_bytes(8, "big") + data)
    return hashed.hexdigest()[:40]


def builder_key(steps_format: str, logs: bool = False) -> str:
    """What every page is made with: this package's code, the templates and static files, the formats in the
    navigation, (``steps_format``) the code that makes a game's steps, and whether pages show bots' logs."""
    parts: list[str | bytes] = [str(BUILDER_VERSION), steps_format, f"logs={logs}"]
    code = [*sorted(Path(__file__).parent.glob("*.py")), Path(__file__).parent.parent / "formats.py"]
    assets = sorted(p for p in (data_dir("site")).rglob("*") if p.is_file())
    for path in (*code, *assets):
        parts += [path.name, path.read_bytes()]
    parts += [f"{f.name}:{f.title}:{f.default}:{f.money}" for f in formats()]
    return digest(*parts)


def on_disk(out: Path, folders: Iterable[str]) -> dict[str, tuple[int, int]]:
    """The size and modification time of every file at the top of ``out`` and in its ``folders``."""
    found: dict[str, tuple[int, int]] = {}
    for sub in ("", *folders):
        try:
            entries = list(os.scandir(out / sub))
        except FileNotFoundError:
            continue
        for entry in entries:
            if entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                found[f"{sub}/{entry.name}" if sub else entry.name] = (st.st_size, st.st_mtime_ns)
    return found


def write_atomic(path: Path, data: bytes) -> Entry:
    """Write ``data`` to ``path`` through a temporary file renamed over it (a killed build leaves the old
    file or the new one, never half of one); returns its size and modification time, keyless."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as file:
            file.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    st = os.stat(path)
    return ("", st.st_size, st.st_mtime_ns)


class Manifest:
    """The files of an earlier build (``load``) and of this one (``record``), saved last (``save``)."""

    def __init__(self, out: Path, builder: str, files: dict[str, tuple[int, int]]) -> None:
        self.out = out
        self.builder = builder
        self.files = files  # on disk now
        self.old: dict[str, Entry] = {}
        self.new: dict[str, Entry] = {}
        self.written = 0
        self.left_out_before: dict[int, str] = {}  # games whose page an earlier build left out, with their keys
        self.left_out: dict[int, str] = {}  # and those of this build
        self.damaged = False  # the manifest was there but could not be read: everything is made again

    @classmethod
    def load(cls, out: Path, builder: str, files: dict[str, tuple[int, int]]) -> Manifest:
        """The manifest in ``out``; empty (a full build) if it is missing, damaged or of another builder."""
        manifest = cls(out, builder, files)
        try:
            data = json.loads((out / NAME).read_text(encoding="utf-8"))
            if data.get("builder") == builder:
                manifest.old = {path: (str(e[0]), int(e[1]), int(e[2])) for path, e in data["files"].items()}
                manifest.left_out_before = {int(i): str(key) for i, key in data.get("left_out", {}).items()}
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            manifest.damaged = True
        return manifest

    def fresh(self, path: str, key: str) -> bool:
        """Whether ``path`` was written with ``key`` and is on disk as it was written; if so, it is kept.
        A page this build wrote already with ``key`` is fresh too (lists written again once damage is found)."""
        done = self.new.get(path)
        if done is not None and done[0] == key:
            return True
        entry = self.old.get(path)
        if entry is None or entry[0] != key or self.files.get(path) != entry[1:]:
            return False
        self.new[path] = entry
        return True

    def record(self, path: str, entry: Entry) -> None:
        self.new[path] = entry
        self.written += 1

    def write(self, path: str, key: str, data: bytes) -> bool:
        """Write ``data`` to ``path`` unless it is fresh with ``key``; whether it was written."""
        if self.fresh(path, key):
            return False
        _, size, mtime = write_atomic(self.out / path, data)
        self.record(path, (key, size, mtime))
        return True

    def save(self) -> None:
        """Write the manifest of this build's files (last: it never names a file this build did not finish)."""
        data = {"builder": self.builder, "files": {path: list(e) for path, e in sorted(self.new.items())},
                "left_out": {str(i): key for i, key in sorted(self.left_out.items())}}
        write_atomic(self.out / NAME, json.dumps(data, separators=(",", ":")).encode())
