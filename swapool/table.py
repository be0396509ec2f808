"""The table model (frozen, no I/O) and its construction from a schema-valid document.

Every cell is resolved to a bitmask over its input's domain (bit i = the i-th value),
so a rule is a cube and the analysis works on small integers.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Mapping

from .diagnostics import Diagnostic, Span, error, format_value
from .source import Document

Value = Any  # str, or bool for `type: bool` inputs

ANY = "any"
LITERAL = "literal"
LIST = "list"
NOT = "not"
OUTPUT = "output"  # the key that names the output in an invariant's condition


@dataclass(frozen=True)
class Input:
    name: str
    values: tuple[Value, ...]
    is_bool: bool
    span: Span
    description: str | None = None
    enum: str | None = None
    wildcard: bool = False

    @property
    def full(self) -> int:
        return (1 << len(self.values)) - 1

    def mask_of(self, values: Any) -> int:
        return sum(1 << self.values.index(v) for v in values)

    def values_of(self, mask: int) -> tuple[Value, ...]:
        return tuple(v for i, v in enumerate(self.values) if mask >> i & 1)


@dataclass(frozen=True)
class Output:
    values: tuple[str, ...]
    span: Span
    description: str | None = None


@dataclass(frozen=True)
class Cell:
    """One input's condition in a rule: the values it matches and how it was written."""

    mask: int
    form: str
    named: int  # values the author wrote down (a literal, a list, or a `not` list)
    span: Span | None


@dataclass(frozen=True)
class Rule:
    id: str
    index: int
    cells: tuple[Cell, ...]  # one per input, in input order
    then: str
    span: Span
    why: str | None = None

    @functools.cached_property
    def cube(self) -> tuple[int, ...]:
        return tuple(c.mask for c in self.cells)


@dataclass(frozen=True)
class Case:
    index: int
    region: tuple[int, ...]  # an omitted input means any of its values
    expect: str
    span: Span
    why: str | None = None


@dataclass(frozen=True)
class Invariant:
    id: str
    if_region: tuple[int, ...]
    if_outputs: frozenset[str]
    then_region: tuple[int, ...]
    then_outputs: frozenset[str]
    span: Span
    why: str | None = None


