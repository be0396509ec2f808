"""Where the shipped table and schema live: inside the wheel, or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def shipped(relative: str) -> Path:
    """Path of a file shipped with swapool, e.g. ``policies/<table>.yaml``.

    A wheel carries copies under ``swapool/_shipped``; a source checkout (editable
    install, tests) reads the repository's own files, so edits there take effect.
    """
    for base in (_PACKAGE / "_shipped", _PACKAGE.parent):
        candidate = base / relative
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"swapool's shipped file {relative} is missing from this installation")


def schema_path() -> Path:
    return shipped("schemas/decision-table.schema.json")
