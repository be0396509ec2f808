"""Stage 4b, model construction: a schema-valid document -> a `Table`, or every reason not."""

from __future__ import annotations

from types import MappingProxyType

from .cells import make_cell, matched, read_cell
from .codes import Facts
from .codes.analysis import AnalysisBudgetCells
from .codes.document import (DuplicateRuleId, DuplicateValueInput, DuplicateValueOutput, DuplicateValueSet,
                             DuplicateValueTwoSets, ReservedName, UnknownInput, UnknownSet, UnknownValueInput,
                             UnknownValueOutput)
from .diagnostics import Diagnostic, Suggestions, error
from .model import OUTPUT, Cell, CellForm, Case, HitPolicy, Input, Invariant, Output, Rule, Table
from .record import Record
from .source import Document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

#: inputs x (rules + cases + 2 x invariants): the model holds one cell for each.
MAX_CELLS = 1_000_000


class Built(Record):
    """A document resolved: the table (None when anything failed to build), every reason,
    and, when only some rules, cases or invariants failed, the table without them, for
    an analysis of the rest (never to decide with)."""

    table: Table | None
    diagnostics: list[Diagnostic]
    partial: Table | None = None
    left_out: Mapping[str, list] = MappingProxyType({})  # what it lacks: rules and invariants by id, cases by number


def build_parts(doc: Document, imported: Mapping[str, Document] = MappingProxyType({})) -> Built:
    """Resolve a schema-valid document into a `Table`, or say every reason it cannot be, and
    give the partial table when the inputs and the output built but some rules, cases or
    invariants did not. `imported` maps the name of each input written `from: FILE` to that
    file's document (schema-valid, holding a plain input of that name)."""
    b = _TableBuilder(doc, imported)
    table = b.build()
    if not b.diagnostics:
        return Built(table, b.diagnostics)
    if table is None or b.whole_failed:
        return Built(None, b.diagnostics)
    keep = lambda items: tuple(x for k, x in enumerate(items) if k not in b.failed[type(x)])  # noqa: E731
    rules = tuple(r._replace(index=i) for i, r in enumerate(keep(table.rules)))
    cases = tuple(c._replace(index=i) for i, c in enumerate(keep(table.cases)))
    partial = table._replace(rules=rules, cases=cases, invariants=keep(table.invariants))
    left_out: dict[str, list[Any]] = {"rules_left_out": [table.rules[k].id for k in sorted(b.failed[Rule])],
                "cases_left_out": [k + 1 for k in sorted(b.failed[Case])],
                "invariants_left_out": [table.invariants[k].id for k in sorted(b.failed[Invariant])]}
    return Built(None, b.diagnostics, partial if rules else None, left_out)


