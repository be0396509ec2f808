"""What is wrong with a table: gaps, overlaps, unreachable and redundant rules, invariant
breaches, failing cases and lints, each with a witness replayed through the compiled
decision. One engine (`partition.split`) answers all of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .compiled import CompiledDecision
from .diagnostics import Diagnostic, error, format_value, warning
from .partition import Cube, first_hits, intersect, is_empty, merge_regions, pieces, split
from .table import ANY, LIST, NOT, Table, lowest_bit


def analyse(table: Table, compiled: CompiledDecision | None = None) -> list[Diagnostic]:
    """Every finding about a well-formed table (semantic, not syntactic); witnesses are
    replayed through `compiled` (built here when not given)."""
    compiled = compiled or CompiledDecision(table)
    found: list[Diagnostic] = []
    found += lint_cells(table)
    found += coverage(table, compiled)
    found += invariant_breaches(table, compiled)
    found += failing_cases(table, compiled)
    return found


def _point(table: Table, region: Cube) -> tuple[int, ...]:
    return tuple(lowest_bit(m) for m in region)


class ReplayError(AssertionError):
    """The analysis and the compiled decision disagree: a bug in swapool, not in the table."""


def _replay(compiled: CompiledDecision, region: Cube, expect_rule: str | None, *, also: tuple = ()) -> None:
    """Decide the witness of `region` with the compiled diagram; it must give `expect_rule`
    (None: a gap) and every rule in `also` must match the witness."""
    point = _point(compiled.table, region)
    got = compiled.decide_indices(point)
    got_rule = got.rule_id if got else None
    inside = all(all(m >> v & 1 for m, v in zip(r.cube, point)) for r in also)
    if got_rule != expect_rule or not inside:
        raise ReplayError(f"witness {compiled.table.point(region)} replays to {got_rule}, "
                          f"analysis said {expect_rule}")


def _first_match(table: Table, region: Cube) -> str | None:
    """The first rule matching the witness of `region`, by a plain scan (independent of the diagram)."""
    point = _point(table, region)
    return next((r.id for r in table.rules if all(m >> v & 1 for m, v in zip(r.cube, point))), None)


@dataclass(frozen=True)
class Coverage:
    """How the rules cover the input space (the facts behind gap/overlap/dead-rule findings)."""

    gaps: tuple[Cube, ...]  # disjoint, merged regions no rule decides
    overlaps: dict[int, tuple[int, ...]]  # rule index -> earlier rules deciding some input with it
    fires: frozenset[int]  # rules that decide some input (first hit)
    needed: frozenset[int]  # rules whose removal changes some decision


def measure_coverage(table: Table) -> Coverage:
    rules = table.rules
    region = table.full_region
    gaps: list[Cube] = []
    overlaps: dict[int, list[int]] = {}
    fires: set[int] = set()
    needed: set[int] = set()
    for reg, leaf in pieces(split([r.cube for r in rules], region), region):
        m = leaf.matched
        if not m:
            gaps.append(reg)
            continue
        fires.add(m[0])
        if len(m) < 2 or rules[m[1]].then != rules[m[0]].then:
            needed.add(m[0])
        for j, later in enumerate(m[1:], 1):
            earlier = overlaps.setdefault(later, [])
            earlier.extend(a for a in m[:j] if a not in earlier)
    return Coverage(tuple(merge_regions(gaps)), {k: tuple(v) for k, v in overlaps.items()},
                    frozenset(fires), frozenset(needed))


def coverage(table: Table, compiled: CompiledDecision) -> list[Diagnostic]:
    """Gaps; overlaps (unique); unreachable and redundant rules (first)."""
    rules = table.rules
    cov = measure_coverage(table)
    gaps, fires, needed = cov.gaps, cov.fires, cov.needed
    overlaps = cov.overlaps if table.hit_policy == "unique" else {}
    live = [r for r in rules if not is_empty(r.cube)]
    found: list[Diagnostic] = []
    for reg in gaps:
        _replay(compiled, reg, None)
        found.append(error(
            "gap", f"no rule decides {table.describe(reg)}", table.rules_span,
            witness=table.point(reg),
            help="add a rule for this input, or widen a rule's cell to cover it"))
    for later, earlier in sorted(overlaps.items()):
        b = rules[later]
        a = rules[earlier[0]]
        reg = intersect(a.cube, b.cube)
        _replay(compiled, reg, _first_match(table, reg), also=(a, b))
        others = ", ".join(f"'{rules[e].id}'" for e in earlier)
        found.append(error(
            "overlap", f"rule '{b.id}' overlaps {others}: both decide {table.describe(reg)}"
            + ("" if a.then == b.then else f" ('{a.then}' vs '{b.then}')"),
            b.span, rules=(a.id, b.id) + tuple(rules[e].id for e in earlier[1:]),
            witness=table.point(reg),
            help="make the cells disjoint, or use hit_policy: first if order should decide"))
    if table.hit_policy == "first":
        for r in live:
            if r.index not in fires:
                hiders = [q.id for q in rules[: r.index] if not is_empty(intersect(q.cube, r.cube))]
                _replay(compiled, r.cube, _first_match(table, r.cube), also=(r,))
                if _first_match(table, r.cube) == r.id:
                    raise ReplayError(f"rule {r.id} fires at its witness but was reported unreachable")
                found.append(error(
                    "unreachable-rule", f"rule '{r.id}' can never fire: earlier rules "
                    + ", ".join(f"'{h}'" for h in hiders) + " decide every input it matches",
                    r.span, rules=(r.id, *hiders), witness=table.point(r.cube),
                    help="remove the rule, or move it above the rules that hide it"))
            elif r.index not in needed:
                found.append(warning(
                    "redundant-rule", f"rule '{r.id}' is redundant: later rules decide every input "
                    f"it decides the same way ('{r.then}')", r.span, rules=(r.id,),
                    help="remove the rule, or narrow the later rules if it should matter"))
    return found


def decided_regions(table: Table) -> list[tuple[int | None, list[Cube]]]:
    """For each rule (table order; None last for gaps), the merged regions it decides."""
    by_rule: dict[int | None, list[Cube]] = {}
    for reg, ri in _decided(table, table.full_region):
        by_rule.setdefault(ri, []).append(reg)
    order = sorted(by_rule, key=lambda ri: len(table.rules) if ri is None else ri)
    return [(ri, merge_regions(by_rule[ri])) for ri in order]


def _decided(table: Table, region: Cube) -> Iterator[tuple[Cube, int | None]]:
    return first_hits([r.cube for r in table.rules], region)


def invariant_breaches(table: Table, compiled: CompiledDecision) -> list[Diagnostic]:
    """One finding per (invariant, rule) that decides an input against the invariant."""
    found: list[Diagnostic] = []
    for inv in table.invariants:
        if is_empty(inv.if_region):
            continue
        reported: set[int] = set()
        for reg, ri in _decided(table, inv.if_region):
            if ri is None or ri in reported:
                continue
            rule = table.rules[ri]
            if rule.then not in inv.if_outputs:
                continue
            bad = None
            if rule.then not in inv.then_outputs:
                bad, what = reg, f"output '{rule.then}'"
            else:
                for j, inp in enumerate(table.inputs):
                    outside = reg[j] & ~inv.then_region[j]
                    if outside:
                        bad = reg[:j] + (outside,) + reg[j + 1:]
                        what = f"{inp.name}={format_value(inp.values[lowest_bit(outside)])}"
                        break
            if bad is None:
                continue
            reported.add(ri)
            _replay(compiled, bad, rule.id)
            found.append(error(
                "invariant", f"rule '{rule.id}' breaks invariant '{inv.id}': it decides "
                f"'{rule.then}' with {what}" + (f" ({inv.why})" if inv.why else ""),
                rule.span, rules=(rule.id, inv.id), witness=table.point(bad),
                help=f"see the invariant at line {inv.span.line}; narrow the rule or fix the invariant"))
    return found


def failing_cases(table: Table, compiled: CompiledDecision) -> list[Diagnostic]:
    """A case holds when every input it describes is decided as expected."""
    found: list[Diagnostic] = []
    for case in table.cases:
        if is_empty(case.region):
            continue
        for reg, ri in _decided(table, case.region):
            got = table.rules[ri] if ri is not None else None
            if got is not None and got.then == case.expect:
                continue
            _replay(compiled, reg, got.id if got else None)
            said = f"rule '{got.id}' decides '{got.then}'" if got else "no rule decides it"
            found.append(error(
                "case-failed", f"case {case.index + 1} expects '{case.expect}', but {said}",
                case.span, rules=(got.id,) if got else (), witness=table.point(reg),
                help="fix the rule if the case is right; fix the case if the rule is"))
            break
    return found


def lint_cells(table: Table) -> list[Diagnostic]:
    """Empty value sets (the rule can never match), whole-domain lists, inputs no rule
    reads, and enumeration values no rule names (decided only through wildcards: a new
    enum member decided by accident)."""
    found: list[Diagnostic] = []
    named = [0] * len(table.inputs)
    for rule in table.rules:
        for j, (inp, cell) in enumerate(zip(table.inputs, rule.cells)):
            named[j] |= cell.named
            if cell.mask == 0:
                found.append(error(
                    "empty-cell", f"rule '{rule.id}' can never match: its cell for '{inp.name}' "
                    "matches no value", cell.span or rule.span, rules=(rule.id,),
                    help="a {not: [...]} that lists every value, or an empty list, matches nothing"))
            elif cell.form == LIST and cell.mask == inp.full and len(inp.values) > 1:
                found.append(warning(
                    "full-domain-cell", f"rule '{rule.id}' lists every value of '{inp.name}'",
                    cell.span or rule.span, rules=(rule.id,),
                    help="write '-' so that a value added later is not silently left out"))
    for j, inp in enumerate(table.inputs):
        unnamed = inp.full & ~named[j]
        if not unnamed:
            continue
        if unnamed == inp.full:
            found.append(warning(
                "unused-input", f"no rule names a value of input '{inp.name}': the decision never depends on it",
                inp.span, help="remove the input, or name its values in the rules that depend on it"))
            continue
        if inp.is_bool:
            continue  # a bool's domain cannot grow: '-' over it decides nothing by accident
        values = ", ".join(format_value(v) for v in inp.values_of(unnamed))
        absorbers = [r.id for r in table.rules
                     if r.cells[j].form in (ANY, NOT) and r.cells[j].mask & unnamed]
        report = warning if inp.wildcard else error
        found.append(report(
            "unnamed-value", f"no rule names {values} of input '{inp.name}'; "
            + (f"only wildcards in {', '.join(repr(a) for a in absorbers)} decide it" if absorbers
               else "nothing decides it"),
            inp.span, rules=tuple(absorbers),
            help="name the value in the rule that should decide it"
            + ("" if inp.wildcard else ", or set 'wildcard: true' on the input to allow wildcards")))
    return found
