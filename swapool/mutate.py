"""Mutation testing of a table: does `validate` reject every single-point edit?

A mutant that validates is an edit the table's cases and invariants cannot tell from the
original; it is fixed by adding a case or an invariant, never by weakening the mutations.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Iterator

from .diagnostics import format_value
from .source import Document
from .validate import check_document


@dataclass(frozen=True)
class Mutant:
    description: str
    data: Any


@dataclass(frozen=True)
class MutationReport:
    total: int
    killed: int
    survivors: tuple[str, ...]

    @property
    def kill_rate(self) -> float:
        return self.killed / self.total if self.total else 1.0


def _domain(data: dict, name: str) -> list:
    spec = data["inputs"][name]
    return [False, True] if "type" in spec else list(spec["values"])


def _cell_values(cell: Any) -> tuple[str, list]:
    """(form, values) of a cell: form is 'any', 'is' (literal or list) or 'not'."""
    if cell is None or cell == "-":
        return "any", []
    if isinstance(cell, dict):
        return "not", list(cell["not"])
    return "is", list(cell) if isinstance(cell, list) else [cell]


def _make_cell(form: str, values: list) -> Any:
    if form == "not":
        return {"not": values} if values else "-"
    if not values:
        return "-"
    return values[0] if len(values) == 1 else values


def _show(values: list) -> str:
    return "[" + ", ".join(format_value(v) for v in values) + "]"


def mutants(data: dict) -> Iterator[Mutant]:
    """Every single-point mutation: outputs, cell values (add, remove, replace, narrow '-'),
    rule removal, case expectations."""
    outputs = list(data["output"]["values"])
    rules = data["rules"]

    def edited(fn) -> dict:
        new = copy.deepcopy(data)
        fn(new)
        return new

    for i, rule in enumerate(rules):
        rid = rule["id"]
        for out in outputs:
            if out != rule["then"]:
                yield Mutant(f"rule '{rid}': then {rule['then']} -> {out}",
                             edited(lambda d, i=i, out=out: d["rules"][i].__setitem__("then", out)))
        yield Mutant(f"rule '{rid}' removed", edited(lambda d, i=i: d["rules"].pop(i)))
        when = rule.get("when") or {}
        for name in data["inputs"]:
            form, values = _cell_values(when.get(name))
            domain = _domain(data, name)
            absent = [v for v in domain if v not in values]
            edits: list[tuple[str, str, list]] = []
            if form == "any":
                edits += [(f"'-' -> {format_value(v)}", "is", [v]) for v in domain]
            else:
                edits += [(f"{_show(values)} - {format_value(v)}", form, [x for x in values if x != v])
                          for v in values]
                edits += [(f"{_show(values)} + {format_value(v)}", form, values + [v]) for v in absent]
                edits += [(f"{_show(values)} {format_value(v)} -> {format_value(w)}", form,
                           [w if x == v else x for x in values]) for v in values for w in absent]
            for label, new_form, new_values in edits:
                cell = _make_cell(new_form, new_values)

                def apply(d, i=i, name=name, cell=cell):
                    d["rules"][i].setdefault("when", {})
                    if cell == "-":
                        d["rules"][i]["when"].pop(name, None)
                    else:
                        d["rules"][i]["when"][name] = cell
                yield Mutant(f"rule '{rid}': {name} {label}", edited(apply))
    for k, case in enumerate(data.get("cases") or []):
        for out in outputs:
            if out != case["expect"]:
                yield Mutant(f"case {k + 1}: expect {case['expect']} -> {out}",
                             edited(lambda d, k=k, out=out: d["cases"][k].__setitem__("expect", out)))


def run_mutations(doc: Document) -> MutationReport:
    """Validate every mutant of a valid table; a mutant is killed when validation fails."""
    survivors = []
    total = 0
    for m in mutants(doc.data):
        total += 1
        checked = check_document(Document(doc.file, m.data, {}, {}, ""), import_enums=False)
        if checked.ok:
            survivors.append(m.description)
    return MutationReport(total, total - len(survivors), tuple(survivors))
