"""What each rule of a table decides, as merged regions of the input space, gaps last: what
`swapool show` prints for a table and `swapool plan` for each place of a server."""

from __future__ import annotations

from .analysis import Analysis
from .model import Rule, Table, describe_region
from .partition import Budget, Cube, Node, merge_regions
from .record import Record

#: The region of a rule that decides nothing.
NOWHERE = "(nowhere: earlier rules decide every input it matches, or it matches none)"


class Decided(Record):
    """A region of the input space, described in the table's words, and the rule deciding it
    (None: a gap)."""

    region: str
    rule: Rule | None = None

    @property
    def output(self) -> str | None:
        return self.rule.then if self.rule else None


def decided_regions(analysis: Analysis) -> list[tuple[int | None, list[Cube]]]:
    """For each rule (table order; None last for gaps), the merged regions it decides."""
    table = analysis.table
    by_rule: dict[int | None, list[Cube]] = {}
    for reg, ri in analysis.hits(table.full_region):
        by_rule.setdefault(ri, []).append(reg)
    order = sorted(by_rule, key=lambda ri: len(table.rules) if ri is None else ri)
    return [(ri, merge_regions(by_rule[ri])) for ri in order]


def decided(table: Table, *, idle_rules: bool = False, first: Node | None = None) -> list[Decided]:
    """Each rule's merged regions in table order, gaps last; with `idle_rules`, also each
    rule that decides nothing (`NOWHERE`), so that a reader sees it and why. `first`: the
    table's first-hit DAG, where its check built one (`Checked.analysis`)."""
    rows = [Decided(describe_region(table.inputs, reg), table.rules[ri] if ri is not None else None)
            for ri, regions in decided_regions(Analysis(table, Budget(), first)) for reg in regions]
    if idle_rules:
        deciding = {r.rule.index for r in rows if r.rule}
        rows += [Decided(NOWHERE, rule) for rule in table.rules if rule.index not in deciding]
    return rows
