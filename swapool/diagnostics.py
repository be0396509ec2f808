"""Findings as values with a source location; rendered once, at the edge."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

ERROR = "error"
WARNING = "warning"
NOTE = "note"  # information that changes no verdict (e.g. a check that could not run here)

#: Every code swapool can emit, with a one-line summary (used by --help, SARIF, README).
CODES: dict[str, str] = {
    "io": "the file cannot be read (missing, a directory, too large, not UTF-8)",
    "yaml-syntax": "the file is not well-formed YAML",
    "yaml-duplicate-key": "a mapping names the same key twice",
    "yaml-tag": "a YAML tag or type that a table cannot hold (python objects, dates, merges)",
    "yaml-alias-bomb": "aliases expand past the node limit",
    "yaml-key-type": "a mapping key that is not a string",
    "schema": "the document does not match the table format (schemas/swa-policy.schema.json)",
    "unknown-input": "a rule, case or invariant names an input the table does not declare",
    "unknown-value": "a cell or case names a value outside the input's or output's domain",
    "duplicate-value": "an input or output lists the same value twice",
    "duplicate-rule-id": "two rules share an id",
    "gap": "an input combination that no rule decides",
    "overlap": "under hit_policy unique, an input combination that two rules decide",
    "unreachable-rule": "under hit_policy first, a rule that earlier rules hide everywhere",
    "redundant-rule": "under hit_policy first, a rule whose removal changes no decision",
    "invariant": "an input the table decides against one of its invariants",
    "case-failed": "a golden case whose expected output differs from the table's decision",
    "empty-cell": "a cell whose value set is empty, so its rule can never match",
    "full-domain-cell": "a cell that lists the whole domain; write '-' instead",
    "unnamed-value": "an enumeration value that no rule names, decided only through '-' or 'not' cells",
    "unused-input": "an input that no rule names: the decision never depends on it",
    "enum-import": "an input's enum binding cannot be imported",
    "enum-missing-member": "an enum member that is not in the input's values",
    "enum-extra-value": "a value in the input's values that is not a member of its enum",
}


@dataclass(frozen=True, order=True)
class Span:
    """A 1-based line and column in a named file."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a stable code, where it is, what is wrong, and how to fix it."""

    code: str
    severity: str
    message: str
    span: Span | None = None
    help: str | None = None
    rules: tuple[str, ...] = ()
    witness: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def sort_key(self) -> tuple:
        span = self.span or Span("", 0, 0)
        return (span.file, span.line, span.column, _RANK[self.severity], self.code, self.message)


_RANK = {ERROR: 0, WARNING: 1, NOTE: 2}


def error(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, ERROR, message, span, **kw)


def warning(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, WARNING, message, span, **kw)


def note(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, NOTE, message, span, **kw)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=Diagnostic.sort_key)


def format_witness(witness: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={format_value(v)}" for k, v in witness.items())


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def render_text(diagnostic: Diagnostic, *, color: bool = False) -> str:
    """`file:line:col: severity[code]: message`, then indented help and witness lines."""
    where = f"{diagnostic.span}: " if diagnostic.span else ""
    label = f"{diagnostic.severity}[{diagnostic.code}]"
    if color:
        tint = {ERROR: "\x1b[1;31m", WARNING: "\x1b[1;33m"}.get(diagnostic.severity, "\x1b[1;36m")
        label = f"{tint}{label}\x1b[0m"
    lines = [f"{where}{label}: {diagnostic.message}"]
    if diagnostic.witness:
        lines.append(f"  = input: {format_witness(diagnostic.witness)}")
    if diagnostic.help:
        lines.append(f"  = help: {diagnostic.help}")
    return "\n".join(lines)


def summary_line(diagnostics: Sequence[Diagnostic], files: int) -> str:
    errors = sum(d.is_error for d in diagnostics)
    warnings = sum(d.severity == WARNING for d in diagnostics)
    noun = "file" if files == 1 else "files"
    if errors:
        verdict = "invalid"
    else:
        verdict = "valid"
    return f"{files} {noun} checked: {verdict} ({errors} error(s), {warnings} warning(s))"


def to_json_obj(diagnostic: Diagnostic) -> dict[str, Any]:
    span = diagnostic.span
    return {
        "code": diagnostic.code,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "file": span.file if span else None,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "rules": list(diagnostic.rules),
        "witness": dict(diagnostic.witness) if diagnostic.witness else None,
        "help": diagnostic.help,
    }


def render_json(files: Sequence[str], diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps(
        {"files": list(files), "diagnostics": [to_json_obj(d) for d in diagnostics]},
        indent=2,
    )
