"""Stage 4b, model construction: a schema-valid document -> a `Table`, or every reason not."""

from __future__ import annotations

from types import MappingProxyType

from .cells import make_cell, matched, read_cell
from .codes import Facts
from .codes.analysis import AnalysisBudgetCells
from .lazy import lazy_module
from .diagnostics import Diagnostic, Suggestions, error
from .model import OUTPUT, Cell, CellForm, Case, HitPolicy, Input, Invariant, Output, Rule, Table
from .record import Record
from .source import Document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from .codes import document

    #: A finding's did-you-mean: the choice a word most likely meant, or None.
    Suggest = Callable[[Any, Any], Any]
else:  # imported when a finding of theirs is made: a valid table makes none
    document = lazy_module(f"{__package__}.codes.document")

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
    d = doc.data
    rows = len(d["rules"]) + len(d.get("cases", [])) + 2 * len(d.get("invariants", []))
    if len(d["inputs"]) * rows > MAX_CELLS:
        return Built(None, [error(AnalysisBudgetCells(inputs=len(d["inputs"]), rows=rows, cells=len(d["inputs"]) * rows,
                                                      limit=MAX_CELLS), doc.span(("rules",)))])
    suggest = Suggestions().suggest
    found: list[Diagnostic] = []
    inputs = tuple(_input(doc, imported, suggest, name, spec, found) for name, spec in d["inputs"].items())
    out_values = tuple(d["output"]["values"])
    _check_unique(out_values, ("output", "values"), lambda v: document.DuplicateValueOutput(got=v), doc, found)
    ctx = _Context.of(doc, inputs, Output(out_values, doc.span(("output",)), d["output"].get("description")), suggest)
    whole_failed = bool(found)
    rules, failed_rules = _each(ctx, d["rules"], _rule, found)
    seen: dict[str, Rule] = {}
    for r in rules:
        if r.id in seen:
            found.append(error(document.DuplicateRuleId(got=r.id, first_line=seen[r.id].span.line),
                               doc.span(("rules", r.index, "id"))))
            failed_rules.add(r.index)
        seen.setdefault(r.id, r)
    cases, failed_cases = _each(ctx, d.get("cases", []), _case, found)
    invariants, failed_invariants = _each(ctx, d.get("invariants", []), _invariant, found)
    table = Table(doc.file, doc.digest, d["format"], d["decision"], HitPolicy(d["hit_policy"]), inputs, ctx.output,
                  rules, cases, invariants, d.get("description"), doc.key_span(("rules",)), doc.span(("decision",)))
    if not found:
        return Built(table, found)
    if whole_failed:
        return Built(None, found)
    kept_rules = tuple(r._replace(index=i) for i, r in enumerate(r for r in rules if r.index not in failed_rules))
    kept_cases = tuple(c._replace(index=i) for i, c in enumerate(c for c in cases if c.index not in failed_cases))
    partial = table._replace(rules=kept_rules, cases=kept_cases,
                             invariants=tuple(v for k, v in enumerate(invariants) if k not in failed_invariants))
    left_out: dict[str, list[Any]] = {"rules_left_out": [rules[k].id for k in sorted(failed_rules)],
                                      "cases_left_out": [k + 1 for k in sorted(failed_cases)],
                                      "invariants_left_out": [invariants[k].id for k in sorted(failed_invariants)]}
    return Built(None, found, partial if kept_rules else None, left_out)


class _Context(Record):
    """What every rule, case and invariant is built against, fixed once the inputs and the
    output are built: the document, the inputs by name and position, the output (and the
    output read as an input, which an invariant's condition names like one)."""

    doc: Document
    inputs: tuple[Input, ...]
    by_name: Mapping[str, Input]
    position: Mapping[str, int]
    any_cells: tuple[Cell, ...]  # the cell of each input a rule leaves out
    output: Output
    output_input: Input
    suggest: Suggest

    @staticmethod
    def of(doc: Document, inputs: tuple[Input, ...], output: Output, suggest: Suggest) -> _Context:
        return _Context(doc, inputs, {i.name: i for i in inputs}, {i.name: k for k, i in enumerate(inputs)},
                        tuple(Cell(i.full, CellForm.ANY, 0, None) for i in inputs), output,
                        Input(OUTPUT, output.values, False, output.span), suggest)


