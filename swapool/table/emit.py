"""The model written back as table data (plain dicts and lists, ready for YAML)."""

from __future__ import annotations

from typing import Any

from .cells import form_for, write_cell
from .model import OUTPUT, Case, Cell, CellForm, Input, Invariant, Rule, Table


def cell_data(inp: Input, cell: Cell) -> Any:
    return write_cell(cell.form, cell.sets if cell.form is CellForm.SET else inp.values_of(cell.named))


def mask_cell(inp: Input, mask: int) -> Any:
    """A cell matching exactly the values in `mask` (not every value): the name of a set
    with those members if the input has one, else a literal or a list."""
    named = next((name for name, members in inp.sets if members == mask), None)
    if named is not None:
        return write_cell(CellForm.SET, [named])
    values = inp.values_of(mask)
    return write_cell(form_for(len(values)), values)


def region_data(table: Table, region: tuple[int, ...]) -> dict[str, Any]:
    """A condition matching `region` (`Table.terms`, with one value written as a literal)."""
    return {name: values[0] if len(values) == 1 else values for name, values in table.terms(region).items()}


def rule_data(table: Table, rule: Rule) -> dict[str, Any]:
    when = {inp.name: cell_data(inp, cell) for inp, cell in zip(table.inputs, rule.cells)
            if cell.form is not CellForm.ANY}
    out: dict[str, Any] = {"id": rule.id, "when": when, "then": rule.then}
    if rule.why is not None:
        out["why"] = rule.why
    return out


def case_data(table: Table, case: Case) -> dict[str, Any]:
    given = region_data(table, case.region)
    if any(case.sets):
        written = dict(given)
        given = {}
        for inp, names in zip(table.inputs, case.sets):
            if names:
                given[inp.name] = write_cell(CellForm.SET, names)
            elif inp.name in written:
                given[inp.name] = written[inp.name]
    out: dict[str, Any] = {"given": given, "expect": case.expect}
    if case.why is not None:
        out["why"] = case.why
    return out


def _condition(table: Table, region: tuple[int, ...], outputs: frozenset[str]) -> dict[str, Any]:
    out = region_data(table, region)
    if outputs != frozenset(table.output.values):
        chosen = [v for v in table.output.values if v in outputs]
        out[OUTPUT] = chosen[0] if len(chosen) == 1 else chosen
    return out


def invariant_data(table: Table, inv: Invariant) -> dict[str, Any]:
    out: dict[str, Any] = {"id": inv.id, "if": _condition(table, inv.if_region, inv.if_outputs),
                           "then": _condition(table, inv.then_region, inv.then_outputs)}
    if inv.why is not None:
        out["why"] = inv.why
    return out


def table_data(table: Table) -> dict[str, Any]:
    """The whole table as data; building it again gives the same decisions, cells and cases."""
    inputs: dict[str, Any] = {}
    for inp in table.inputs:
        spec: dict[str, Any] = {"type": "bool"} if inp.is_bool else {"values": list(inp.values)}
        if inp.sets:  # an imported input is written out whole, so the data stands alone
            spec["sets"] = {name: list(inp.values_of(mask)) for name, mask in inp.sets}
        if inp.description is not None:
            spec["description"] = inp.description
        if inp.enum is not None:
            spec["enum"] = inp.enum
        if inp.wildcard:
            spec["wildcard"] = True
        inputs[inp.name] = spec
    out: dict[str, Any] = {"format": table.format, "decision": table.decision}
    if table.description is not None:
        out["description"] = table.description
    out["hit_policy"] = table.hit_policy.value
    out["inputs"] = inputs
    out["output"] = {"values": list(table.output.values)}
    if table.output.description is not None:
        out["output"]["description"] = table.output.description
    if table.invariants:
        out["invariants"] = [invariant_data(table, v) for v in table.invariants]
    out["rules"] = [rule_data(table, r) for r in table.rules]
    if table.cases:
        out["cases"] = [case_data(table, c) for c in table.cases]
    return out
