"""The check: the one entrance from bytes to a checked table (schema, model, analysis,
enum drift), hashing the bytes once and sorting the findings once."""

from __future__ import annotations

import functools
import gc
import os
from types import MappingProxyType

from .analysis import Analysis, Contract, analyse
from .build import build_parts
from .codes.analysis import AnalysisPartial
from .diagnostics import Diagnostic, Severity, note, visible
from .enums import EnumPolicy, check_enum_bindings
from .imports import NO_IMPORTS, resolve_imports
from .model import Table
from .partition import Budget, BudgetExceeded
from .record import Record
from .schema import check_schema
from .files import digest_of, read_bytes
from .source import Document, parse_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping, Sequence

    from .diagram import Diagram

    #: What decision kinds add to the generic checks: decision name -> its contract.
    Contracts = Mapping[str, Contract]

NO_CONTRACTS: Contracts = MappingProxyType({})


class Checked(Record):
    """A table (None when it could not be built) and every diagnostic about it, sorted."""

    file: str
    table: Table | None
    diagnostics: tuple[Diagnostic, ...]
    digest: str | None = None  # of the table's bytes and of every table it imports
    imports: tuple[tuple[str, str], ...] = ()  # (path, digest) of each table imported
    analysis: Analysis | None = None  # the table's analysis, its first-hit DAG with it
    #: Where `table` is None for a rule, case or invariant that failed to build: the table
    #: without them, which `explain` and `diff` answer from mid-edit.
    partial: Table | None = None

    @property
    def ok(self) -> bool:
        return self.table is not None and not any(d.is_error for d in self.diagnostics)

    @property
    def unreadable(self) -> bool:
        """The file (or one it imports) could not be read at all: an `io` finding, which a
        command answers as a usage error, not as a finding about a table."""
        if not any(d.is_error for d in self.diagnostics):
            return False
        from .codes.reading import IO  # with an error only: a clean check imports no reading codes

        return any(d.entry is IO for d in self.diagnostics)

    def __str__(self) -> str:
        """Each finding's `file:line:col: severity[code]: message` line, then the verdict."""
        errors = sum(d.is_error for d in self.diagnostics)
        warnings = sum(d.severity is Severity.WARNING for d in self.diagnostics)
        verdict = f"{visible(self.file)}: {'valid' if self.ok else 'invalid'} ({errors} error(s), {warnings} warning(s))"
        return "\n".join([d.header() for d in self.diagnostics] + [verdict])

    def __repr__(self) -> str:
        return f"<Checked {str(self).splitlines()[-1]}>"

    @functools.cached_property
    def diagram(self) -> Diagram | None:
        """The compiled table, built on first use from the analysis's DAG (a check that only
        wants the verdict, as `swapool validate`, never builds it)."""
        from .diagram import Diagram

        if not self.ok or self.table is None:
            return None
        with collector_paused():
            return Diagram(self.table, Budget(), self.analysis.first if self.analysis else None)


def check_document(doc: Document, *, enums: EnumPolicy = EnumPolicy(), contracts: Contracts = NO_CONTRACTS,
                   folder: str | os.PathLike | None = None) -> Checked:
    """Schema first (a table that does not match the format is not analysed), then the
    tables its inputs import (from `folder`), then semantics, then the contract of the
    decision the table names (when the caller knows it)."""
    found = check_schema(doc)
    table = None
    imports = NO_IMPORTS
    digest = doc.digest
    done: Analysis | None = None
    partial: Table | None = None
    if not found:
        imports = resolve_imports(doc, folder)
        found = list(imports.diagnostics)
        digest = imports.digest(doc.digest)
    if not found:
        built = build_parts(doc, imports.documents)
        table, found = built.table, built.diagnostics
        if table is not None and digest != doc.digest:
            table = table._replace(digest=digest)
        if built.partial is not None:
            partial = built.partial if digest == doc.digest else built.partial._replace(digest=digest)
            causes = [str(d.span) for d in built.diagnostics if d.is_error and d.span]
            found += partial_analysis(built.partial, built.left_out, enums, causes)
    if table is not None:
        contract = contracts.get(table.decision)
        done = analyse(table, Budget(), contract.forbids if contract else None)
        found = done.findings + check_enum_bindings(table, enums)
        if contract is not None and done.first is not None:
            try:
                found += contract.check(done)
            except BudgetExceeded as exc:
                found.append(done.out_of_budget(exc))
    return Checked(doc.file, table, tuple(sorted(found, key=Diagnostic.sort_key)), digest, imports.files, done,
                   partial)


def partial_analysis(partial: Table, left_out: Mapping[str, list], enums: EnumPolicy,
                     causes: Sequence[str] = ()) -> list[Diagnostic]:
    """What can still be said of a table some of whose rules, cases or invariants failed to
    build: the analysis of the rest (as DMN verifiers do), each finding marked `partial`
    (a gap may be one the broken rule would close) with the errors it follows from
    (`caused_by`, their file:line:col), and a note saying what was left out. The table
    itself stays unbuilt: nothing decides with it."""
    findings = analyse(partial, Budget()).findings + check_enum_bindings(partial, enums)
    marked = [d._replace(caused_by=tuple(causes)) for d in findings]
    return [note(AnalysisPartial(**left_out), partial.rules_span), *marked]


def check_bytes(raw: bytes | str, file: str = "<string>", *, digest: str | None = None,
                enums: EnumPolicy = EnumPolicy(), contracts: Contracts = NO_CONTRACTS,
                folder: str | os.PathLike | None = None) -> Checked:
    """Parse and check one table's text. `digest` is `digest_of(raw)` when the caller has it;
    `folder` is where the tables it imports are (None: it may import nothing)."""
    raw = raw.encode("utf-8") if isinstance(raw, str) else raw
    digest = digest or digest_of(raw)
    with collector_paused():
        doc, found = parse_document(raw, file, digest)
        if doc is None:
            return Checked(file, None, tuple(found), digest)
        return check_document(doc, enums=enums, contracts=contracts, folder=folder)


class collector_paused:
    """`with collector_paused():` runs its body with the cyclic garbage collector off, and
    leaves it as it was. A check or a compile allocates a node graph, data, a model and a
    diagram, none of them cyclic (reference counting frees what dies), that live until it ends:
    a collection meanwhile would only scan them, and a large table triggers full collections
    over everything the process holds (a server's heap) again and again. Whatever cycles
    arise meanwhile, ours or another thread's, are collected once the collector runs again."""

    def __enter__(self) -> None:
        self.collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.collecting:
            gc.enable()


def check_path(path: str | bytes | os.PathLike, *, display: str | None = None, enums: EnumPolicy = EnumPolicy(),
               contracts: Contracts = NO_CONTRACTS, folder: str | os.PathLike | None = None) -> Checked:
    """Read and check one table file; an unreadable file is a Checked with an `io` error.
    `folder`: where its imports are, when not beside it (a pipe holding an old version)."""
    path = os.fsdecode(path)  # str, bytes or PathLike alike
    shown = display if display is not None else path
    raw, found = read_bytes(path, shown)
    if raw is None:
        return Checked(shown, None, tuple(found))
    return check_bytes(raw, shown, enums=enums, contracts=contracts,
                       folder=folder or os.path.dirname(path) or ".")