@dataclass(frozen=True)
class Table:
    file: str
    digest: str
    format: int
    decision: str
    hit_policy: str
    inputs: tuple[Input, ...]
    output: Output
    rules: tuple[Rule, ...]
    cases: tuple[Case, ...] = ()
    invariants: tuple[Invariant, ...] = ()
    description: str | None = None
    rules_span: Span | None = None  # the `rules:` key, where a missing rule belongs

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(i.name for i in self.inputs)

    @property
    def full_region(self) -> tuple[int, ...]:
        return tuple(i.full for i in self.inputs)

    def point(self, region: tuple[int, ...]) -> dict[str, Value]:
        """One concrete input inside `region` (its lowest value on every input)."""
        return {inp.name: inp.values[lowest_bit(m)] for inp, m in zip(self.inputs, region)}

    def describe(self, region: tuple[int, ...]) -> str:
        return describe_region(self.inputs, region)

    def restricted(self, name: str, value: Value) -> "Table":
        """The table for inputs with `name` fixed to `value`, without that input: rules, cases
        and invariants that cannot apply there are dropped (e.g. one backend's view)."""
        k = self.input_names.index(name)
        inp = self.inputs[k]
        if value not in inp.values or type(value) is not type(inp.values[0]):
            raise ValueError(f"{value!r} is not a value of input '{name}'")
        bit = 1 << inp.values.index(value)

        def drop(seq: tuple) -> tuple:
            return seq[:k] + seq[k + 1:]

        kept = [r for r in self.rules if r.cells[k].mask & bit]
        rules = tuple(dataclasses.replace(r, index=i, cells=drop(r.cells)) for i, r in enumerate(kept))
        cases = tuple(dataclasses.replace(c, region=drop(c.region)) for c in self.cases if c.region[k] & bit)
        invariants = tuple(dataclasses.replace(v, if_region=drop(v.if_region), then_region=drop(v.then_region))
                           for v in self.invariants if v.if_region[k] & bit and v.then_region[k] & bit)
        return dataclasses.replace(self, file=f"{self.file}[{name}={format_value(value)}]",
                                   inputs=drop(self.inputs), rules=rules, cases=cases, invariants=invariants)


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

    def build(self) -> Table:
        d = self.doc.data
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
        return Table(self.doc.file, self.doc.digest, d["format"], d["decision"], d["hit_policy"], inputs,
                     self.output, rules, cases, invariants, d.get("description"),
                     self.doc.key_span(("rules",)))

    def check_unique(self, values: tuple, path: tuple, what: str) -> None:
        for i, v in enumerate(values):
            if v in values[:i]:
                self.fail("duplicate-value", f"{what} lists the value '{v}' twice", path + (i,))

    def input(self, name: str, spec: Mapping[str, Any]) -> Input:
        path = ("inputs", name)
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
            if type(v) is not type(inp.values[0]) or v not in inp.values:
                self.unknown_value(inp, v, at)
                continue
            mask |= 1 << inp.values.index(v)
        return mask

    def unknown_value(self, inp: Input, v: Any, path: tuple) -> None:
        hint = None
        if isinstance(v, bool) and not inp.is_bool:
            hint = "YAML reads yes/no/on/off/true/false as booleans; quote the value"
        elif inp.is_bool:
            hint = "this input has type bool: write true or false"
        self.fail("unknown-value",
                  f"{format_value(v)!r} is not a value of input '{inp.name}' "
                  f"(expected one of: {', '.join(format_value(x) for x in inp.values)})", path, help=hint)

    def cell(self, inp: Input, raw: Any, path: tuple) -> Cell:
        span = self.doc.span(path)
        if raw == "-":
            return Cell(inp.full, ANY, 0, span)
        if isinstance(raw, dict):
            mask = self.value_mask(inp, raw["not"], path + ("not",))
            return Cell(inp.full & ~mask, NOT, mask, span)
        if isinstance(raw, list):
            mask = self.value_mask(inp, raw, path)
            return Cell(mask, LIST, mask, span)
        mask = self.value_mask(inp, [raw], path, indexed=False)
        return Cell(mask, LITERAL, mask, span)

    def cells(self, when: Mapping[str, Any], path: tuple, allow_output: bool = False) -> tuple[tuple[Cell, ...], int]:
        """Cells in input order (missing = any) and, for invariants, the output's mask."""
        by_input: dict[str, Cell] = {}
        out_mask = (1 << len(self.output.values)) - 1
        for name, raw in when.items():
            if allow_output and name == OUTPUT:
                out = Input(OUTPUT, self.output.values, False, self.output.span)
                out_mask = self.cell(out, raw, path + (name,)).mask
            elif name not in self.by_name:
                self.diagnostics.append(error(
                    "unknown-input", f"'{name}' is not an input of this table (inputs: "
                    f"{', '.join(self.by_name)}{', output' if allow_output else ''})",
                    self.doc.key_span(path + (name,))))
            else:
                by_input[name] = self.cell(self.by_name[name], raw, path + (name,))
        cells = tuple(by_input.get(i.name) or Cell(i.full, ANY, 0, None) for i in self.inputs)
        return cells, out_mask

    def check_output(self, value: str, path: tuple) -> None:
        if value not in self.output.values:
            self.fail("unknown-value", f"'{value}' is not an output value (expected one of: "
                      f"{', '.join(self.output.values)})", path)

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


def lowest_bit(mask: int) -> int:
    """Index of the lowest set bit: the first value of a non-empty value set."""
    return (mask & -mask).bit_length() - 1


def describe_region(inputs: tuple[Input, ...], region: tuple[int, ...]) -> str:
    """`region` as `name=value` / `name in [a, b]` terms; inputs spanning their domain are left out."""
    terms = []
    for inp, mask in zip(inputs, region):
        if mask == inp.full:
            continue
        vals = [format_value(v) for v in inp.values_of(mask)]
        terms.append(f"{inp.name}={vals[0]}" if len(vals) == 1 else f"{inp.name} in [{', '.join(vals)}]")
    return ", ".join(terms) or "every input"
