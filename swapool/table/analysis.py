"""Stage 5b, analysis: gaps, overlaps, unreachable and redundant rules, invariant breaches
and failing cases, each with a witness (and the lints of lints.py). One engine (`partition.split`) answers all
of them; the test suite replays every witness through the diagram and a brute-force oracle."""

from __future__ import annotations

import functools
import itertools
import operator

from .codes.analysis import (AnalysisBudgetSteps, BrokenInvariant, CaseFailed, Gap, MergeableRules, OverlapConflict,
                             OverlapShared, RedundantRuleLater, RedundantRuleOthers, UnreachableRuleFirst,
                             UnreachableRulePriority)
from .diagnostics import Diagnostic, Related, error, note, warning
from .emit import mask_cell, rule_data
from .lints import lint_cells, off_case_values, uncased_values
from .model import HitPolicy, Invariant, Rule, Table, lowest_bit
from .partition import (Budget, BudgetExceeded, Cube, Leaf, Node, Overlaps, first_hits, gap_regions, intersect,
                        is_empty,
                        merge_regions, needed_rules, overlaps, reachable, split)
from .record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator, Mapping, Sequence

#: Conflicting partners of one rule that get a finding each; the rest share one, so n
#: identical rules make O(n) findings, not O(n^2).
CONFLICTS_EACH = 3
#: Checks of "can these go together" one analysis makes when the redundant rules cannot
#: all go at once: each walks the first-hit pieces of the rules checked.
MAX_REDUNDANCY_CHECKS = 64


class Analysis:
    """One table under analysis: every check reads it, spends from its one budget and walks
    its first-hit DAG once built (None when the budget ran out first); the contract and the
    diagram reuse the DAG instead of building it again."""

    def __init__(self, table: Table, budget: Budget, first: Node | None = None):
        self.table = table
        self.budget = budget
        self.first = first
        self.findings: list[Diagnostic] = []

    def hits(self, region: Cube) -> Iterator[tuple[Cube, int | None]]:
        """The first hits inside `region`, as rule indices (None: no rule decides there)."""
        order = self.table.ranked
        for reg, p in first_hits(self.table.ranked_cubes, region, self.budget, root=self.first):
            yield reg, None if p is None else order[p]

    def out_of_budget(self, exc: BudgetExceeded) -> Diagnostic:
        return error(AnalysisBudgetSteps(what=exc.what, limit=exc.limit), self.table.rules_span)


#: What a decision's contract forbids a rule deciding all of a region: output -> why.
if TYPE_CHECKING:
    Forbids = Callable[[Table, Cube], Mapping[str, str]]


class Contract(Record):
    """What a decision kind adds to the generic checks: findings over a table's analysis,
    and (optionally) the outputs a rule deciding a whole region must not have, so that a
    gap's proposed fix is one the contract accepts."""

    check: Callable[["Analysis"], list[Diagnostic]]
    forbids: Forbids | None = None


def analyse(table: Table, budget: Budget, forbids: Forbids | None = None) -> Analysis:
    """Every finding about a well-formed table (semantic, not syntactic), with the DAG they
    came from. Running out of `budget` is itself a finding (`analysis-budget`). `forbids`:
    the outputs the decision's contract rules out of a region, which a gap's proposed
    fix then leaves out too."""
    done = Analysis(table, budget)
    done.findings += uncased_values(table) + off_case_values(table)
    gaps: tuple[Cube, ...] = ()
    try:
        cov = measure_coverage(done)
        done.first, gaps = cov.first, cov.gaps
        done.findings += coverage_findings(table, cov, forbids) + mergeable_rules(table, cov)
        done.findings += invariant_breaches(done) + failing_cases(done)
    except BudgetExceeded as exc:
        done.findings.append(done.out_of_budget(exc))
    done.findings += lint_cells(table, gaps)
    return done


class Coverage(Record):
    """How the rules cover the input space (the facts behind gap/overlap/dead-rule
    findings). Rules are named by their index in the table; `first` is the first-hit DAG
    over the rules in `Table.ranked` order, whose leaves name positions in that order."""

    gaps: tuple[Cube, ...]  # disjoint, merged regions no rule decides
    overlaps: Overlaps | None  # per later rule: earlier rules deciding some input with it
    fires: frozenset[int]  # rules that decide some input (first hit)
    needed: frozenset[int]  # rules whose removal changes some decision (the never-firing ones taken out)
    first: Node  # the first-hit DAG the rest was read from
    redundant: tuple[int, ...] = ()  # firing rules that can all be removed together, decisions kept


