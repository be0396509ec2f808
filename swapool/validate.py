"""The whole check of one table file: read, schema, model, analysis, enum drift."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .analysis import analyse
from .compiled import CompiledDecision
from .diagnostics import Diagnostic, sort_diagnostics
from .enums import check_enum_bindings
from .schema import check_schema
from .source import Document, parse_document, read_document
from .table import Table, build_table


@dataclass(frozen=True)
class Checked:
    """A table (None when it could not be built) and every diagnostic about it."""

    file: str
    table: Table | None
    diagnostics: tuple[Diagnostic, ...]
    digest: str | None = None
    compiled: CompiledDecision | None = None  # kept so that a loader does not compile twice

    @property
    def ok(self) -> bool:
        return self.table is not None and not any(d.is_error for d in self.diagnostics)


def check_document(doc: Document, *, import_enums: bool = True) -> Checked:
    """Schema first (a table that does not match the format is not analysed), then semantics."""
    found = check_schema(doc)
    table = compiled = None
    if not found:
        table, found = build_table(doc)
    if table is not None:
        compiled = CompiledDecision(table)
        found = analyse(table, compiled) + check_enum_bindings(table, do_import=import_enums)
    return Checked(doc.file, table, tuple(sort_diagnostics(found)), doc.digest, compiled)


def check_path(path: str | Path, *, display: str | None = None, import_enums: bool = True) -> Checked:
    doc, found = read_document(path, display)
    if doc is None:
        return Checked(display or str(path), None, tuple(found))
    return check_document(doc, import_enums=import_enums)


def check_text(text: str | bytes, file: str = "<string>", *, import_enums: bool = True) -> Checked:
    doc, found = parse_document(text, file)
    if doc is None:
        return Checked(file, None, tuple(found))
    return check_document(doc, import_enums=import_enums)
