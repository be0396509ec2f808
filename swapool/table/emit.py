"""Rules written back as table data (plain dicts and lists, ready for YAML): what a
finding proposes to paste, and a mutant's rule."""

from __future__ import annotations


from .cells import form_for, write_cell
from .model import Cell, CellForm, Input, Rule, Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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


def rule_data(table: Table, rule: Rule) -> dict[str, Any]:
    when = {inp.name: cell_data(inp, cell) for inp, cell in zip(table.inputs, rule.cells)
            if cell.form is not CellForm.ANY}
    out: dict[str, Any] = {"id": rule.id, "when": when, "then": rule.then}
    if rule.why is not None:
        out["why"] = rule.why
    return out