def measure_coverage(analysis: Analysis) -> Coverage:
    """Gaps and firing rules from the first-hit DAG, needed rules from the DAGs after each
    first hit, overlapping pairs from their own search (each polynomial where rules settle early).
    What the table's hit policy makes a finding is all that is measured: a unique table needs
    no `needed` (any overlap is its error), an ordered one (first, priority) no overlaps."""
    table, budget = analysis.table, analysis.budget
    with_overlaps = table.hit_policy in (HitPolicy.UNIQUE, HitPolicy.ANY)
    with_needed = table.hit_policy is not HitPolicy.UNIQUE
    order = table.ranked
    cubes = table.ranked_cubes
    region = table.full_region
    outputs = [table.rules[i].then for i in order]
    if with_needed:
        first, needed = needed_rules(cubes, outputs, region, budget)
    else:
        first, needed = split(cubes, region, budget), frozenset()
    fires = frozenset(nd.matched[0] for nd in reachable(first) if isinstance(nd, Leaf) and nd.matched)
    never = {p for p, c in enumerate(cubes) if p not in fires and not is_empty(c)}
    redundant: list[int] = []
    if with_needed:
        # Judged with the rules that never fire taken out, as their finding asks. Findings
        # about the same rules never contradict: every rule named can go at once, decisions
        # kept (two identical rules are not both told to go). Usually all the candidates can
        # (one check); otherwise they are taken one at a time, each kept only if it can go
        # with those taken before it, for at most MAX_REDUNDANCY_CHECKS checks (a rule left
        # unnamed is a warning missed, never a wrong one). Those checks spend a budget of their
        # own, as large as the analysis's: a table whose analysis fits is never refused for
        # them; past it, the rules judged so far are named and the rest are not judged.
        if never:
            needed = needed_rules(_without(cubes, never), outputs, region, budget)[1]
        candidates = sorted((p for p in fires if p not in needed), key=order.__getitem__)
        redundant = [order[p] for p in _redundant(first, cubes, outputs, region, Budget(budget.limit), never,
                                                  candidates)]
    gaps = tuple(merge_regions(gap_regions(first, region, budget)))
    pairs = overlaps([r.cube for r in table.rules], region, budget) if with_overlaps else None
    return Coverage(gaps, pairs, frozenset(order[p] for p in fires), frozenset(order[p] for p in needed), first,
                    tuple(redundant))


def _redundant(first: Node, cubes: Sequence[Cube], outputs: Sequence[str], region: Cube, own: Budget,
               never: set[int], candidates: list[int]) -> list[int]:
    """The candidates (firing rules no decision needs alone) that can all go together: all of
    them when they can (one check), else each that can go with those taken before it."""
    if len(candidates) < 2:
        return candidates
    chosen: list[int] = []
    try:
        if _removable_together(first, cubes, outputs, region, own, never, set(candidates)):
            return candidates
        for p in candidates[:MAX_REDUNDANCY_CHECKS]:
            if _removable_together(first, cubes, outputs, region, own, never, {*chosen, p}):
                chosen.append(p)
    except BudgetExceeded:
        pass  # each rule in `chosen` can go with those before it: still true, and all that is said
    return chosen


def closing_rule(table: Table, region: Cube, number: int) -> dict[str, Any]:
    """The rule that decides exactly the inputs of a gap `region`, as table data with no
    output yet (the author picks it). A gap is a region no rule matches, so the rule
    overlaps none and, appended, hides none, under every hit policy: one rule per gap, the
    fewest there can be. A cell that lists a named set's members names the set."""
    when = {inp.name: mask_cell(inp, mask) for inp, mask in zip(table.inputs, region) if mask != inp.full}
    return {"id": f"close-gap-{number}", "when": when, "then": None}