def _each(ctx: _Context, items: list, make: Callable[[_Context, int, Any, list[Diagnostic]], Any],
          found: list[Diagnostic]) -> tuple[tuple, set[int]]:
    """`make` of every item, each with its own findings (added to `found`), and the
    positions of the items that have any: they failed to build."""
    out, failed = [], set()
    for i, item in enumerate(items):
        own: list[Diagnostic] = []
        out.append(make(ctx, i, item, own))
        if own:
            failed.add(i)
            found += own
    return tuple(out), failed


def _check_unique(values: tuple, path: tuple, twice: Callable[[Any], Facts], doc: Document,
                  found: list[Diagnostic]) -> None:
    """A finding (`twice` of the value) for each value listed again."""
    seen: set = set()
    for i, v in enumerate(values):
        if v in seen:
            found.append(error(twice(v), doc.span(path + (i,))))
        seen.add(v)


def _input(doc: Document, imported: Mapping[str, Document], suggest: Suggest, name: str, spec: Mapping[str, Any],
           found: list[Diagnostic]) -> Input:
    path = ("inputs", name)
    if name == OUTPUT:
        found.append(error(document.ReservedName(expected="another name", got=name), doc.key_span(path)))
    origin, source, local = doc, None, spec
    if "from" in spec:  # the domain comes from there; what is said here about it stays
        origin, source = imported[name], spec["from"]
        spec = {**origin.data["inputs"][name], **{k: v for k, v in local.items() if k != "from"}}
    if "type" in spec:
        return Input(name, (False, True), True, doc.key_span(path), spec.get("description"),
                     spec.get("enum"), bool(spec.get("wildcard", False)), imported_from=source)
    sets: dict[str, list] = spec.get("sets", {})
    if "values" in spec:
        values = tuple(spec["values"])
        _check_unique(values, path + ("values",), lambda v: document.DuplicateValueInput(input=name, got=v), origin,
                      found)
        written: dict[Any, tuple] = {v: path + ("values", i) for i, v in reversed(list(enumerate(values)))}
    else:  # the sets' members, in the order they are first listed: the sets partition them
        written = {}
        for set_name, members in sets.items():
            for i, v in enumerate(members):
                first = written.setdefault(v, path + ("sets", set_name, i))
                if first[-2] != set_name and v not in members[:i]:
                    twice = document.DuplicateValueTwoSets(input=name, got=v, set=set_name, first_set=first[-2])
                    found.append(error(twice, origin.span(path + ("sets", set_name, i))))
        values = tuple(written)
    inp = Input(name, values, False, doc.key_span(path), spec.get("description"), spec.get("enum"),
                bool(spec.get("wildcard", False)), imported_from=source,
                value_spans=tuple(origin.span(written[v]) for v in values))
    masks = []
    for set_name, members in sets.items():
        at = path + ("sets", set_name)
        _check_unique(tuple(members), at, lambda v: document.DuplicateValueSet(set=set_name, input=name, got=v),
                      origin, found)
        masks.append((set_name, _value_mask(inp, members, at, origin, suggest, found)))
    return inp._replace(sets=tuple(masks)) if masks else inp


def _value_mask(inp: Input, literals: list, path: tuple, doc: Document, suggest: Suggest, found: list[Diagnostic],
                indexed: bool = True) -> int:
    mask = 0
    for i, v in enumerate(literals):
        if inp.holds(v):
            mask |= 1 << inp.position[v]
            continue
        hint = "yaml-bool" if isinstance(v, bool) and not inp.is_bool else "bool" if inp.is_bool else ""
        found.append(error(document.UnknownValueInput(expected=inp.values, got=v, input=inp.name, hint=hint,
                                             suggestion=None if hint else suggest(v, inp.values)),
                           doc.span(path + (i,) if indexed else path)))
    return mask


def _set_mask(ctx: _Context, inp: Input, names: list, path: tuple, indexed: bool, found: list[Diagnostic]) -> int:
    mask = 0
    for i, set_name in enumerate(names):
        if set_name in inp.set_masks:
            mask |= inp.set_masks[set_name]
            continue
        declared = list(inp.set_masks)
        found.append(error(document.UnknownSet(expected=declared, got=set_name, input=inp.name,
                                      suggestion=ctx.suggest(set_name, declared)),
                           ctx.doc.span(path + (i,) if indexed else path)))
    return mask


def _named(ctx: _Context, inp: Input, raw: Any, path: tuple, found: list[Diagnostic]
           ) -> tuple[CellForm, int, tuple[str, ...]]:
    """How a cell is written, the values it names, and the value sets it names."""
    form, literals = read_cell(raw)
    if form is CellForm.SET:
        indexed = isinstance(raw["in"], list)
        return form, _set_mask(ctx, inp, literals, path + ("in",), indexed, found), tuple(literals)
    at = path + ("not",) if form is CellForm.NOT else path
    return form, _value_mask(inp, literals, at, ctx.doc, ctx.suggest, found, indexed=form is not CellForm.LITERAL), ()


