"""The site build's own error: one clear line for the user."""
from __future__ import annotations


class SiteError(RuntimeError):
    """The site cannot be built as asked (output folder, missing templates)."""