def _removable_together(first: Node, cubes: Sequence[Cube], outputs: Sequence[str], region: Cube, budget: Budget,
                        never: set[int], gone: set[int]) -> bool:
    """Whether the rules at the positions in `gone` (with those in `never`, which decide
    nothing) can all be removed with every decision kept: where one of them is the first
    hit, the first hit among the rest must decide the same output."""
    rest = _without(cubes, never | gone)
    after = split(rest, region, budget)  # built once, walked inside each piece
    for piece, p in first_hits(cubes, region, budget, root=first):
        if p in gone:
            for _, q in first_hits(rest, piece, budget, root=after):
                if q is None or outputs[q] != outputs[p]:
                    return False
    return True


def _without(cubes: Sequence[Cube], gone: set[int]) -> list[Cube]:
    """`cubes` with those at the positions in `gone` made empty (they match nothing)."""
    return [tuple(0 for _ in c) if p in gone else c for p, c in enumerate(cubes)]


def forbidding_invariants(table: Table, region: Cube) -> dict[str, Invariant]:
    """For each output a rule deciding all of `region` could not have, the first invariant
    that forbids it there: so that a proposed fix is one the table's own invariants accept."""
    forbidden: dict[str, Invariant] = {}
    for output in table.output.values:
        for inv in table.invariants:
            meet = intersect(region, inv.if_region)
            if output not in inv.if_outputs or is_empty(meet):
                continue
            if output not in inv.then_outputs or any(m & ~t for m, t in zip(meet, inv.then_region)):
                forbidden[output] = inv
                break
    return forbidden


def coverage_findings(table: Table, cov: Coverage, forbids: Forbids | None = None) -> list[Diagnostic]:
    """Gaps; overlaps (unique: every one; any: those deciding differently); rules that never
    decide (first, priority: unreachable; any: redundant) and redundant rules."""
    rules = table.rules
    policy = table.hit_policy
    found = gap_findings(table, cov.gaps, forbids)
    conflicts = 0
    if cov.overlaps is not None:
        for later, earlier in sorted(cov.overlaps.earliest.items()):
            made = _overlap_findings(table, later, earlier, cov.overlaps.count[later],
                                     alike_too=policy is HitPolicy.UNIQUE)
            conflicts += len(made)
            found += made
    if policy is HitPolicy.UNIQUE or conflicts:  # under any, the conflicts first: no rule is redundant yet
        return found
    redundant = RedundantRuleLater if policy is HitPolicy.FIRST else RedundantRuleOthers
    unreachable = UnreachableRuleFirst if policy is HitPolicy.FIRST else UnreachableRulePriority
    for r in rules:
        if is_empty(r.cube) or r.index in cov.fires:
            continue
        if policy.ordered:
            hiders = [rules[h].id for h in _hiders(table, r)]
            found.append(error(unreachable(rule=r.id, hiders=hiders), r.span, rules=(r.id, *hiders),
                               witness=table.point(r.cube)))
        else:
            found.append(warning(redundant(rule=r.id, then=r.then), r.span, rules=(r.id,)))
    for i in cov.redundant:
        r = rules[i]
        found.append(warning(redundant(rule=r.id, then=r.then), r.span, rules=(r.id,)))
    return found


def gap_findings(table: Table, gaps: Sequence[Cube], forbids: Forbids | None) -> list[Diagnostic]:
    """A finding per gap, with the rule that closes it and the outputs it may decide (those the
    decision's contract and the invariants leave)."""
    found: list[Diagnostic] = []
    taken = {r.id for r in table.rules}  # a second round of pasting must not collide with the first
    numbers = (n for n in itertools.count(1) if f"close-gap-{n}" not in taken)
    for reg in gaps:
        by_contract = forbids(table, reg) if forbids else {}
        forbidden = {**{o: f"the decision's contract: {why}" for o, why in by_contract.items()},
                     **{o: f"invariant '{inv.id}'" for o, inv in forbidding_invariants(table, reg).items()}}
        found.append(error(Gap(region=table.terms(reg), closing=closing_rule(table, reg, next(numbers)),
                               outputs=[o for o in table.output.values if o not in forbidden], forbidden=forbidden),
                           table.rules_span, witness=table.point(reg)))
    return found


