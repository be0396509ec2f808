"""Stage 7, decider: a checked table answering questions, for any decision a table encodes.

Built once from a checked table (no parsing or scanning per call): `answer` spells each
fact it reads (`spelled`) and walks the diagram; `decide` and `explain` answer from given
facts, an application from facts it reads itself; `restrict` fixes
inputs and gives the decider of what is left.
"""

from __future__ import annotations

import enum

from .record import Record
from .codes import adding_hint
from .diagnostics import Diagnostic, describe_fact, format_value, suggest, visible
from .diagram import Ask, Decision, Diagram
from .model import Input, Rule, Table
from .partition import Budget

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, TypeVar

    _D = TypeVar("_D", bound="Decider")  # restrict() keeps the class: a Policy restricted is a Policy

_ENUM_TYPE = type(enum.Enum)
NOFACT: Any = object()  # no value of the input


def spelled(inp: Input, value: Any) -> Any:
    """The one spelling of a fact: `value` as input `inp` writes it, or `NOFACT`.

    A bool input takes exactly `True` or `False` (not 1, 1.0 or "yes"); a values input a
    `str`, an enum member (by its name) or an object whose `name` is a `str` (an engine's
    plugin algorithms). `type(value)`, not `value.__class__`: an object can fake the latter.
    """
    if inp.is_bool:
        return value if value is True or value is False else NOFACT
    if type(type(value)) is _ENUM_TYPE:
        name = value._name_
    elif type(value) is str:
        name = value
    else:
        name = getattr(value, "name", None)
    return name if type(name) is str and name in inp.position else NOFACT


class PolicyError(Exception):
    """A table that cannot be used, or a fact it cannot decide; lists every diagnostic."""

    def __init__(self, message: str, diagnostics: Iterable[Diagnostic] = ()):
        self.diagnostics = tuple(diagnostics)
        self.headline = visible(message)  # the message without the diagnostics, to wrap in another
        lines = [self.headline] + ["  " + str(d).replace("\n", "\n  ") for d in self.diagnostics]
        super().__init__("\n".join(lines))


class NoRuleDecides(PolicyError):
    """The facts fall in a gap of the table: no rule decides them (a finding of the table, not
    a wrong fact)."""


class Explanation(Record):
    """A decision, the rule behind it, and the inputs it read (in the order it read them)."""

    decision: Decision
    rule: Rule
    read: tuple[str, ...]

    def __str__(self) -> str:
        """What `swapool explain` prints."""
        lines = [f"decision: {self.decision.output}", f"rule:     {self.rule.id} ({self.rule.span})"]
        if self.rule.why:
            lines.append(f"why:      {' '.join(self.rule.why.split())}")
        return "\n".join(visible(line) for line in lines)

    def __repr__(self) -> str:
        return f"<Explanation {visible(self.decision.output)} by rule {visible(self.rule.id)} at {self.rule.span}>"


class Decider:
    """A validated table compiled for answering. `path` names it in errors."""

    def __init__(self, table: Table, path: str, diagnostics: tuple[Diagnostic, ...] = (),
                 diagram: Diagram | None = None):
        self.table = table
        self.path = path
        self.digest = table.digest
        self.diagnostics = diagnostics  # warnings and notes that did not stop the load
        self.diagram = diagram or Diagram(table, Budget())
        self._rules = {r.id: r for r in table.rules}
        self._inputs = {i.name: i for i in table.inputs}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.table.decision} from {self.path} sha256:{self.digest[:12]}>"

    def __str__(self) -> str:
        return visible(f"{self.table.decision} table {self.path} (sha256:{self.digest[:12]}, {len(self.table.rules)} "
                       f"rules, hit policy {self.table.hit_policy.value})")

    def rule(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def spell(self, name: str, value: Any) -> Any:
        """`value` as the table spells input `name`'s values, or an error naming both."""
        out = spelled(self._inputs[name], value)
        if out is NOFACT:
            raise self.unknown(name, value)
        return out

    def answer(self, read: Callable[[str], Any]) -> Decision | None:
        """Walk the diagram, calling `read(name)` for each fact the answer needs, in table
        order; each fact is spelled as it is read, and one outside its domain is a
        `PolicyError`. None is a gap (only in a table with errors)."""
        inputs = self.table.inputs

        def ask(node: Ask) -> Any:
            value = read(node.name)
            out = spelled(inputs[node.index], value)
            if out is NOFACT:
                raise self.unknown(node.name, value)
            return out
        return self.diagram.walk(ask)

    def decide(self, **facts: Any) -> Decision:
        """The decision for these facts (enum members count by name). Only the facts the
        decision reads are required and checked; unknown names and out-of-domain values
        of facts it reads are errors."""
        return self.explain(**facts).decision

    def explain(self, **facts: Any) -> Explanation:
        """`decide`, plus the deciding rule and which of the inputs the answer read."""
        unknown = facts.keys() - self._inputs.keys()
        if unknown:
            raise PolicyError(f"{self.path}: unknown fact(s) {', '.join(sorted(unknown))}; "
                              f"the table's inputs are {', '.join(self.table.input_names)}")
        read: list[str] = []

        def given(name: str) -> Any:
            if name not in facts:
                raise PolicyError(f"{self.path}: the decision needs the fact '{name}' (one of {self.domain(name)})")
            if name not in read:
                read.append(name)
            return facts[name]
        decision = self.answer(given)
        if decision is None:
            raise NoRuleDecides(f"{self.path}: no rule decides {describe_fact(facts)}; the table has a gap")
        return Explanation(decision, self._rules[decision.rule_id], tuple(read))

    def restrict(self: _D, **fixed: Any) -> _D:
        """The decider of this table with some inputs fixed (e.g. `backend="flashinfer"`)
        and removed. Restricting a valid table keeps it valid."""
        table = self.table
        for name, value in fixed.items():
            if name not in table.input_names:
                raise PolicyError(f"{self.path}: cannot restrict: '{name}' is not an input")
            try:
                table = table.restricted(name, self.spell(name, value))
            except ValueError as exc:
                raise PolicyError(f"{self.path}: cannot restrict: {exc}") from None
        return type(self)(table, table.file, self.diagnostics)

    def domain(self, name: str) -> str:
        inp = self._inputs[name]
        return ", ".join(format_value(v) for v in inp.values)

    def unknown(self, name: str, value: Any) -> PolicyError:
        """A fact outside the domain: a likely misspelling is named first; otherwise how a new
        value is added."""
        inp = self._inputs[name]
        if inp.is_bool:  # a bool's domain cannot grow: the fact is of the wrong type, not a new value
            return PolicyError(f"{name}={describe_fact(value)} is not a bool: input '{name}' of policy {self.path} "
                               f"(sha256:{self.digest[:12]}) takes true or false (a Python bool, not 1 or 'true'); "
                               "pass bool(...) of the fact.")
        try:  # a caller's object: its `name` may be anything, or raise
            spelled = value if type(value) is str else getattr(value, "name", None)
        except Exception:
            spelled = None
        near = suggest(spelled, inp.values) if type(spelled) is str else None
        fix = adding_hint(inp.name, [n for n, _ in inp.sets], "it")
        advice = (f"Did you mean '{format_value(near)}'? If it is a new value: {fix}" if near is not None
                  else f"{fix[0].upper()}{fix[1:]}")
        return PolicyError(f"{name}={describe_fact(value)} is not in the domain of policy {self.path} "
                           f"(sha256:{self.digest[:12]}); expected one of {self.domain(name)}. "
                           f"{advice}, in {inp.imported_from or self.path}.")
