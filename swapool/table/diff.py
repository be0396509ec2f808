"""Semantic diff: the regions of the input space whose decision differs between two tables."""

from __future__ import annotations


from .record import Record
from .partition import Budget, Cube, first_hits, intersect, is_empty, merge_regions
from .refine import bits
from .model import Input, Table, describe_region

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Verdict(Record):
    """How one table decides a region: an output and rule, or the value is outside its domain."""

    output: str | None
    rule_id: str | None
    gap: bool = False  # in the table's domain, but no rule decides it (a table mid-edit)

    def __str__(self) -> str:
        if self.output:
            return f"{self.output} ({self.rule_id})"
        return "(no rule decides it)" if self.gap else "(not in the table's domain)"


UNDECIDED = Verdict(None, None)
GAP = Verdict(None, None, gap=True)


class Change(Record):
    region: Cube
    old: Verdict
    new: Verdict


class Diff(Record):
    inputs: tuple[Input, ...]  # the union of both tables' domains, in NEW's order
    changes: tuple[Change, ...]

    def describe(self, change: Change) -> str:
        return describe_region(self.inputs, change.region)

    def witness(self, change: Change) -> dict[str, Any]:
        return {inp.name: inp.values[bits(m)[0]] for inp, m in zip(self.inputs, change.region)}


class IncomparableTables(ValueError):
    pass


def union_inputs(old: Table, new: Table) -> tuple[Input, ...]:
    if set(old.input_names) != set(new.input_names):
        only_old = [n for n in old.input_names if n not in new.input_names]
        only_new = [n for n in new.input_names if n not in old.input_names]
        fixes = [f"--old-set {n}=VALUE" for n in only_old] + [f"--new-set {n}=VALUE" for n in only_new]
        raise IncomparableTables(
            f"the tables read different inputs: {', '.join(old.input_names)} vs {', '.join(new.input_names)}; "
            f"compare them where the extra input is fixed ({' '.join(fixes)})")
    olds = {i.name: i for i in old.inputs}
    out = []
    for inp in new.inputs:
        extra = tuple(v for v in olds[inp.name].values if v not in inp.values)
        out.append(Input(inp.name, inp.values + extra, inp.is_bool, inp.span))
    return tuple(out)


def _verdicts(table: Table, space: tuple[Input, ...]) -> list[tuple[Cube, Verdict]]:
    """A partition of the union space: the table's first-hit pieces, then what its domain lacks."""
    own = {i.name: i for i in table.inputs}
    order = [table.input_names.index(i.name) for i in space]

    def lift(region: Cube) -> Cube:
        out = []
        for inp, j in zip(space, order):
            src = own[inp.name]
            out.append(inp.mask_of(src.values_of(region[j])))
        return tuple(out)

    result = []
    for reg, p in first_hits(table.ranked_cubes, table.full_region, Budget()):
        rule = table.ranked_rule(p)
        result.append((lift(reg), Verdict(rule.then, rule.id) if rule else GAP))
    inside = tuple(inp.mask_of(own[inp.name].values) for inp in space)
    for k, inp in enumerate(space):
        outside = inp.full & ~inside[k]
        if outside:
            result.append((inside[:k] + (outside,) + tuple(i.full for i in space[k + 1:]), UNDECIDED))
    return result


def _without_unread(table: Table, other: Table) -> Table:
    """`table` without the inputs `other` lacks that no rule of it reads: the decision does
    not depend on them, so fixing them to any value is exact."""
    for k in reversed(range(len(table.inputs))):
        inp = table.inputs[k]
        if inp.name not in other.input_names and all(r.cells[k].mask == inp.full for r in table.rules):
            table = table.restricted(inp.name, inp.values[0])
    return table


def diff_tables(old: Table, new: Table) -> Diff:
    """Regions whose output differs (rule renames alone are no change), merged per verdict
    pair. An input only one table has is left out where no rule of that table reads it."""
    old, new = _without_unread(old, new), _without_unread(new, old)
    space = union_inputs(old, new)
    a, b = _verdicts(old, space), _verdicts(new, space)
    grouped: dict[tuple[Verdict, Verdict], list[Cube]] = {}
    for ra, va in a:
        for rb, vb in b:
            if va.output == vb.output and va.gap == vb.gap:
                continue
            inter = intersect(ra, rb)
            if not is_empty(inter):
                grouped.setdefault((va, vb), []).append(inter)
    changes = [Change(reg, va, vb) for (va, vb), regs in grouped.items() for reg in merge_regions(regs)]
    changes.sort(key=lambda c: tuple(bits(m)[0] for m in c.region))
    return Diff(space, tuple(changes))
