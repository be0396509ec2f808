"""Stage 5b, analysis: gaps, overlaps, unreachable and redundant rules, invariant breaches,
failing cases and lints, each with a witness. One engine (`partition.split`) answers all
of them; the test suite replays every witness through the diagram and a brute-force oracle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, NamedTuple, Sequence

from .diagnostics import Diagnostic, Related, error, note, warning
from .model import CellForm, HitPolicy, Invariant, Rule, Table, lowest_bit
from .partition import (Budget, BudgetExceeded, Cube, Leaf, Node, Overlaps, first_hits, gap_regions, intersect, is_empty,
                        merge_regions, needed_rules, overlaps, reachable, split)

#: Conflicting partners of one rule that get a finding each; the rest share one, so n
#: identical rules make O(n) findings, not O(n^2).
CONFLICTS_EACH = 3


class Analysis(NamedTuple):
    """Every finding, and the first-hit DAG of the whole table (None when the budget ran
    out first), which the contract and the diagram reuse instead of building it again."""

    findings: list[Diagnostic]
    first: Node | None


def analysis(table: Table, budget: Budget | None = None) -> Analysis:
    """Every finding about a well-formed table (semantic, not syntactic), with the DAG they
    came from. The whole analysis shares one `budget`; running out is itself a finding
    (`analysis-budget`)."""
    budget = budget or Budget()
    found: list[Diagnostic] = []
    found += lint_cells(table)
    found += uncased_values(table)
    first = None
    try:
        unique = table.hit_policy is HitPolicy.UNIQUE
        cov = measure_coverage(table, budget, with_overlaps=unique, with_needed=not unique)
        first = cov.first
        found += coverage_findings(table, cov)
        found += invariant_breaches(table, budget, first)
        found += failing_cases(table, budget, first)
    except BudgetExceeded as exc:
        found.append(error("analysis-budget", table.rules_span, problem="steps", what=exc.what, limit=exc.limit))
    return Analysis(found, first)


def analyse(table: Table, budget: Budget | None = None) -> list[Diagnostic]:
    """Every finding about a well-formed table (`analysis` without the DAG)."""
    return analysis(table, budget).findings


@dataclass(frozen=True)
class Coverage:
    """How the rules cover the input space (the facts behind gap/overlap/dead-rule findings)."""

    gaps: tuple[Cube, ...]  # disjoint, merged regions no rule decides
    overlaps: Overlaps | None  # per later rule: earlier rules deciding some input with it
    fires: frozenset[int]  # rules that decide some input (first hit)
    needed: frozenset[int]  # rules whose removal changes some decision
    first: Node  # the first-hit DAG the rest was read from


def measure_coverage(table: Table, budget: Budget | None = None, *, with_overlaps: bool = True,
                     with_needed: bool = True) -> Coverage:
    """Gaps and firing rules from the first-hit DAG, needed rules from the DAGs after each
    first hit, overlapping pairs from their own search (each polynomial where rules settle early).
    A unique table needs no `needed`, a first-hit table no overlaps."""
    budget = budget or Budget()
    rules = table.rules
    cubes = [r.cube for r in rules]
    region = table.full_region
    outputs = [r.then for r in rules]
    if with_needed:
        first, needed = needed_rules(cubes, outputs, region, budget)
    else:
        first, needed = split(cubes, region, budget=budget), frozenset()
    fires = frozenset(nd.matched[0] for nd in reachable(first) if isinstance(nd, Leaf) and nd.matched)
    never = [i for i, c in enumerate(cubes) if i not in fires and not is_empty(c)]
    if with_needed and never:
        # Whether a rule is needed is judged with the rules that never fire taken out, as
        # their finding asks: otherwise two identical rules would be told "the first is
        # redundant" and "the second is unreachable", and acting on both deletes a decision.
        alive = [tuple(0 for _ in c) if i in never else c for i, c in enumerate(cubes)]
        needed = needed_rules(alive, outputs, region, budget)[1]
    gaps = tuple(merge_regions(gap_regions(first, region, budget)))
    pairs = overlaps(cubes, region, budget) if with_overlaps else None
    return Coverage(gaps, pairs, fires, needed, first)


def coverage_findings(table: Table, cov: Coverage) -> list[Diagnostic]:
    """Gaps; overlaps (unique); unreachable and redundant rules (first)."""
    rules = table.rules
    unique = table.hit_policy is HitPolicy.UNIQUE
    found: list[Diagnostic] = []
    for reg in cov.gaps:
        found.append(error("gap", table.rules_span, witness=table.point(reg), region=table.terms(reg)))
    if cov.overlaps is not None:
        for later, earlier in sorted(cov.overlaps.earliest.items()):
            found += _overlap_findings(table, later, earlier, cov.overlaps.count[later])
    if not unique:
        for r in rules:
            if is_empty(r.cube):
                continue
            if r.index not in cov.fires:
                hiders = [rules[h].id for h in _hiders(rules, r)]
                found.append(error("unreachable-rule", r.span, rules=(r.id, *hiders), witness=table.point(r.cube),
                                   rule=r.id, hiders=hiders))
            elif r.index not in cov.needed:
                found.append(warning("redundant-rule", r.span, rules=(r.id,), rule=r.id, then=r.then))
    return found


def _hiders(rules: Sequence[Rule], r: Rule) -> list[int]:
    """The earlier rules that hide `r`: one earlier rule that covers it alone if there is
    one (then the scan stops: n identical rules cost O(n), not O(n^2)), else every earlier
    rule that meets it."""
    meets = []
    for q in rules[: r.index]:
        if all(a & b == b for a, b in zip(q.cube, r.cube)):
            return [q.index]
        if not is_empty(intersect(q.cube, r.cube)):
            meets.append(q.index)
    return meets


def _overlap_findings(table: Table, later: int, earlier: Sequence[int], total: int) -> list[Diagnostic]:
    """A conflicting overlap (the two rules decide differently) is a bug of its own: one
    finding per such pair, first, each with its witness. Partners that decide the same
    (harmless, but not unique) share one finding."""
    rules = table.rules
    b = rules[later]
    conflicting = [e for e in earlier if rules[e].then != b.then]
    alike = [e for e in earlier if rules[e].then == b.then]
    found = []
    for e in conflicting[:CONFLICTS_EACH]:
        a = rules[e]
        reg = intersect(a.cube, b.cube)
        found.append(error("overlap", b.span, rules=(a.id, b.id), witness=table.point(reg),
                           related=(Related("rule", a.id, a.span),), problem="conflict", first=a.id,
                           first_then=a.then, rule=b.id, then=b.then, region=table.terms(reg)))
    rest = conflicting[CONFLICTS_EACH:] + alike
    if rest:
        a = rules[rest[0]]
        reg = intersect(a.cube, b.cube)
        partners = [rules[e].id for e in rest]
        found.append(error("overlap", b.span, rules=(a.id, b.id, *partners[1:]), witness=table.point(reg),
                           related=(Related("rule", a.id, a.span),), problem="shared", rule=b.id, partners=partners,
                           total=total - len(conflicting[:CONFLICTS_EACH]), same=not conflicting[CONFLICTS_EACH:],
                           region=table.terms(reg)))
    return found


def decided_regions(table: Table, budget: Budget | None = None) -> list[tuple[int | None, list[Cube]]]:
    """For each rule (table order; None last for gaps), the merged regions it decides."""
    by_rule: dict[int | None, list[Cube]] = {}
    for reg, ri in _decided(table, table.full_region, budget or Budget(), None):
        by_rule.setdefault(ri, []).append(reg)
    order = sorted(by_rule, key=lambda ri: len(table.rules) if ri is None else ri)
    return [(ri, merge_regions(by_rule[ri])) for ri in order]


def _decided(table: Table, region: Cube, budget: Budget, first: Node | None) -> Iterator[tuple[Cube, int | None]]:
    """First hits inside `region`, walking the table's whole first-hit DAG when it is built."""
    return first_hits([r.cube for r in table.rules], region, budget, root=first)