def mergeable_rules(table: Table, cov: Coverage) -> list[Diagnostic]:
    """Rules that differ in one input's cell only and decide alike, contracted into one rule
    (Drools' "second normal form"): the merged rule matches exactly what they matched
    together. It takes the place of the first of them, so a rule ranked between them that
    meets a later one and decides otherwise keeps that one out (under first and priority
    it would change a decision; under unique and any it is an error of its own). Each
    rule is named in one finding at most, and rules that never decide or are redundant
    (their own findings) in none, so acting on all of them is safe too. Found by hashing
    each rule without one of the cells that restrict it (the hash of the rest is the whole
    cube's hash with that cell's taken out): O(rules x inputs), for a 990-input chain too."""
    rules = table.rules
    place = {i: p for p, i in enumerate(table.ranked)}
    taken = {r.index for r in rules if r.index not in cov.fires} | set(cov.redundant)
    candidates: dict[tuple, list[int]] = {}
    full = table.full_region
    for r in rules:
        if r.index in taken:
            continue
        restricting = [j for j, (m, f) in enumerate(zip(r.cube, full)) if m != f]
        if not restricting:
            continue
        parts = list(map(hash, enumerate(r.cube)))
        whole = functools.reduce(operator.xor, parts)
        for j in restricting:
            candidates.setdefault((j, r.then, whole ^ parts[j]), []).append(r.index)
    found: list[Diagnostic] = []
    for (j, _, _), hashed in sorted(candidates.items(), key=lambda item: item[0][0]):
        if len(hashed) < 2:
            continue
        groups: dict[tuple, list[int]] = {}
        for i in hashed:  # the same hash: the same cells but j, barring a collision
            groups.setdefault(rules[i].cube[:j] + rules[i].cube[j + 1:], []).append(i)
        for members in groups.values():
            members = [m for m in members if m not in taken]
            if len(members) > 1:
                members = _movable(table, sorted(members, key=place.__getitem__), place, cov.overlaps)
            if len(members) < 2:
                continue
            taken.update(members)
            found.append(_merge(table, j, members))
    return found


def _merge(table: Table, j: int, members: list[int]) -> Diagnostic:
    """The finding of rules `members` (first first) that differ in input `j` only: the rule
    that takes their place, cell `j` the union of theirs."""
    rules, inp = table.rules, table.inputs[j]
    first = rules[members[0]]
    union = 0
    for m in members:
        union |= rules[m].cube[j]
    merged = rule_data(table, first)
    written = merged["when"]
    merged["when"] = {i.name: mask_cell(inp, union) if i is inp else written[i.name]
                      for i in table.inputs if (union != inp.full if i is inp else i.name in written)}
    ids = [rules[m].id for m in members]
    return note(MergeableRules(input=inp.name, merged=merged, then=first.then, ids=ids), first.span, rules=tuple(ids),
                related=tuple(
        Related("rule", rules[m].id, rules[m].span) for m in members[1:]))


def _movable(table: Table, members: list[int], place: dict[int, int], met: Overlaps | None) -> list[int]:
    """The first of `members` (in ranked order) and those after it that no rule ranked
    between meets deciding otherwise: moved up into the first, they decide as they did.
    `met` (unique and any: the overlaps by table order, which is then the ranked order) spares
    the scan for a member no earlier rule meets (each of a valid table's)."""
    kept = members[:1]
    then = table.rules[members[0]].then
    for m in members[1:]:
        if met is not None and not met.count.get(m):
            kept.append(m)
            continue
        between = table.ranked[place[members[0]] + 1: place[m]]
        cube = table.rules[m].cube
        if not any(table.rules[i].then != then and not is_empty(intersect(table.rules[i].cube, cube))
                   for i in between):
            kept.append(m)
    return kept


def _hiders(table: Table, r: Rule) -> list[int]:
    """The rules ranked before `r` that hide it: one that covers it alone if there is one
    (then the scan stops: n identical rules cost O(n), not O(n^2)), else every one that
    meets it."""
    meets = []
    for i in table.ranked[: table.ranked.index(r.index)]:
        q = table.rules[i]
        if all(a & b == b for a, b in zip(q.cube, r.cube)):
            return [q.index]
        if not is_empty(intersect(q.cube, r.cube)):
            meets.append(q.index)
    return meets


