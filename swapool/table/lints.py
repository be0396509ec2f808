"""Stage 5c, lints: what the written cells and values say without the partition engine: empty
and whole-domain cells, inputs no rule reads, values no rule names, values of an engine-bound
input no case names, and values spelt against their input's letter case."""

from __future__ import annotations

from .codes.lints import (EmptyCell, FullDomainCell, UncasedValue, UnnamedValue, UnusedInput, ValueCase)
from .diagnostics import Diagnostic, error, note, warning
from .model import CellForm, Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from .partition import Cube


def uncased_values(table: Table) -> list[Diagnostic]:
    """Values of an engine-bound input (one with `enum:`) that no case names, by value or
    through a set: a value the engine can send that no golden example pins down. A case
    that leaves the input out does not count; it would pin every value at once."""
    found: list[Diagnostic] = []
    for k, inp in enumerate(table.inputs):
        if not inp.enum:
            continue
        cased = 0
        for case in table.cases:
            cased |= case.named(k, inp)
        left_out = inp.values_of(inp.full & ~cased)
        if not left_out:
            continue
        homes = [name for name, mask in inp.sets if mask & inp.full & ~cased]
        found.append(warning(UncasedValue(expected="a case naming each value", got=list(left_out), input=inp.name,
                                          enum=inp.enum, homes=homes), inp.span))
    return found


def off_case_values(table: Table) -> list[Diagnostic]:
    """Values whose letters are not in the case at least two others of their input share,
    where no more of them are in any other ('fast' among SAFE, EXACT): a name no engine
    sends. An imported input is judged in the table that lists it."""
    found: list[Diagnostic] = []
    for inp in table.inputs:
        if inp.is_bool or inp.imported_from or not inp.value_spans:
            continue
        cases = {"upper": [v for v in inp.values if v.upper() == v != v.lower()],
                 "lower": [v for v in inp.values if v.lower() == v != v.upper()]}
        convention = max(cases, key=lambda c: len(cases[c]))
        in_case = set(cases[convention])  # a set: an input may have tens of thousands of values
        others = [v for v in inp.values if v.upper() != v.lower() and v not in in_case]
        if len(cases[convention]) < 2 or len(others) >= len(cases[convention]):
            continue
        spell = str.upper if convention == "upper" else str.lower
        for v in others:
            found.append(warning(ValueCase(expected=spell(v), got=v, input=inp.name, convention=convention),
                                 inp.value_spans[inp.position[v]]))
    return found


def lint_cells(table: Table, gaps: Sequence[Cube] = ()) -> list[Diagnostic]:
    """Empty value sets (the rule can never match), whole-domain lists, inputs no rule
    reads, and enumeration values no rule names (decided only through wildcards: a new
    enum member decided by accident). A value a gap's closing rule names is the gap's to
    report: its fix names the value, not a wildcard."""
    found: list[Diagnostic] = []
    named = [0] * len(table.inputs)
    for gap in gaps:
        for j, inp in enumerate(table.inputs):
            if gap[j] != inp.full:
                named[j] |= gap[j]
    for rule in table.rules:
        for j, (inp, cell) in enumerate(zip(table.inputs, rule.cells)):
            named[j] |= cell.named
            if cell.mask == 0:
                found.append(error(EmptyCell(rule=rule.id, input=inp.name), cell.span or rule.span, rules=(rule.id,)))
            elif cell.form is CellForm.LIST and cell.mask == inp.full and len(inp.values) > 1:
                found.append(warning(FullDomainCell(rule=rule.id, input=inp.name), cell.span or rule.span,
                                     rules=(rule.id,)))
    for j, inp in enumerate(table.inputs):
        unnamed = inp.full & ~named[j]
        if not unnamed:
            continue
        if unnamed == inp.full:
            found.append(warning(UnusedInput(input=inp.name), inp.span))
            continue
        if inp.is_bool:
            continue  # a bool's domain cannot grow: '-' over it decides nothing by accident
        left_out = inp.values_of(unnamed)
        absorbers = [r.id for r in table.rules
                     if r.cells[j].form in (CellForm.ANY, CellForm.NOT) and r.cells[j].mask & unnamed]
        report = note if inp.wildcard else error  # wildcard: true is the author opting in
        found.append(report(UnnamedValue(got=list(left_out), input=inp.name, absorbers=absorbers,
                                         wildcard=inp.wildcard),
                            inp.span, rules=tuple(absorbers)))
    return found
