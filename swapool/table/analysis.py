"""Stage 5b, analysis: gaps, overlaps, unreachable and redundant rules, invariant breaches,
failing cases and lints, each with a witness. One engine (`partition.split`) answers all
of them; the test suite replays every witness through the diagram and a brute-force oracle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, NamedTuple, Sequence

from .diagnostics import Diagnostic, error, format_value, note, shown_list, warning
from .model import CellForm, HitPolicy, Invariant, Rule, Table, lowest_bit
from .partition import (Budget, BudgetExceeded, Cube, Leaf, Node, Overlaps, first_hits, gap_regions, intersect, is_empty,
                        merge_regions, needed_rules, overlaps, reachable, split)


#: Rule ids (values) a finding names before it says "and N more".
SHOWN_RULES = 3
SHOWN_VALUES = 8


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
        found.append(error(
            "analysis-budget", f"the analysis stopped while {exc.what} ({exc.limit:,} steps); the "
            "table is too irregular to check exactly", table.rules_span,
            help="split the table, or make its rules follow the input order (as a decision tree does)"))
    return Analysis(found, first)


def analyse(table: Table, budget: Budget | None = None) -> list[Diagnostic]:
    """Every finding about a well-formed table (`analysis` without the DAG)."""
    return analysis(table, budget).findings


def rule_list(table: Table, indices: Sequence[int], total: int | None = None) -> str:
    """'a', 'b', 'c' and 1,997 more."""
    total = len(indices) if total is None else total
    shown = ", ".join(f"'{table.rules[i].id}'" for i in indices[:SHOWN_RULES])
    more = total - min(len(indices), SHOWN_RULES)
    return shown + (f" and {more:,} more" if more > 0 else "")


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
        found.append(error(
            "gap", f"no rule decides {table.describe(reg)}", table.rules_span,
            witness=table.point(reg),
            help="add a rule for this input, or widen a rule's cell to cover it"))
    if cov.overlaps is not None:
        for later, earlier in sorted(cov.overlaps.earliest.items()):
            found += _overlap_findings(table, later, earlier, cov.overlaps.count[later])
    if not unique:
        for r in rules:
            if is_empty(r.cube):
                continue
            if r.index not in cov.fires:
                hiders = _hiders(rules, r)
                found.append(error(
                    "unreachable-rule", f"rule '{r.id}' can never fire: "
                    f"{'earlier rule' if len(hiders) == 1 else 'earlier rules'} {rule_list(table, hiders)} "
                    f"{'decides' if len(hiders) == 1 else 'decide'} every input it matches",
                    r.span, rules=(r.id, *(rules[h].id for h in hiders[:SHOWN_RULES])), witness=table.point(r.cube),
                    help="remove the rule, or move it above the rules that hide it"))
            elif r.index not in cov.needed:
                found.append(warning(
                    "redundant-rule", f"rule '{r.id}' is redundant: later rules decide every input "
                    f"it decides the same way ('{r.then}')", r.span, rules=(r.id,),
                    help="remove the rule, or narrow the later rules if it should matter"))
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
    fix = "make the cells disjoint, or use hit_policy: first if order should decide"
    found = []
    for e in conflicting[:SHOWN_RULES]:
        a = rules[e]
        reg = intersect(a.cube, b.cube)
        found.append(error(
            "overlap", f"rules '{a.id}' and '{b.id}' conflict: both decide {table.describe(reg)}, "
            f"'{a.id}' as '{a.then}' and '{b.id}' as '{b.then}'", b.span, rules=(a.id, b.id),
            witness=table.point(reg), related=((f"rule '{a.id}'", a.span),), help=fix))
    rest = conflicting[SHOWN_RULES:] + alike
    if rest:
        a = rules[rest[0]]
        reg = intersect(a.cube, b.cube)
        same = not conflicting[SHOWN_RULES:]
        found.append(error(
            "overlap", f"rule '{b.id}' overlaps {rule_list(table, rest, total - len(conflicting[:SHOWN_RULES]))}"
            f"{' (same output)' if same else ''}: both decide {table.describe(reg)}", b.span,
            rules=(a.id, b.id) + tuple(rules[e].id for e in rest[1:SHOWN_RULES]), witness=table.point(reg),
            related=((f"rule '{a.id}'", a.span),), help=fix))
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
            found.append(error(
                "invariant", f"rule '{rule.id}' breaks invariant '{inv.id}': where {table.describe(bad)} it "
                f"decides '{rule.then}', but the invariant requires {_requirement(table, inv)}"
                + (f" ({' '.join(inv.why.split())})" if inv.why else ""),
                rule.span, rules=(rule.id, inv.id), witness=table.point(bad),
                related=((f"invariant '{inv.id}'", inv.span),), expected=_requirement(table, inv), got=what,
                help="narrow the rule, or fix the invariant if the rule is right"))
    return found


def _requirement(table: Table, inv: Invariant) -> str:
    """What an invariant's `then` asks for, in the words of its condition."""
    parts = []
    outputs = [v for v in table.output.values if v in inv.then_outputs]
    if len(outputs) < len(table.output.values):
        parts.append("output " + " or ".join(f"'{o}'" for o in outputs))
    region = table.describe(inv.then_region)
    if region != "every input":
        parts.append(region)
    return " and ".join(parts) or "nothing"


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
            said = f"rule '{got.id}' decides '{got.then}'" if got else "no rule decides it"
            found.append(error(
                "case-failed", f"case {case.index + 1} expects '{case.expect}', but {said}",
                case.span, rules=(got.id,) if got else (), witness=table.point(reg),
                help="fix the rule if the case is right; fix the case if the rule is"))
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
        values = shown_list(left_out, SHOWN_VALUES)
        homes = [name for name, mask in inp.sets if mask & inp.full & ~cased]
        found.append(warning(
            "uncased-value", f"no case exercises {values} of input '{inp.name}' (bound to the engine's "
            f"{inp.enum.split(':')[-1]})", inp.span, expected="a case naming each value", got=list(left_out),
            keyword=inp.name,
            help=(f"add a case that names it, or its set: given: {{{inp.name}: {{in: {homes[0]}}}, ...}}" if homes
                  else f"add a case with given: {{{inp.name}: {format_value(left_out[0])}, ...}}")))
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
            elif cell.form is CellForm.LIST and cell.mask == inp.full and len(inp.values) > 1:
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
        left_out = inp.values_of(unnamed)
        values = shown_list(left_out, SHOWN_VALUES)
        absorbers = [r.index for r in table.rules
                     if r.cells[j].form in (CellForm.ANY, CellForm.NOT) and r.cells[j].mask & unnamed]
        report = note if inp.wildcard else error  # wildcard: true is the author opting in
        found.append(report(
            "unnamed-value", f"no rule names {values} of input '{inp.name}'; "
            + (f"only wildcards in {rule_list(table, absorbers)} decide it" if absorbers
               else "nothing decides it"),
            inp.span, rules=tuple(table.rules[a].id for a in absorbers[:SHOWN_RULES]),
            help="name the value in the rule that should decide it"
            + ("" if inp.wildcard else ", or set 'wildcard: true' on the input to allow wildcards")))
    return found
