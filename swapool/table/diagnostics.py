"""Findings as values: a stable code, a severity, a source span and the facts it is about.

A finding holds no prose: its words come from its code's registry entry (codes.py) when
it is shown, so the same finding reads the same everywhere and tools read its facts."""

from __future__ import annotations

import enum

from .codes import Code, reads
from .record import Record
from .text import describe_fact, format_value, format_witness, shown_list, visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

    from .codes import Wording

__all__ = ["Severity", "Span", "Related", "Diagnostic", "error", "warning", "note", "suggest", "Suggestions",
           "describe_fact", "format_value", "format_witness", "shown_list", "visible"]


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # information that changes no verdict (e.g. a check that could not run here)

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.NOTE: 2}


class Span(Record):
    """A 1-based line and column in a named file."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{visible(self.file)}:{self.line}:{self.column}"


class Related(Record):
    """Another place a finding is about: what is there (a rule, an invariant), its id
    when it has one, and where."""

    what: str
    name: str | None
    span: Span

    @property
    def label(self) -> str:
        return self.what if self.name is None else f"{self.what} '{self.name}'"


class Diagnostic(Record):
    """One finding: its code's entry, where it is, and what it is about.

    `facts` are what the finding is about, in full (the region, the value and what was
    expected, the rules; `problem`, the code's variant): its code words them (`message`, `help`), and JSON and
    SARIF carry them. `expected` and `got` are facts most codes have, and `keyword` (the
    JSON Schema keyword a `schema` finding is about) those findings; all three read as
    attributes, and the input a finding is about is its `input` fact. `rules` names the rules
    involved; `witness` is one concrete input it is about; `related` other places.
    """

    entry: Code
    severity: Severity
    span: Span | None
    facts: Mapping[str, Any]
    rules: tuple[str, ...] = ()
    witness: Mapping[str, Any] | None = None
    related: tuple[Related, ...] = ()

    def __eq__(self, other: object) -> bool:
        """The same code, severity, place, facts and rules (the witness and the places it
        names besides are how it is shown, not what it is)."""
        return isinstance(other, Diagnostic) and self[:5] == other[:5]

    def __hash__(self) -> int:
        return hash((self.entry, self.severity, self.span, self.rules))  # not the facts: a dict

    @property
    def _wording(self) -> Wording:
        return self.entry.wording(self.facts.get("problem"))

    def _words(self) -> tuple[str, str | None]:
        wording = self._wording
        names, _ = reads(wording)
        return wording(**{name: self.facts[name] for name in names if name in self.facts})

    @property
    def code(self) -> str:
        return self.entry.name

    @property
    def message(self) -> str:
        """What is wrong, in its code's words."""
        return self._words()[0]

    @property
    def help(self) -> str | None:
        """How to fix it, in its code's words (None when the code has no advice here)."""
        return self._words()[1]

    @property
    def expected(self) -> Any:
        return self.facts.get("expected")

    @property
    def got(self) -> Any:
        return self.facts.get("got")

    @property
    def keyword(self) -> str | None:
        return self.facts.get("keyword")

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple:
        """By place, then severity and code; findings equal in those keep the order they were
        made in (the sort is stable), so an analysis can put the finding that matters first."""
        span = self.span or Span("", 0, 0)
        return (span.file, span.line, span.column, self.severity.rank, self.code)

    def header(self, label: str | None = None) -> str:
        """`file:line:col: severity[code]: message`; `label` stands in for `severity[code]`
        (a renderer's tinted copy of it)."""
        where = f"{self.span}: " if self.span else ""
        return f"{where}{label or self.label}: {visible(self.message)}"

    @property
    def label(self) -> str:
        return f"{self.severity.value}[{self.code}]"

    def notes(self) -> list[str]:
        """The indented `= input`, `= note` and `= help` lines under the header."""
        lines = []
        if self.witness:
            lines.append(f"  = input: {visible(format_witness(self.witness))}")
        for other in self.related:
            lines.append(f"  = note: {visible(other.label)} is at {other.span}")
        if self.facts.get("partial"):
            causes = self.facts.get("caused_by") or []
            lines.append("  = note: partial: found with the rules, cases or invariants that failed to build left out"
                         + (f" (the error(s) at {', '.join(map(visible, causes[:3]))}{', ...' if len(causes) > 3 else ''})"
                            if causes else ""))
        advice = self.help
        if advice:
            lines.append(f"  = help: {visible(advice)}")
        return lines

    def __str__(self) -> str:
        """The header, then the notes, with every control character shown as an escape (a
        table cannot drive a terminal)."""
        return "\n".join([self.header(), *self.notes()])


def error(code: Code, span: Span | None = None, *, rules: tuple[str, ...] = (), witness: Mapping[str, Any] | None = None,
          related: tuple[Related, ...] = (), **facts: Any) -> Diagnostic:
    return _made(Diagnostic(code, Severity.ERROR, span, facts, rules, witness, related))


def warning(code: Code, span: Span | None = None, *, rules: tuple[str, ...] = (),
            witness: Mapping[str, Any] | None = None, related: tuple[Related, ...] = (),
            **facts: Any) -> Diagnostic:
    return _made(Diagnostic(code, Severity.WARNING, span, facts, rules, witness, related))


def note(code: Code, span: Span | None = None, *, rules: tuple[str, ...] = (), witness: Mapping[str, Any] | None = None,
         related: tuple[Related, ...] = (), **facts: Any) -> Diagnostic:
    return _made(Diagnostic(code, Severity.NOTE, span, facts, rules, witness, related))


def _made(finding: Diagnostic) -> Diagnostic:
    """`finding`, when it has every fact its code's words read (and a variant its code has)."""
    _, needed = reads(finding._wording)
    if not needed <= finding.facts.keys():
        raise ValueError(f"a {finding.code!r} finding needs the facts {sorted(needed - finding.facts.keys())}")
    return finding


def suggest(word: Any, choices: Any) -> Any:
    """The choice a typo of `word` most likely meant (difflib, case folded), or None."""
    import difflib

    if not isinstance(word, str):
        return None
    folded = {str(c).lower(): c for c in choices}
    near = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=0.6)
    return folded[near[0]] if near else None


class Suggestions:
    """did-you-mean for one check, on a budget: difflib compares a word with each choice
    (~40 us each), so a table with many misspelt values over a wide domain would otherwise
    cost misspellings x domain. Past `budget` comparisons a finding simply has no
    suggestion; a word asked again among the same choices is answered from memory."""

    def __init__(self, budget: int = 10_000):
        self.left = budget
        self._seen: dict[tuple[Any, tuple], Any] = {}

    def suggest(self, word: Any, choices: Any) -> Any:
        choices = tuple(choices)
        key = (word, choices)
        if key not in self._seen:
            if len(choices) > self.left:
                return None
            self.left -= len(choices)
            self._seen[key] = suggest(word, choices)
        return self._seen[key]