class _TableBuilder:
    def __init__(self, doc: Document, imported: Mapping[str, Document]):
        self.doc = doc
        self.imported = imported
        self.diagnostics: list[Diagnostic] = []
        self.suggest = Suggestions().suggest
        self.failed: dict[type, set[int]] = {Rule: set(), Case: set(), Invariant: set()}  # by position
        self.whole_failed = False  # an input, the output or the table's size: nothing to analyse

    def each(self, kind: type, items: list, make: Any) -> tuple:
        """`make(i, item)` for every item, noting which ones added a finding."""
        out = []
        for i, item in enumerate(items):
            before = len(self.diagnostics)
            out.append(make(i, item))
            if len(self.diagnostics) > before:
                self.failed[kind].add(i)
        return tuple(out)


    def build(self) -> Table | None:
        d = self.doc.data
        rows = len(d["rules"]) + len(d.get("cases", [])) + 2 * len(d.get("invariants", []))
        if len(d["inputs"]) * rows > MAX_CELLS:
            self.diagnostics.append(error(AnalysisBudgetCells(inputs=len(d["inputs"]), rows=rows,
                                                              cells=len(d["inputs"]) * rows,
                                                              limit=MAX_CELLS), self.doc.span(("rules",))))
            return None
        inputs = tuple(self.input(name, spec) for name, spec in d["inputs"].items())
        self.by_name = {i.name: i for i in inputs}
        self.inputs = inputs
        self.index = {i.name: k for k, i in enumerate(inputs)}
        self.any_cells = tuple(Cell(i.full, CellForm.ANY, 0, None) for i in inputs)  # an input left out
        out_values = tuple(d["output"]["values"])
        self.check_unique(out_values, ("output", "values"), lambda v: DuplicateValueOutput(got=v))
        self.output = Output(out_values, self.doc.span(("output",)), d["output"].get("description"))
        self.whole_failed = bool(self.diagnostics)
        rules = self.each(Rule, d["rules"], self.rule)
        seen: dict[str, Rule] = {}
        for r in rules:
            if r.id in seen:
                self.diagnostics.append(error(DuplicateRuleId(got=r.id, first_line=seen[r.id].span.line),
                                              self.doc.span(("rules", r.index, "id"))))
                self.failed[Rule].add(r.index)
            seen.setdefault(r.id, r)
        cases = self.each(Case, d.get("cases", []), self.case)
        invariants = self.each(Invariant, d.get("invariants", []), self.invariant)
        return Table(self.doc.file, self.doc.digest, d["format"], d["decision"], HitPolicy(d["hit_policy"]), inputs,
                     self.output, rules, cases, invariants, d.get("description"),
                     self.doc.key_span(("rules",)), self.doc.span(("decision",)))

    def check_unique(self, values: tuple, path: tuple, twice: Callable[[Any], Facts],
                     doc: Document | None = None) -> None:
        """A finding (`twice` of the value) for each value listed again."""
        seen: set = set()
        for i, v in enumerate(values):
            if v in seen:
                self.diagnostics.append(error(twice(v), (doc or self.doc).span(path + (i,))))
            seen.add(v)

    def input(self, name: str, spec: Mapping[str, Any]) -> Input:
        path = ("inputs", name)
        if name == OUTPUT:
            self.diagnostics.append(error(ReservedName(expected="another name", got=name), self.doc.key_span(path)))
        origin, source, local = self.doc, None, spec
        if "from" in spec:  # the domain comes from there; what is said here about it stays
            origin, source = self.imported[name], spec["from"]
            spec = {**origin.data["inputs"][name], **{k: v for k, v in local.items() if k != "from"}}
        if "type" in spec:
            return Input(name, (False, True), True, self.doc.key_span(path), spec.get("description"),
                         spec.get("enum"), bool(spec.get("wildcard", False)), imported_from=source)
        sets: dict[str, list] = spec.get("sets", {})
        if "values" in spec:
            values = tuple(spec["values"])
            self.check_unique(values, path + ("values",), lambda v: DuplicateValueInput(input=name, got=v), origin)
            written: dict[Any, tuple] = {v: path + ("values", i) for i, v in reversed(list(enumerate(values)))}
        else:  # the sets' members, in the order they are first listed: the sets partition them
            written = {}
            for set_name, members in sets.items():
                for i, v in enumerate(members):
                    first = written.setdefault(v, path + ("sets", set_name, i))
                    if first[-2] != set_name and v not in members[:i]:
                        self.diagnostics.append(error(DuplicateValueTwoSets(input=name, got=v, set=set_name,
                                                                            first_set=first[-2]),
                                                      origin.span(path + ("sets", set_name, i))))
            values = tuple(written)
        inp = Input(name, values, False, self.doc.key_span(path), spec.get("description"), spec.get("enum"),
                    bool(spec.get("wildcard", False)), imported_from=source,
                    value_spans=tuple(origin.span(written[v]) for v in values))
        masks = []
        for set_name, members in sets.items():
            at = path + ("sets", set_name)
            self.check_unique(tuple(members), at, lambda v: DuplicateValueSet(set=set_name, input=name, got=v), origin)
            masks.append((set_name, self.value_mask(inp, members, at, doc=origin)))
        return inp._replace(sets=tuple(masks)) if masks else inp

    def value_mask(self, inp: Input, literals: list, path: tuple, indexed: bool = True,
                   doc: Document | None = None) -> int:
        mask = 0
        for i, v in enumerate(literals):
            if inp.holds(v):
                mask |= 1 << inp.position[v]
            else:
                self.unknown_value(inp, v, path + (i,) if indexed else path, doc)
        return mask

    def set_mask(self, inp: Input, names: list, path: tuple, indexed: bool) -> int:
        mask = 0
        for i, set_name in enumerate(names):
            if set_name in inp.set_masks:
                mask |= inp.set_masks[set_name]
                continue
            declared = list(inp.set_masks)
            self.diagnostics.append(error(UnknownSet(expected=declared, got=set_name, input=inp.name,
                                                     suggestion=self.suggest(set_name, declared)),
                                          self.doc.span(path + (i,) if indexed else path)))
        return mask

    def unknown_value(self, inp: Input, v: Any, path: tuple, doc: Document | None = None) -> None:
        hint = "yaml-bool" if isinstance(v, bool) and not inp.is_bool else "bool" if inp.is_bool else ""
        self.diagnostics.append(error(UnknownValueInput(expected=inp.values, got=v, input=inp.name, hint=hint,
                                                        suggestion=None if hint else self.suggest(v, inp.values)),
                                      (doc or self.doc).span(path)))

    def named(self, inp: Input, raw: Any, path: tuple) -> tuple[CellForm, int, tuple[str, ...]]:
        """How a cell is written, the values it names, and the value sets it names."""
        form, literals = read_cell(raw)
        if form is CellForm.SET:
            return form, self.set_mask(inp, literals, path + ("in",), indexed=isinstance(raw["in"], list)), \
                tuple(literals)
        at = path + ("not",) if form is CellForm.NOT else path
        return form, self.value_mask(inp, literals, at, indexed=form is not CellForm.LITERAL), ()

    def cells(self, when: Mapping[str, Any], path: tuple) -> tuple[Cell, ...]:
        """A rule's cells in input order (an input left out matches any value)."""
        by_input: dict[str, Cell] = {}
        spans = self.doc.value_spans(path) if when else {}
        for name, raw in when.items():
            inp = self.known_input(name, path)
            if inp is not None:
                at = path + (name,)
                form, named, sets = self.named(inp, raw, at)
                by_input[name] = make_cell(inp, form, named, spans.get(name) or self.doc.span(at), sets)
        return tuple(by_input.get(i.name) or left_out for i, left_out in zip(self.inputs, self.any_cells))

    def condition(self, when: Mapping[str, Any], path: tuple, allow_output: bool = False
                  ) -> tuple[tuple[int, ...], tuple[tuple[str, ...], ...], int]:
        """A case's or an invariant condition's masks in input order (left out: every
        value), the value sets each names, and the output's mask. Only masks: nothing
        reports a position inside a condition."""
        masks = [i.full for i in self.inputs]
        sets: list[tuple[str, ...]] = [()] * len(masks)
        out_mask = (1 << len(self.output.values)) - 1
        for name, raw in when.items():
            if allow_output and name == OUTPUT:
                out = Input(OUTPUT, self.output.values, False, self.output.span)
                form, named, _ = self.named(out, raw, path + (name,))
                out_mask = matched(out, form, named)
                continue
            inp = self.known_input(name, path, allow_output)
            if inp is not None:
                k = self.index[name]
                form, named, sets[k] = self.named(inp, raw, path + (name,))
                masks[k] = matched(inp, form, named)
        return tuple(masks), tuple(sets), out_mask

    def known_input(self, name: str, path: tuple, allow_output: bool = False) -> Input | None:
        inp = self.by_name.get(name)
        if inp is None:
            known = list(self.by_name) + ([OUTPUT] if allow_output else [])
            self.diagnostics.append(error(UnknownInput(expected=known, got=name, suggestion=self.suggest(name, known)),
                                          self.doc.key_span(path + (name,))))
        return inp

    def check_output(self, value: str, path: tuple) -> None:
        if value not in self.output.values:
            self.diagnostics.append(error(UnknownValueOutput(expected=self.output.values, got=value,
                                                             suggestion=self.suggest(value, self.output.values)),
                                          self.doc.span(path)))

    def rule(self, index: int, raw: Mapping[str, Any]) -> Rule:
        path = ("rules", index)
        cells = self.cells(raw.get("when") or {}, path + ("when",))
        self.check_output(raw["then"], path + ("then",))
        return Rule(raw["id"], index, cells, raw["then"], self.doc.span(path), raw.get("why"))

    def case(self, index: int, raw: Mapping[str, Any]) -> Case:
        path = ("cases", index)
        masks, sets, _ = self.condition(raw["given"], path + ("given",))
        self.check_output(raw["expect"], path + ("expect",))
        return Case(index, masks, raw["expect"], self.doc.span(path), raw.get("why"), sets if any(sets) else (),
                    frozenset(raw["given"]), self.doc.span(path + ("expect",)))

    def invariant(self, index: int, raw: Mapping[str, Any]) -> Invariant:
        path = ("invariants", index)
        if_masks, _, if_out = self.condition(raw["if"], path + ("if",), allow_output=True)
        then_masks, _, then_out = self.condition(raw["then"], path + ("then",), allow_output=True)
        outs = self.output.values
        return Invariant(raw.get("id", f"invariant-{index + 1}"),
                         if_masks, frozenset(v for i, v in enumerate(outs) if if_out >> i & 1),
                         then_masks, frozenset(v for i, v in enumerate(outs) if then_out >> i & 1),
                         self.doc.span(path), raw.get("why"))