def invariant_breaches(table: Table, budget: Budget, first: Node | None = None) -> list[Diagnostic]:
    """One finding per (invariant, rule) that decides an input against the invariant."""
    found: list[Diagnostic] = []
    for inv in table.invariants:
        if is_empty(inv.if_region):
            continue
        reported: set[int] = set()
        for reg, ri in _decided(table, inv.if_region, budget, first):
            if ri is None or ri in reported:
                continue
            rule = table.rules[ri]
            if rule.then not in inv.if_outputs:
                continue
            bad = None
            if rule.then not in inv.then_outputs:
                bad, what = reg, {"output": rule.then}
            else:
                for j, inp in enumerate(table.inputs):
                    outside = reg[j] & ~inv.then_region[j]
                    if outside:
                        bad = reg[:j] + (outside,) + reg[j + 1:]
                        what = {inp.name: inp.values[lowest_bit(outside)]}
                        break
            if bad is None:
                continue
            reported.add(ri)
            found.append(error(
                "invariant", rule.span, rules=(rule.id, inv.id), witness=table.point(bad),
                related=(Related("invariant", inv.id, inv.span),), rule=rule.id, invariant=inv.id,
                region=table.terms(bad), then=rule.then, expected=_requirement(table, inv), got=what, why=inv.why))
    return found


