"""Findings as values: a stable code, a severity, a source span and a structured "what"."""

from __future__ import annotations

import enum
import reprlib
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple

from .codes import CATALOGUE


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # information that changes no verdict (e.g. a check that could not run here)

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.NOTE: 2}



class Span(NamedTuple):
    """A 1-based line and column in a named file. A tuple: a table holds one per cell and
    rule, and a tuple is built several times faster than a frozen dataclass."""

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
    related: tuple[tuple[str, Span], ...] = field(default=(), hash=False, compare=False)  # (what, where)

    def __post_init__(self) -> None:
        if self.code not in CATALOGUE:
            raise ValueError(f"finding code {self.code!r} is not registered (swapool/table/codes.py: register)")

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple:
        """By place, then severity and code; findings equal in those keep the order they were
        made in (the sort is stable), so an analysis can put the finding that matters first."""
        span = self.span or Span("", 0, 0)
        return (span.file, span.line, span.column, self.severity.rank, self.code)

    def __str__(self) -> str:
        """`file:line:col: severity[code]: message`, then indented witness and help lines,
        with every control character shown as an escape (a table cannot drive a terminal)."""
        where = f"{self.span}: " if self.span else ""
        lines = [f"{where}{self.severity.value}[{self.code}]: {visible(self.message)}"]
        if self.witness:
            lines.append(f"  = input: {visible(format_witness(self.witness))}")
        for what, span in self.related:
            lines.append(f"  = note: {visible(what)} is at {span}")
        if self.help:
            lines.append(f"  = help: {visible(self.help)}")
        return "\n".join(lines)


def error(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span, **kw)


def warning(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, span, **kw)


def note(code: str, message: str, span: Span | None = None, **kw: Any) -> Diagnostic:
    return Diagnostic(code, Severity.NOTE, message, span, **kw)


def suggest(word: Any, choices: Any) -> str | None:
    """The choice a typo of `word` most likely meant (difflib, case folded), or None."""
    import difflib

    if not isinstance(word, str):
        return None
    folded = {str(c).lower(): c for c in choices}
    near = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=0.6)
    return format_value(folded[near[0]]) if near else None


def did_you_mean(word: Any, choices: Any) -> str | None:
    near = suggest(word, choices)
    return f"did you mean '{near}'?" if near is not None else None


class Suggestions:
    """did-you-mean for one check, on a budget: difflib compares a word with each choice
    (~40 us each), so a table with many misspelt values over a wide domain would otherwise
    cost misspellings x domain. Past `budget` comparisons a finding simply has no
    suggestion; a word asked again among the same choices is answered from memory."""

    def __init__(self, budget: int = 10_000):
        self.left = budget
        self._seen: dict[tuple[Any, tuple], str | None] = {}

    def did_you_mean(self, word: Any, choices: Any) -> str | None:
        choices = tuple(choices)
        key = (word, choices)
        if key not in self._seen:
            if len(choices) > self.left:
                return None
            self.left -= len(choices)
            self._seen[key] = did_you_mean(word, choices)
        return self._seen[key]


def shown_list(items: Any, limit: int, show: Any = None) -> str:
    """The first `limit` items, comma-separated, then "and N more": the one way a finding
    shortens a long list (its data keeps what the finding needs)."""
    items = list(items)
    shown = ", ".join((show or format_value)(item) for item in items[:limit])
    return shown + (f" and {len(items) - limit:,} more" if len(items) > limit else "")


def format_witness(witness: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={format_value(v)}" for k, v in witness.items())


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_FACT_REPR = reprlib.Repr()
_FACT_REPR.maxstring = _FACT_REPR.maxother = 80


def describe_fact(value: Any) -> str:
    """A caller's object as an error shows it: its repr, shortened, and never an exception
    of its own (a repr that raises is named by its type, as `reprlib` does)."""
    try:
        return _FACT_REPR.repr(value)
    except Exception:  # reprlib guards the common cases; a hostile __class__ can still raise
        return f"<{type(value).__name__} object>"


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
