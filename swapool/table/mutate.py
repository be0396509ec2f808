"""Mutation testing of a table: does the analysis reject every single-point edit?

Mutants are edits of the model (a rule's output, one value of one cell, a removed rule,
a case's expectation), checked by the same analysis as the table. A mutant that passes
is an edit the table's cases and invariants cannot tell from the original; it is fixed
by adding a case or an invariant, never by weakening the mutations.
"""

from __future__ import annotations


from .record import Record
from .analysis import Contract, analyse
from .partition import Budget
from .cells import form_for, make_cell
from .diagnostics import Span, format_value
from .diff import diff_tables
from .emit import rule_data
from .model import Cell, CellForm, Input, Rule, Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator, Sequence


class Mutant(Record):
    description: str
    table: Table
    rule: Rule | None = None  # the edited rule, when the edit is to a rule
    span: Span | None = None  # where the edit is: the rule or case it changes


class Survivor(Record):
    description: str
    rule: dict[str, Any] | None  # the edited rule as table data
    span: Span | None = None
    case: dict[str, Any] | None = None  # a case the table lacks: it tells the mutant apart (paste it)

    @property
    def equivalent(self) -> bool:
        """The edit decides every input as before: no case can kill it (nor needs to)."""
        return self.case is None


def killing_case(table: Table, mutant: Table) -> dict[str, Any] | None:
    """A case, as table data, that the table passes and the mutant fails: one input where
    they decide differently, expecting the table's answer. None when they never differ."""
    diff = diff_tables(table, mutant)
    for change in diff.changes:
        if change.old.output is not None:
            return {"given": diff.witness(change), "expect": change.old.output}
    return None


class MutationReport(Record):
    total: int  # the mutants judged
    killed: int
    survivors: tuple[Survivor, ...]
    planned: int = -1  # the table's mutants (more than `total` when the work budget ran out)

    @property
    def stopped(self) -> bool:
        """Whether the run stopped at MAX_MUTATION_STEPS before judging every mutant."""
        return self.total < self.planned

    @property
    def kill_rate(self) -> float:
        return self.killed / self.total if self.total else 1.0


def _show(values: tuple) -> str:
    return "[" + ", ".join(format_value(v) for v in values) + "]"


def _with_rule(table: Table, index: int, rule: Rule | None) -> Table:
    rules = list(table.rules)
    if rule is None:
        del rules[index]
    else:
        rules[index] = rule
    return table._replace(rules=tuple(r._replace(index=i) for i, r in enumerate(rules)))


def mutants(table: Table) -> Iterator[Mutant]:
    """Every single-point mutation: outputs, cell values (add, remove, replace, narrow '-'),
    rule removal, case expectations."""
    outputs = table.output.values
    for i, rule in enumerate(table.rules):
        for out in outputs:
            if out != rule.then:
                edited = rule._replace(then=out)
                yield Mutant(f"rule '{rule.id}': then {rule.then} -> {out}", _with_rule(table, i, edited), edited,
                             rule.span)
        yield Mutant(f"rule '{rule.id}' removed", _with_rule(table, i, None), span=rule.span)
        for j, (inp, cell) in enumerate(zip(table.inputs, rule.cells)):
            for label, form, mask in _cell_edits(inp, cell):
                if mask == 0:
                    form = CellForm.ANY  # a cell with nothing left to name is written '-'
                elif form is not CellForm.NOT:
                    form = form_for(bin(mask).count("1"))
                cells = rule.cells[:j] + (make_cell(inp, form, mask, cell.span),) + rule.cells[j + 1:]
                edited = rule._replace(cells=cells)
                yield Mutant(f"rule '{rule.id}': {inp.name} {label}", _with_rule(table, i, edited), edited,
                             cell.span or rule.span)
    for k, case in enumerate(table.cases):
        for out in outputs:
            if out != case.expect:
                cases = table.cases[:k] + (case._replace(expect=out),) + table.cases[k + 1:]
                yield Mutant(f"case {k + 1}: expect {case.expect} -> {out}", table._replace(cases=cases),
                             span=case.span)


def _cell_edits(inp: Input, cell: Cell) -> Sequence[tuple[str, CellForm, int]]:
    """Each single-point edit of a cell, as (its label, the form written, the values it names):
    '-' narrowed to each value; else each value removed, each value added, each replaced."""
    if cell.form is CellForm.ANY:
        return [(f"'-' -> {format_value(v)}", CellForm.LITERAL, 1 << k) for k, v in enumerate(inp.values)]
    shown = _show(inp.values_of(cell.named))
    absent = [(k, v) for k, v in enumerate(inp.values) if not cell.named >> k & 1]
    present = [(k, v) for k, v in enumerate(inp.values) if cell.named >> k & 1]
    return ([(f"{shown} - {format_value(v)}", cell.form, cell.named & ~(1 << k)) for k, v in present]
            + [(f"{shown} + {format_value(v)}", cell.form, cell.named | 1 << k) for k, v in absent]
            + [(f"{shown} {format_value(v)} -> {format_value(w)}", cell.form, cell.named & ~(1 << k) | 1 << m)
               for k, v in present for m, w in absent])


#: The most mutants one run analyses: each is a whole analysis, and replacing one value by
#: another grows with the square of an input's values (2.8 KB once made ~100,000 mutants).
MAX_MUTANTS = 20_000
#: The most analysis steps one run spends on its mutants together (about a minute on a 2-core
#: machine at ~150,000 steps a second): the count alone did not bound the work (a 6 KB chain
#: table under MAX_MUTANTS ran for minutes).
MAX_MUTATION_STEPS = 10_000_000


class TooManyMutants(ValueError):
    """The table has more single-point edits than one run analyses."""


def mutant_count(table: Table) -> int:
    """How many mutants `mutants(table)` yields, counted without making them."""
    outputs = len(table.output.values)
    total = len(table.cases) * (outputs - 1)
    for rule in table.rules:
        total += outputs
        for inp, cell in zip(table.inputs, rule.cells):
            if cell.form is CellForm.ANY:
                total += len(inp.values)
            else:
                present = bin(cell.named).count("1")
                absent = len(inp.values) - present
                total += present + absent + present * absent
    return total


def run_mutations(table: Table, contract: Contract | None = None, max_steps: int | None = None) -> MutationReport:
    """Analyse every mutant of a valid table (and check the contract of its decision, when
    given); a mutant is killed when it has an error. More than MAX_MUTANTS raises
    `TooManyMutants` before any is analysed; past `max_steps` analysis steps in all (default
    MAX_MUTATION_STEPS) the run stops, and the report says how many it judged (`stopped`)."""
    max_steps = MAX_MUTATION_STEPS if max_steps is None else max_steps
    count = mutant_count(table)
    if count > MAX_MUTANTS:
        raise TooManyMutants(f"{table.file} has {count:,} single-point edits; one run analyses at most "
                             f"{MAX_MUTANTS:,} (each is a whole analysis): split the table, or mutate a part of it")
    survivors = []
    total = spent = 0
    for m in mutants(table):
        if spent > max_steps:
            break
        total += 1
        budget = Budget()
        done = analyse(m.table, budget)
        found = done.findings + (contract.check(done) if contract and done.first is not None else [])
        spent += budget.used
        if not any(d.is_error for d in found):
            survivors.append(Survivor(m.description, rule_data(m.table, m.rule) if m.rule else None, m.span,
                                      killing_case(table, m.table)))
    return MutationReport(total, total - len(survivors), tuple(survivors), count)