def _cells(ctx: _Context, when: Mapping[str, Any], path: tuple, found: list[Diagnostic]) -> tuple[Cell, ...]:
    """A rule's cells in input order (an input left out matches any value)."""
    by_input: dict[str, Cell] = {}
    spans = ctx.doc.value_spans(path) if when else {}
    for name, raw in when.items():
        inp = _known_input(ctx, name, path, found)
        if inp is not None:
            at = path + (name,)
            form, named, sets = _named(ctx, inp, raw, at, found)
            by_input[name] = make_cell(inp, form, named, spans.get(name) or ctx.doc.span(at), sets)
    return tuple(by_input.get(i.name) or left_out for i, left_out in zip(ctx.inputs, ctx.any_cells))


def _condition(ctx: _Context, when: Mapping[str, Any], path: tuple, found: list[Diagnostic],
               allow_output: bool = False) -> tuple[tuple[int, ...], tuple[tuple[str, ...], ...], int]:
    """A case's or an invariant condition's masks in input order (left out: every
    value), the value sets each names, and the output's mask. Only masks: nothing
    reports a position inside a condition."""
    masks = [i.full for i in ctx.inputs]
    sets: list[tuple[str, ...]] = [()] * len(masks)
    out_mask = (1 << len(ctx.output.values)) - 1
    for name, raw in when.items():
        if allow_output and name == OUTPUT:
            form, named, _ = _named(ctx, ctx.output_input, raw, path + (name,), found)
            out_mask = matched(ctx.output_input, form, named)
            continue
        inp = _known_input(ctx, name, path, found, allow_output)
        if inp is not None:
            k = ctx.position[name]
            form, named, sets[k] = _named(ctx, inp, raw, path + (name,), found)
            masks[k] = matched(inp, form, named)
    return tuple(masks), tuple(sets), out_mask


def _known_input(ctx: _Context, name: str, path: tuple, found: list[Diagnostic],
                 allow_output: bool = False) -> Input | None:
    inp = ctx.by_name.get(name)
    if inp is None:
        known = list(ctx.by_name) + ([OUTPUT] if allow_output else [])
        found.append(error(document.UnknownInput(expected=known, got=name, suggestion=ctx.suggest(name, known)),
                           ctx.doc.key_span(path + (name,))))
    return inp


def _check_output(ctx: _Context, value: str, path: tuple, found: list[Diagnostic]) -> None:
    if value not in ctx.output.values:
        found.append(error(document.UnknownValueOutput(expected=ctx.output.values, got=value,
                                              suggestion=ctx.suggest(value, ctx.output.values)),
                           ctx.doc.span(path)))


def _rule(ctx: _Context, index: int, raw: Mapping[str, Any], found: list[Diagnostic]) -> Rule:
    path = ("rules", index)
    cells = _cells(ctx, raw.get("when") or {}, path + ("when",), found)
    _check_output(ctx, raw["then"], path + ("then",), found)
    return Rule(raw["id"], index, cells, raw["then"], ctx.doc.span(path), raw.get("why"))


def _case(ctx: _Context, index: int, raw: Mapping[str, Any], found: list[Diagnostic]) -> Case:
    path = ("cases", index)
    masks, sets, _ = _condition(ctx, raw["given"], path + ("given",), found)
    _check_output(ctx, raw["expect"], path + ("expect",), found)
    return Case(index, masks, raw["expect"], ctx.doc.span(path), raw.get("why"), sets if any(sets) else (),
                frozenset(raw["given"]), ctx.doc.span(path + ("expect",)))


def _invariant(ctx: _Context, index: int, raw: Mapping[str, Any], found: list[Diagnostic]) -> Invariant:
    path = ("invariants", index)
    if_masks, _, if_out = _condition(ctx, raw["if"], path + ("if",), found, allow_output=True)
    then_masks, _, then_out = _condition(ctx, raw["then"], path + ("then",), found, allow_output=True)
    outs = ctx.output.values
    return Invariant(raw.get("id", f"invariant-{index + 1}"),
                     if_masks, frozenset(v for i, v in enumerate(outs) if if_out >> i & 1),
                     then_masks, frozenset(v for i, v in enumerate(outs) if then_out >> i & 1),
                     ctx.doc.span(path), raw.get("why"))
