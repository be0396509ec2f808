"""Findings as values: the facts a finding is about (of its code's facts class), a
severity and a source span.

A finding holds no prose: its words come from its facts' class (codes/) when it is shown,
so the same finding reads the same everywhere and tools read its facts."""

from __future__ import annotations

from .codes import Code, Facts, Severity
from .record import Record
from .text import describe_fact, format_value, format_witness, shown_list, visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

__all__ = ["Severity", "Span", "Related", "Diagnostic", "error", "warning", "note", "suggest", "Suggestions",
           "describe_fact", "format_value", "format_witness", "shown_list", "visible"]


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
    """One finding: what it is about, how severe, where.

    `facts` are what the finding is about, in full (the region, the value and what was
    expected, the rules), as its code's facts class holds them: they word it (`message`,
    `help`), and JSON and SARIF carry them. `expected`, `got` and `keyword` (the JSON Schema
    keyword a `schema` finding is about) are facts most codes have: they read as attributes.
    `rules` names the rules involved; `witness` is one concrete input it is about; `related`
    other places; `caused_by`, for a finding made with some rules, cases or invariants left
    out (they failed to build), the places of the errors that left them out (None: whole).
    """

    facts: Facts
    severity: Severity
    span: Span | None
    rules: tuple[str, ...] = ()
    witness: Mapping[str, Any] | None = None
    related: tuple[Related, ...] = ()
    caused_by: tuple[str, ...] | None = None

    def __eq__(self, other: object) -> bool:
        """The same facts, severity, place, rules and partiality (the witness and the places it
        names besides are how it is shown, not what it is)."""
        return (isinstance(other, Diagnostic) and self[:4] == other[:4]
                and (self.caused_by is None) == (other.caused_by is None))

    def __hash__(self) -> int:
        return hash((type(self.facts), self.severity, self.span, self.rules))  # not the facts' values

    @property
    def entry(self) -> Code:
        return self.facts.code

    @property
    def code(self) -> str:
        return self.facts.code.name

    @property
    def message(self) -> str:
        """What is wrong, in its code's words."""
        return self.facts.words()[0]

    @property
    def help(self) -> str | None:
        """How to fix it, in its code's words (None when the code has no advice here)."""
        return self.facts.words()[1]

    @property
    def expected(self) -> Any:
        return getattr(self.facts, "expected", None)

    @property
    def got(self) -> Any:
        return getattr(self.facts, "got", None)

    @property
    def keyword(self) -> str | None:
        return getattr(self.facts, "keyword", None)

    @property
    def partial(self) -> bool:
        return self.caused_by is not None

    def fact_values(self) -> dict[str, Any]:
        """The facts as JSON and SARIF carry them (`partial` and `caused_by` with them)."""
        values = self.facts.as_dict()
        return values if self.caused_by is None else {**values, "partial": True, "caused_by": list(self.caused_by)}

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
        if self.caused_by is not None:
            causes = self.caused_by
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


def error(facts: Facts, span: Span | None = None, *, rules: tuple[str, ...] = (),
          witness: Mapping[str, Any] | None = None, related: tuple[Related, ...] = ()) -> Diagnostic:
    return Diagnostic(facts, Severity.ERROR, span, rules, witness, related)


def warning(facts: Facts, span: Span | None = None, *, rules: tuple[str, ...] = (),
            witness: Mapping[str, Any] | None = None, related: tuple[Related, ...] = ()) -> Diagnostic:
    return Diagnostic(facts, Severity.WARNING, span, rules, witness, related)


def note(facts: Facts, span: Span | None = None, *, rules: tuple[str, ...] = (),
         witness: Mapping[str, Any] | None = None, related: tuple[Related, ...] = ()) -> Diagnostic:
    return Diagnostic(facts, Severity.NOTE, span, rules, witness, related)


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
