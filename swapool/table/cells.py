"""The cell grammar, both ways: how a cell is written in YAML and how it is written back."""

from __future__ import annotations


from .diagnostics import Span
from .model import Cell, CellForm, Input

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

ANY_CELL = "-"


def read_cell(raw: Any) -> tuple[CellForm, list[Any]]:
    """The form of a schema-valid cell and the literals it names (none for '-'; for an
    `{in: ...}` cell, the set names)."""
    if raw == ANY_CELL:
        return CellForm.ANY, []
    if isinstance(raw, dict):
        if "in" in raw:
            names = raw["in"]
            return CellForm.SET, [names] if isinstance(names, str) else list(names)
        return CellForm.NOT, list(raw["not"])
    if isinstance(raw, list):
        return CellForm.LIST, list(raw)
    return CellForm.LITERAL, [raw]


def write_cell(form: CellForm, values: Sequence[Any]) -> Any:
    """The YAML data of a cell; `values` are the literals it names (a `not` cell: the
    values it excludes; an `{in: ...}` cell: the set names). `read_cell(write_cell(f, v)) == (f, v)`."""
    if form is CellForm.ANY:
        return ANY_CELL
    if form is CellForm.SET:
        return {"in": values[0] if len(values) == 1 else list(values)}
    if form is CellForm.NOT:
        return {"not": list(values)}
    if form is CellForm.LITERAL:
        (value,) = values
        return value
    return list(values)


def form_for(count: int) -> CellForm:
    """How a positive cell naming `count` values is written: one value as a literal."""
    return CellForm.LITERAL if count == 1 else CellForm.LIST


def matched(inp: Input, form: CellForm, named: int) -> int:
    """The values a cell of `inp` written as `form` and naming `named` matches. A literal
    or list naming nothing matches nothing (an empty-cell finding); a `not` naming
    nothing matches every value."""
    if form is CellForm.ANY:
        return inp.full
    if form is CellForm.NOT:
        return inp.full & ~named
    return named


def make_cell(inp: Input, form: CellForm, named: int, span: Span | None = None, sets: tuple[str, ...] = ()) -> Cell:
    """The cell of `inp` written as `form` naming the values in mask `named` (for a `not`
    cell, the values it excludes; for an `{in: ...}` cell, the members of `sets`)."""
    return Cell(matched(inp, form, named), form, 0 if form is CellForm.ANY else named, span,
                sets if form is CellForm.SET else ())
