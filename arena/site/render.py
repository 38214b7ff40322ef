"""Rendering the site's pages: the Jinja environment, and the writer every page of one build goes through."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from arena.formats import Format, formats
from arena.paths import data_dir

from arena.site.errors import SiteError
from arena.site.folder import static_sources
from arena.site.html import Fragments, fmt_date, fmt_day, fmt_num, fmt_pct
from arena.site.manifest import Manifest, digest
from arena.site.model import Ladder


def _formats() -> list[Format]:
    return list(formats())


def environment() -> Environment:
    templates = data_dir("site") / "templates"
    if not templates.is_dir():
        raise SiteError(f"site templates not found in {str(templates)!r}")
    env = Environment(loader=FileSystemLoader(str(templates)), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(num=fmt_num, pct=fmt_pct, date=fmt_date, day=fmt_day)
    env.globals["formats"] = _formats  # the navigation, at render time
    return env


class Renderer:
    """Writes the pages of one build into ``out``, each given what every page shows (the root of its
    links, the ladder, the fragments); counts them, and writes a page only when its bytes (or, for a page
    ``kept`` asks about, its inputs) differ from what the manifest says the earlier build wrote there."""

    def __init__(self, env: Environment, out: Path, ladder: Ladder, manifest: Manifest) -> None:
        self.env = env
        self.out = out
        self.ladder = ladder
        self.manifest = manifest
        self.frag = Fragments(ladder)
        self.pages = 0
        for relative, source in static_sources().items():
            data = source.read_bytes()
            manifest.write(relative, digest(data), data)

    def render(self, template: str, root: str, **context: Any) -> str:
        return self.env.get_template(template).render(root=root, ladder=self.ladder, frag=self.frag, **context)

    def write(self, relative: str, template: str, root: str, **context: Any) -> None:
        self.write_text(relative, self.render(template, root, **context))

    def kept(self, relative: str, key: str) -> bool:
        """Whether the page ``relative``, all of whose inputs ``key`` names, is fresh: then it is neither
        rendered nor written (a list page of older games, which new games leave as it was)."""
        self.pages += 1
        return self.manifest.fresh(relative, key)

    def write_keyed(self, relative: str, key: str, template: str, root: str, **context: Any) -> None:
        """Render and write a page that ``kept`` did not keep, recorded with its ``key``."""
        self.manifest.write(relative, key, self.render(template, root, **context).encode("utf-8"))

    def write_text(self, relative: str, text: str) -> None:
        """A file of the site that is no template's page (the leaderboard JSON)."""
        data = text.encode("utf-8")
        self.manifest.write(relative, digest(data), data)
        self.pages += 1