def _requirement(table: Table, inv: Invariant) -> dict[str, Any]:
    """What an invariant's `then` asks for: the outputs it allows (when not every one),
    and the values of each input it restricts."""
    outputs = [v for v in table.output.values if v in inv.then_outputs]
    allowed = {"output": outputs} if len(outputs) < len(table.output.values) else {}
    return {**allowed, **table.terms(inv.then_region)}


def failing_cases(table: Table, budget: Budget, first: Node | None = None) -> list[Diagnostic]:
    """A case holds when every input it describes is decided as expected."""
    found: list[Diagnostic] = []
    for case in table.cases:
        if is_empty(case.region):
            continue
        for reg, ri in _decided(table, case.region, budget, first):
            got = table.rules[ri] if ri is not None else None
            if got is not None and got.then == case.expect:
                continue
            found.append(error("case-failed", case.span, rules=(got.id,) if got else (), witness=table.point(reg),
                               case=case.index + 1, expected=case.expect, got=got.then if got else None,
                               rule=got.id if got else None))
            break
    return found


def uncased_values(table: Table) -> list[Diagnostic]:
    """Values of an engine-bound input (one with `enum:`) that no case names, by value or
    through a set: a value the engine can send that no golden example pins down. A case
    that leaves the input out does not count; it would pin every value at once."""
    found: list[Diagnostic] = []
    for k, inp in enumerate(table.inputs):
        if not inp.enum:
            continue
        cased = 0
        for case in table.cases:
            cased |= case.named(k, inp)
        left_out = inp.values_of(inp.full & ~cased)
        if not left_out:
            continue
        homes = [name for name, mask in inp.sets if mask & inp.full & ~cased]
        found.append(warning("uncased-value", inp.span, expected="a case naming each value", got=list(left_out),
                             input=inp.name, enum=inp.enum, homes=homes))
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
                found.append(error("empty-cell", cell.span or rule.span, rules=(rule.id,), rule=rule.id,
                                   input=inp.name))
            elif cell.form is CellForm.LIST and cell.mask == inp.full and len(inp.values) > 1:
                found.append(warning("full-domain-cell", cell.span or rule.span, rules=(rule.id,), rule=rule.id,
                                     input=inp.name))
    for j, inp in enumerate(table.inputs):
        unnamed = inp.full & ~named[j]
        if not unnamed:
            continue
        if unnamed == inp.full:
            found.append(warning("unused-input", inp.span, input=inp.name))
            continue
        if inp.is_bool:
            continue  # a bool's domain cannot grow: '-' over it decides nothing by accident
        left_out = inp.values_of(unnamed)
        absorbers = [r.id for r in table.rules
                     if r.cells[j].form in (CellForm.ANY, CellForm.NOT) and r.cells[j].mask & unnamed]
        report = note if inp.wildcard else error  # wildcard: true is the author opting in
        found.append(report("unnamed-value", inp.span, rules=tuple(absorbers), got=list(left_out), input=inp.name,
                            absorbers=absorbers, wildcard=inp.wildcard))
    return found