def _overlap_findings(table: Table, later: int, earlier: Sequence[int], total: int, alike_too: bool = True
                      ) -> list[Diagnostic]:
    """A conflicting overlap (the two rules decide differently) is a bug of its own: one
    finding per such pair, first, each with its witness. Partners that decide the same
    (harmless, but not unique) share one finding, unless `alike_too` is off (hit policy
    any, where they are legal)."""
    rules = table.rules
    b = rules[later]
    conflicting = [e for e in earlier if rules[e].then != b.then]
    alike = [e for e in earlier if rules[e].then == b.then]
    found = []
    for e in conflicting[:CONFLICTS_EACH]:
        a = rules[e]
        reg = intersect(a.cube, b.cube)
        found.append(error(OverlapConflict(first=a.id, first_then=a.then, rule=b.id, then=b.then,
                                           region=table.terms(reg)), b.span, rules=(a.id, b.id),
                           witness=table.point(reg), related=(Related("rule", a.id, a.span),)))
    rest = conflicting[CONFLICTS_EACH:] + (alike if alike_too else [])
    if rest:
        a = rules[rest[0]]
        reg = intersect(a.cube, b.cube)
        partners = [rules[e].id for e in rest]
        found.append(error(OverlapShared(rule=b.id, partners=partners,
                                         total=total - len(conflicting[:CONFLICTS_EACH]) - (0 if alike_too else len(alike)),
                                         same=not conflicting[CONFLICTS_EACH:], then=b.then,
                                         partner_outputs=[rules[e].then for e in rest], region=table.terms(reg)),
                           b.span, rules=(a.id, b.id, *partners[1:]), witness=table.point(reg),
                           related=(Related("rule", a.id, a.span),)))
    return found


def invariant_breaches(analysis: Analysis) -> list[Diagnostic]:
    """One finding per (invariant, rule) that decides an input against the invariant."""
    table = analysis.table
    found: list[Diagnostic] = []
    own = table.hit_policy in (HitPolicy.UNIQUE, HitPolicy.ANY)
    for inv in table.invariants:
        if is_empty(inv.if_region):
            continue
        reported: set[int] = set()
        # unique/any: each rule claims all it matches, so it is judged alone (an overlap does not
        # hide what the later rule breaks); first/priority: only where it decides
        regions = ([(intersect(r.cube, inv.if_region), i) for i, r in enumerate(table.rules)] if own
                   else analysis.hits(inv.if_region))
        for reg, ri in regions:
            if ri is None or ri in reported or is_empty(reg):
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
            found.append(error(BrokenInvariant(rule=rule.id, invariant=inv.id, region=table.terms(bad), then=rule.then,
                                               expected=_requirement(table, inv), got=what, why=inv.why), rule.span,
                               rules=(rule.id, inv.id), witness=table.point(bad),
                               related=(Related("invariant", inv.id, inv.span),)))
    return found


def _requirement(table: Table, inv: Invariant) -> dict[str, Any]:
    """What an invariant's `then` asks for: the outputs it allows (when not every one),
    and the values of each input it restricts."""
    outputs = [v for v in table.output.values if v in inv.then_outputs]
    allowed = {"output": outputs} if len(outputs) < len(table.output.values) else {}
    return {**allowed, **table.terms(inv.then_region)}


def failing_cases(analysis: Analysis) -> list[Diagnostic]:
    """A case holds when every input it describes is decided as expected."""
    table = analysis.table
    found: list[Diagnostic] = []
    for case in table.cases:
        if is_empty(case.region):
            continue
        for reg, ri in analysis.hits(case.region):
            got = table.rules[ri] if ri is not None else None
            if got is not None and got.then == case.expect:
                continue
            inv = forbidding_invariants(table, reg).get(case.expect)  # then the case, not the rule, is wrong
            found.append(error(CaseFailed(case=case.index + 1, expected=case.expect, got=got.then if got else None,
                                          rule=got.id if got else None, invariant=inv.id if inv else None),
                               case.expect_span if inv else case.span, rules=(got.id,) if got else (),
                               witness=table.point(reg),
                               related=(Related("invariant", inv.id, inv.span),) if inv else ()))
            break
    return found
