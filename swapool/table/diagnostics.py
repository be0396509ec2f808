"""Findings as values: a stable code, a severity, a source span and a structured "what"."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Mapping


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # information that changes no verdict (e.g. a check that could not run here)

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.NOTE: 2}

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
    "analysis-budget": "the analysis needed more steps than its budget allows (the table is checked no further)",
    "case-failed": "a golden case whose expected output differs from the table's decision",
    "empty-cell": "a cell whose value set is empty, so its rule can never match",
    "full-domain-cell": "a cell that lists the whole domain; write '-' instead",
    "unnamed-value": "an enumeration value that no rule names, decided only through '-' or 'not' cells",
    "unused-input": "an input that no rule names: the decision never depends on it",
    "enum-import": "an input's enum binding cannot be imported",
    "enum-not-allowed": "an input's enum binding names a module outside the allowed prefixes, so it is not imported",
    "enum-missing-member": "an enum member that is not in the input's values",
    "enum-extra-value": "a value in the input's values that is not a member of its enum",
    "decision-kind": "the table does not have the shape its decision needs (swa_kv_pool: its facts and pools)",
    "unsafe-pool": "a swa_kv_pool rule that answers a pool where that pool did not pass the SWA check",
    "reserved-name": "an input named like a key the format reserves ('output')",
}


@dataclass(frozen=True, order=True)
class Span:
    """A 1-based line and column in a named file."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{visible(self.file)}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a stable code, where it is, what is wrong, and how to fix it.

    `message` is the prose a person reads; `expected`, `got` and `keyword` are the same
    facts as data (what the format or an invariant wanted, what the table holds, and the
    format keyword or table key concerned), for tools that read JSON or SARIF.
    """

    code: str
    severity: Severity
    message: str
    span: Span | None = None
    help: str | None = None
    rules: tuple[str, ...] = ()
    witness: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    expected: Any = field(default=None, hash=False, compare=False)
    got: Any = field(default=None, hash=False, compare=False)
    keyword: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple:
        span = self.span or Span("", 0, 0)
        return (span.file, span.line, span.column, self.severity.rank, self.code, self.message)

    def __str__(self) -> str:
        """`file:line:col: severity[code]: message`, then indented witness and help lines,
        with every control character shown as an escape (a table cannot drive a terminal)."""
        where = f"{self.span}: " if self.span else ""
        lines = [f"{where}{self.severity.value}[{self.code}]: {visible(self.message)}"]
        if self.witness:
            lines.append(f"  = input: {visible(format_witness(self.witness))}")
        if self.help:
            lines.append(f"  = help: {visible(self.help)}")
        return "\n".join(lines)


def error(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span, **kw)


def warning(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, span, **kw)


def note(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, Severity.NOTE, message, span, **kw)


def format_witness(witness: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={format_value(v)}" for k, v in witness.items())


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def visible(text: str) -> str:
    """`text` with C0/C1 control characters, DEL, line and paragraph separators and
    surrogates written as escapes, so that it prints as one inert line."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
