"""Stage 4, check: the one entrance from bytes to a checked table (schema, model, analysis,
enum drift), hashing the bytes once and sorting the findings once."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Callable, Mapping

from .analysis import analyse
from .build import build_table
from .diagnostics import Diagnostic
from .diagram import Diagram
from .enums import EnumPolicy, check_enum_bindings
from .imports import NO_IMPORTS, resolve_imports
from .model import Table
from .schema import check_schema
from .source import Document, digest_of, parse_document, read_bytes


#: Checks a decision kind adds to the generic ones: decision name -> table -> findings.
Contracts = Mapping[str, Callable[[Table], list[Diagnostic]]]
NO_CONTRACTS: Contracts = MappingProxyType({})


@dataclass(frozen=True)
class Checked:
    """A table (None when it could not be built) and every diagnostic about it, sorted."""

    file: str
    table: Table | None
    diagnostics: tuple[Diagnostic, ...]
    digest: str | None = None  # of the table's bytes and of every table it imports
    diagram: Diagram | None = None  # kept so that a loader does not compile twice
    imports: tuple[tuple[str, str], ...] = ()  # (path, digest) of each table imported

    @property
    def ok(self) -> bool:
        return self.table is not None and not any(d.is_error for d in self.diagnostics)


def check_document(doc: Document, *, enums: EnumPolicy = EnumPolicy(), contracts: Contracts = NO_CONTRACTS,
                   folder: str | os.PathLike | None = None) -> Checked:
    """Schema first (a table that does not match the format is not analysed), then the
    tables its inputs import (from `folder`), then semantics, then the contract of the
    decision the table names (when the caller knows it)."""
    found = check_schema(doc)
    table = diagram = None
    imports = NO_IMPORTS
    if not found:
        imports = resolve_imports(doc, folder)
        found = list(imports.diagnostics)
    if not found:
        table, found = build_table(doc, imports.documents)
        if table is not None and imports.files:
            table = dataclasses.replace(table, digest=imports.digest(doc.digest))
    if table is not None:
        found = analyse(table) + check_enum_bindings(table, enums)
        contract = contracts.get(table.decision)
        if contract is not None and not any(d.code == "analysis-budget" for d in found):
            found += contract(table)
        if not any(d.is_error for d in found):
            diagram = Diagram(table)
    return Checked(doc.file, table, tuple(sorted(found, key=Diagnostic.sort_key)), imports.digest(doc.digest),
                   diagram, imports.files)


def check_bytes(raw: bytes | str, file: str = "<string>", *, digest: str | None = None,
                enums: EnumPolicy = EnumPolicy(), contracts: Contracts = NO_CONTRACTS,
                folder: str | os.PathLike | None = None) -> Checked:
    """Parse and check one table's text. `digest` is `digest_of(raw)` when the caller has it;
    `folder` is where the tables it imports are (None: it may import nothing)."""
    raw = raw.encode("utf-8") if isinstance(raw, str) else raw
    digest = digest or digest_of(raw)
    doc, found = parse_document(raw, file, digest)
    if doc is None:
        return Checked(file, None, tuple(found), digest)
    return check_document(doc, enums=enums, contracts=contracts, folder=folder)


def check_path(path: str | os.PathLike, *, display: str | None = None,
               enums: EnumPolicy = EnumPolicy(), contracts: Contracts = NO_CONTRACTS) -> Checked:
    """Read and check one table file; an unreadable file is a Checked with an `io` error."""
    shown = display if display is not None else str(path)
    raw, found = read_bytes(path, shown)
    if raw is None:
        return Checked(shown, None, tuple(found))
    return check_bytes(raw, shown, enums=enums, contracts=contracts, folder=Path(path).parent)
