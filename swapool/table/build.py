"""Stage 3, model construction: a schema-valid document -> a `Table`, or every reason not."""

from __future__ import annotations

from typing import Any, Mapping

from .cells import make_cell, read_cell
from .diagnostics import Diagnostic, did_you_mean, error, format_value
from .model import OUTPUT, Cell, CellForm, Case, HitPolicy, Input, Invariant, Output, Rule, Table
from .source import Document

#: inputs x (rules + cases + 2 x invariants): the model holds one cell for each.
MAX_CELLS = 1_000_000
#: Values a message lists before "and N more".
_LISTED = 12


def _listed(values: tuple) -> str:
    shown = ", ".join(format_value(v) for v in values[:_LISTED])
    return shown + (f" and {len(values) - _LISTED:,} more" if len(values) > _LISTED else "")


def build_table(doc: Document) -> tuple[Table | None, list[Diagnostic]]:
    """Resolve a schema-valid document into a `Table`, or say every reason it cannot be."""
    b = _TableBuilder(doc)
    table = b.build()
    return (table if not b.diagnostics else None), b.diagnostics


class _TableBuilder:
    def __init__(self, doc: Document):
        self.doc = doc
        self.diagnostics: list[Diagnostic] = []

    def fail(self, code: str, message: str, path: tuple, help: str | None = None) -> None:
        self.diagnostics.append(error(code, message, self.doc.span(path), help=help))

    def build(self) -> Table | None:
        d = self.doc.data
        rows = len(d["rules"]) + len(d.get("cases", [])) + 2 * len(d.get("invariants", []))
        if len(d["inputs"]) * rows > MAX_CELLS:
            self.fail("analysis-budget", f"the table has {len(d['inputs']):,} inputs and {rows:,} rules, cases and "
                      f"invariant conditions: {len(d['inputs']) * rows:,} cells, more than the {MAX_CELLS:,} swapool "
                      "checks", ("rules",), help="split the table; a decision table is a few dozen rows")
            return None
        inputs = tuple(self.input(name, spec) for name, spec in d["inputs"].items())
        self.by_name = {i.name: i for i in inputs}
        self.inputs = inputs
        out_values = tuple(d["output"]["values"])
        self.check_unique(out_values, ("output", "values"), "output")
        self.output = Output(out_values, self.doc.span(("output",)), d["output"].get("description"))
        rules = tuple(self.rule(i, r) for i, r in enumerate(d["rules"]))
        seen: dict[str, Rule] = {}
        for r in rules:
            if r.id in seen:
                self.fail("duplicate-rule-id",
                          f"rule id '{r.id}' is already used by the rule at line {seen[r.id].span.line}",
                          ("rules", r.index, "id"), help="give every rule a distinct id")
            seen.setdefault(r.id, r)
        cases = tuple(self.case(i, c) for i, c in enumerate(d.get("cases", [])))
        invariants = tuple(self.invariant(i, v) for i, v in enumerate(d.get("invariants", [])))
        return Table(self.doc.file, self.doc.digest, d["format"], d["decision"], HitPolicy(d["hit_policy"]), inputs,
                     self.output, rules, cases, invariants, d.get("description"),
                     self.doc.key_span(("rules",)), self.doc.span(("decision",)))

    def check_unique(self, values: tuple, path: tuple, what: str) -> None:
        seen: set = set()
        for i, v in enumerate(values):
            if v in seen:
                self.fail("duplicate-value", f"{what} lists the value '{v}' twice", path + (i,))
            seen.add(v)

    def input(self, name: str, spec: Mapping[str, Any]) -> Input:
        path = ("inputs", name)
        if name == OUTPUT:
            self.diagnostics.append(error(
                "reserved-name", f"an input cannot be named '{OUTPUT}': invariant conditions use that key for "
                "the decision's output", self.doc.key_span(path), expected="another name", got=name,
                help="rename the input"))
        if "type" in spec:
            values: tuple = (False, True)
        else:
            values = tuple(spec["values"])
            self.check_unique(values, path + ("values",), f"input '{name}'")
        return Input(name, values, "type" in spec, self.doc.key_span(path), spec.get("description"),
                     spec.get("enum"), bool(spec.get("wildcard", False)))

    def value_mask(self, inp: Input, literals: list, path: tuple, indexed: bool = True) -> int:
        mask = 0
        for i, v in enumerate(literals):
            at = path + (i,) if indexed else path
            if not inp.holds(v):
                self.unknown_value(inp, v, at)
                continue
            mask |= 1 << inp.position[v]
        return mask

    def unknown_value(self, inp: Input, v: Any, path: tuple) -> None:
        hint = None
        if isinstance(v, bool) and not inp.is_bool:
            hint = "YAML reads yes/no/on/off/true/false as booleans; quote the value"
        elif inp.is_bool:
            hint = "this input has type bool: write true or false"
        else:
            hint = did_you_mean(v, inp.values)
        self.diagnostics.append(error(
            "unknown-value", f"{format_value(v)!r} is not a value of input '{inp.name}' "
            f"(expected one of: {_listed(inp.values)})", self.doc.span(path), help=hint,
            expected=list(inp.values[:_LISTED]), got=v, keyword=inp.name))

    def cell(self, inp: Input, raw: Any, path: tuple) -> Cell:
        form, literals = read_cell(raw)
        at = path + ("not",) if form is CellForm.NOT else path
        named = self.value_mask(inp, literals, at, indexed=form is not CellForm.LITERAL)
        return make_cell(inp, form, named, self.doc.span(path))

    def cells(self, when: Mapping[str, Any], path: tuple, allow_output: bool = False) -> tuple[tuple[Cell, ...], int]:
        """Cells in input order (missing = any) and, for invariants, the output's mask."""
        by_input: dict[str, Cell] = {}
        out_mask = (1 << len(self.output.values)) - 1
        for name, raw in when.items():
            if allow_output and name == OUTPUT:
                out = Input(OUTPUT, self.output.values, False, self.output.span)
                out_mask = self.cell(out, raw, path + (name,)).mask
            elif name not in self.by_name:
                known = list(self.by_name) + ([OUTPUT] if allow_output else [])
                self.diagnostics.append(error(
                    "unknown-input", f"'{name}' is not an input of this table (inputs: {', '.join(known)})",
                    self.doc.key_span(path + (name,)), help=did_you_mean(name, known), expected=known, got=name))
            else:
                by_input[name] = self.cell(self.by_name[name], raw, path + (name,))
        cells = tuple(by_input.get(i.name) or Cell(i.full, CellForm.ANY, 0, None) for i in self.inputs)
        return cells, out_mask

    def check_output(self, value: str, path: tuple) -> None:
        if value not in self.output.values:
            self.fail("unknown-value", f"'{value}' is not an output value (expected one of: "
                      f"{', '.join(self.output.values)})", path, help=did_you_mean(value, self.output.values))

    def rule(self, index: int, raw: Mapping[str, Any]) -> Rule:
        path = ("rules", index)
        cells, _ = self.cells(raw.get("when") or {}, path + ("when",))
        self.check_output(raw["then"], path + ("then",))
        return Rule(raw["id"], index, cells, raw["then"], self.doc.span(path), raw.get("why"))

    def case(self, index: int, raw: Mapping[str, Any]) -> Case:
        path = ("cases", index)
        cells, _ = self.cells(raw["given"], path + ("given",))
        self.check_output(raw["expect"], path + ("expect",))
        return Case(index, tuple(c.mask for c in cells), raw["expect"], self.doc.span(path), raw.get("why"))

    def invariant(self, index: int, raw: Mapping[str, Any]) -> Invariant:
        path = ("invariants", index)
        if_cells, if_out = self.cells(raw["if"], path + ("if",), allow_output=True)
        then_cells, then_out = self.cells(raw["then"], path + ("then",), allow_output=True)
        outs = self.output.values
        return Invariant(raw.get("id", f"invariant-{index + 1}"),
                         tuple(c.mask for c in if_cells), frozenset(v for i, v in enumerate(outs) if if_out >> i & 1),
                         tuple(c.mask for c in then_cells),
                         frozenset(v for i, v in enumerate(outs) if then_out >> i & 1),
                         self.doc.span(path), raw.get("why"))


