"""Stage 7, decider: a checked table answering questions, for any decision a table encodes.

Built once from a checked table (no parsing or scanning per call): `decide` spells each
fact (see `spelling`) and walks the diagram; `explain` also says which inputs the answer
read; `restrict` fixes inputs and gives the decider of what is left.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from .codes import adding_hint
from .diagnostics import Diagnostic, describe_fact, format_value, suggest, visible
from .diagram import Ask, Decision, Diagram, MissingFact, UnknownValue
from .model import Rule, Table
from .spelling import NOFACT, speller


class PolicyError(Exception):
    """A table that cannot be used, or a fact it cannot decide; lists every diagnostic."""

    def __init__(self, message: str, diagnostics: Iterable[Diagnostic] = ()):
        self.diagnostics = tuple(diagnostics)
        self.headline = visible(message)  # the message without the diagnostics, to wrap in another
        lines = [self.headline] + ["  " + str(d).replace("\n", "\n  ") for d in self.diagnostics]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Explanation:
    """A decision, the rule behind it, and the inputs it read (in the order it read them)."""

    decision: Decision
    rule: Rule
    read: tuple[str, ...]


class Decider:
    """A validated table compiled for answering. `path` names it in errors."""

    def __init__(self, table: Table, path: str, diagnostics: tuple[Diagnostic, ...] = (),
                 diagram: Diagram | None = None):
        self.table = table
        self.path = path
        self.digest = table.digest
        self.diagnostics = diagnostics  # warnings and notes that did not stop the load
        self.diagram = diagram or Diagram(table)
        self._rules = {r.id: r for r in table.rules}
        self._spell: dict[str, Callable[[Any], Any]] = {}  # compiled on first use: a resolver never asks

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.table.decision} from {self.path} sha256:{self.digest[:12]}>"

    def rule(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def spell(self, name: str, value: Any) -> Any:
        """`value` as the table spells input `name`'s values, or an error naming both."""
        spell = self._spell.get(name)
        if spell is None:
            spell = self._spell[name] = speller(self.table.inputs[self.table.input_names.index(name)])
        spelled = spell(value)
        if spelled is NOFACT:
            raise self.unknown(name, value)
        return spelled

    def decide(self, **facts: Any) -> Decision:
        """The decision for these facts (enum members count by name). Only the facts the
        decision reads are required and checked; unknown names and out-of-domain values
        of facts it reads are errors."""
        return self.explain(**facts).decision

    def explain(self, **facts: Any) -> Explanation:
        """`decide`, plus the deciding rule and which of the inputs the answer read."""
        unknown = facts.keys() - set(self.table.input_names)
        if unknown:
            raise PolicyError(f"{self.path}: unknown fact(s) {', '.join(sorted(unknown))}; "
                              f"the table's inputs are {', '.join(self.table.input_names)}")
        read: list[str] = []

        def ask(node: Ask) -> Any:  # facts are spelled when read, as the generated resolver does
            read.append(node.name)
            try:
                value = facts[node.name]
            except KeyError:
                raise MissingFact(node.name) from None
            return self.spell(node.name, value)
        try:
            decision = self.diagram.walk(ask)
        except MissingFact as exc:
            raise PolicyError(f"{self.path}: the decision needs the fact '{exc.name}' "
                              f"(one of {self.domain(exc.name)})") from None
        except UnknownValue as exc:
            raise self.unknown(exc.name, facts[exc.name]) from None
        if decision is None:
            raise PolicyError(f"{self.path}: no rule decides {describe_fact(facts)}; the table has a gap")
        return Explanation(decision, self._rules[decision.rule_id], tuple(read))

    def restrict(self, **fixed: Any) -> "Decider":
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
        inp = self.table.inputs[self.table.input_names.index(name)]
        return ", ".join(format_value(v) for v in inp.values)

    def unknown(self, name: str, value: Any) -> PolicyError:
        """A fact outside the domain: a likely misspelling is named first; otherwise how a new
        value is added."""
        inp = self.table.inputs[self.table.input_names.index(name)]
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
