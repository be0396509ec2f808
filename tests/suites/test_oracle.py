"""Property tests: the engine agrees exactly with the brute-force oracle on random tables."""

from __future__ import annotations

import copy

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swapool.table.analysis import Analysis, analyse, measure_coverage
from swapool.table.partition import Budget
from swapool.table.diagram import Diagram
from swapool.table.diff import diff_tables
from swapool.table.source import parse_document
from swapool.table.build import build_parts

from .. import oracle
from ..helpers import decide_point

MAX_POINTS = 400
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def domains(draw):
    n = draw(st.integers(2, 8))
    sizes, budget = [], MAX_POINTS
    for i in range(n):
        most = max(1, min(8, budget // 2 ** (n - i - 1)))
        size = draw(st.integers(1, most))
        sizes.append(size)
        budget //= size
    return sizes


@st.composite
def cell(draw, size):
    kind = draw(st.sampled_from(["any", "any", "literal", "list", "not"]))
    values = [f"v{i}" for i in range(size)]
    if kind == "any":
        return None
    if kind == "literal":
        return draw(st.sampled_from(values))
    chosen = draw(st.lists(st.sampled_from(values), min_size=1, max_size=size, unique=True))
    return chosen if kind == "list" else {"not": chosen}


@st.composite
def condition(draw, sizes, outputs=None):
    out = {}
    for i, size in enumerate(sizes):
        c = draw(cell(size))
        if c is not None:
            out[f"i{i}"] = c
    if outputs and draw(st.booleans()):
        out["output"] = draw(st.lists(st.sampled_from(outputs), min_size=1, unique=True))
    return out


@st.composite
def table_data(draw, sizes=None):
    sizes = sizes or draw(domains())
    outputs = [f"o{i}" for i in range(draw(st.integers(1, 3)))]
    rules = []
    for r in range(draw(st.integers(1, 60))):
        rules.append({"id": f"r{r}", "when": draw(condition(sizes)), "then": draw(st.sampled_from(outputs))})
    invariants = []
    for k in range(draw(st.integers(0, 2))):
        cond_if = draw(condition(sizes, outputs)) or {"output": outputs[:1]}
        cond_then = draw(condition(sizes, outputs)) or {"output": outputs[-1:]}
        invariants.append({"id": f"inv{k}", "if": cond_if, "then": cond_then})
    cases = []
    for _ in range(draw(st.integers(0, 3))):
        given_ = {f"i{i}": f"v{draw(st.integers(0, s - 1))}" for i, s in enumerate(sizes) if draw(st.booleans())}
        cases.append({"given": given_, "expect": draw(st.sampled_from(outputs))})
    return {
        "format": 1, "decision": "random", "hit_policy": draw(st.sampled_from(["unique", "first", "any", "priority"])),
        "inputs": {f"i{i}": {"values": [f"v{j}" for j in range(s)], "wildcard": True}
                   for i, s in enumerate(sizes)},
        "output": {"values": outputs}, "invariants": invariants, "rules": rules, "cases": cases,
    }


def build(data):
    doc, found = parse_document(yaml.dump(data, Dumper=DUMPER, sort_keys=False), "random.yaml")
    assert not found
    built = build_parts(doc)
    assert built.table is not None, built.diagnostics
    table = built.table
    return table


@SETTINGS
@given(table_data())
def test_engine_agrees_with_the_oracle(data):
    table = build(data)
    brute = oracle.Brute(table)
    cov = measure_coverage(Analysis(table, Budget()))
    gap_points = [p for g in cov.gaps for p in oracle.cube_points(g)]
    assert len(gap_points) == len(set(gap_points)), "gap regions overlap"
    assert set(gap_points) == brute.gaps()
    policy = table.hit_policy.value
    # what the hit policy makes a finding is measured: overlaps where they matter (unique,
    # any), the rules each decision needs where order decides (first, priority, any)
    assert (cov.overlaps is not None) == (policy in ("unique", "any"))
    pairs = brute.overlap_pairs()
    for b in range(len(table.rules)) if cov.overlaps is not None else ():
        partners = sorted(a for a, later in pairs if later == b)
        assert cov.overlaps.count.get(b, 0) == len(partners)
        assert cov.overlaps.earliest.get(b, ()) == tuple(partners[:8])
    assert cov.fires == brute.firing()
    assert cov.needed == (brute.needed() if policy != "unique" else frozenset())

    done = analyse(table, Budget())
    found, first = done.findings, done.first
    # the diagram a load compiles from the analysis's own DAG (first: the one that also
    # tracked second hits), and one built afresh, both decide as the oracle
    for compiled in (Diagram(table, Budget()), Diagram(table, Budget(), first)):
        for p, r in brute.decisions.items():
            got = decide_point(compiled, p)
            assert (got.rule_id if got else None) == (table.rules[r].id if r is not None else None)

    replay_witnesses(table, brute, compiled, found)
    assert {d.rules for d in found if d.code == "invariant"} == brute.breaches()
    failing = {d.facts.case - 1 for d in found if d.code == "case-failed"}
    assert failing == brute.failing_cases()
    gap_findings = [d for d in found if d.code == "gap"]
    assert len(gap_findings) == len(cov.gaps)
    merges = [d for d in found if d.code == "mergeable-rules"]
    if merges:  # every merge the findings offer, made at once, decides every input as before
        merged = copy.deepcopy(data)
        by_id = {r["id"]: k for k, r in enumerate(merged["rules"])}
        for d in merges:
            merged["rules"][by_id[d.rules[0]]] = d.facts.merged
        gone = {rid for d in merges for rid in d.rules[1:]}
        merged["rules"] = [r for r in merged["rules"] if r["id"] not in gone]
        after = oracle.Brute(build(merged))
        assert all(after.output_at(p) == brute.output_at(p) for p in brute.points)
        assert len({rid for d in merges for rid in d.rules}) == sum(len(d.rules) for d in merges)
    if gap_findings:  # the rules the findings offer close every gap and change nothing else
        closed = copy.deepcopy(data)
        closed["rules"] += [{**d.facts.closing, "then": data["output"]["values"][-1]} for d in gap_findings]
        after = oracle.Brute(build(closed))
        assert not after.gaps() and after.overlap_pairs() >= pairs
        assert all(after.output_at(p) == brute.output_at(p) for p in brute.points if p not in brute.gaps())
        if table.hit_policy.value == "unique":
            assert after.overlap_pairs() == pairs
    # and every edit the findings propose, all at once: remove, merge, close
    edited = copy.deepcopy(data)
    by_id = {r["id"]: k for k, r in enumerate(edited["rules"])}
    for d in merges:
        edited["rules"][by_id[d.rules[0]]] = d.facts.merged
    drop = {rid for d in merges for rid in d.rules[1:]} | {d.rules[0] for d in found if d.code in (
        "unreachable-rule", "redundant-rule")}
    edited["rules"] = [r for r in edited["rules"] if r["id"] not in drop]
    edited["rules"] += [{**d.facts.closing, "then": data["output"]["values"][0]} for d in gap_findings]
    if edited["rules"]:
        after = oracle.Brute(build(edited))
        assert not after.gaps()
        assert all(after.output_at(p) == brute.output_at(p) for p in brute.points if p not in brute.gaps())
    live = {r.id for r in table.rules if all(r.cube)}
    never = {r.id for r in table.rules if r.index not in brute.firing()} & live
    dead = {d.rules[0] for d in found if d.code == "unreachable-rule"}
    redundant = {d.rules[0] for d in found if d.code == "redundant-rule"}
    overlapping = {d.rules[:2] for d in found if d.code == "overlap" and d.facts.problem == "conflict"}
    ids = [r.id for r in table.rules]
    conflicts = {(ids[a], ids[b]) for a, b in brute.conflicting_pairs()}
    policy = table.hit_policy.value
    if policy in ("first", "priority"):
        assert dead == never and not overlapping
    else:
        assert not dead and overlapping <= conflicts and bool(overlapping) == bool(conflicts)
    if policy == "any":
        shared = [d for d in found if d.code == "overlap" and d.facts.problem == "shared"]
        assert all(not d.facts.same for d in shared)  # alike overlaps are legal under any
    if policy == "unique" or (policy == "any" and conflicts):
        assert not redundant
    else:
        # acting on every finding keeps every decision: the rules named can all go at once
        gone = {r.index for r in table.rules if r.id in redundant | dead}
        assert brute.outputs_without(gone) == {p: brute.output_at(p) for p in brute.points}
        assert not {ids[i] for i in brute.needed()} & redundant
        if policy == "any":
            assert never <= redundant


def replay_witnesses(table, brute, diagram, found):
    """Every witness shows what its finding says, by the oracle and by the diagram."""
    ids = {r.id: r.index for r in table.rules}
    for d in found:
        if d.witness is None:
            continue
        point = tuple(inp.values.index(d.witness[inp.name]) for inp in table.inputs)
        decided = brute.decisions[point]
        got = decide_point(diagram, point)
        assert (got.rule_id if got else None) == (table.rules[decided].id if decided is not None else None)
        if d.code == "gap":
            assert decided is None
        elif d.code == "overlap":
            assert ids[d.rules[0]] in brute.matches[point] and ids[d.rules[1]] in brute.matches[point]
        elif d.code == "unreachable-rule":
            assert ids[d.rules[0]] in brute.matches[point] and decided != ids[d.rules[0]]
        elif d.code == "invariant":  # unique/any: a rule that matches there; first/priority: the one deciding
            assert (ids[d.rules[0]] in brute.matches[point] if table.hit_policy.value in ("unique", "any")
                    else decided == ids[d.rules[0]])
        elif d.code == "case-failed":
            case = table.cases[d.facts.case - 1]
            assert oracle.inside(case.region, point)
            assert decided is None or table.rules[decided].then != case.expect


@st.composite
def table_pairs(draw):
    sizes = draw(domains())
    old = draw(table_data(sizes))
    if draw(st.booleans()):
        new = draw(table_data(sizes))
    else:  # a small edit of old: the realistic case
        new = copy.deepcopy(old)
        rules = new["rules"]
        i = draw(st.integers(0, len(rules) - 1))
        action = draw(st.sampled_from(["retarget", "drop", "reverse", "rename"]))
        if action == "retarget":
            rules[i]["then"] = draw(st.sampled_from(new["output"]["values"]))
        elif action == "drop" and len(rules) > 1:
            rules.pop(i)
        elif action == "reverse":
            rules.reverse()
        else:
            for r in rules:
                r["id"] = "renamed-" + r["id"]
    return old, new


@SETTINGS
@given(table_pairs())
def test_diff_agrees_with_the_oracle(pair):
    old, new = (build(d) for d in pair)
    result = diff_tables(old, new)
    a, b = oracle.Brute(old), oracle.Brute(new)
    want = {p for p in a.points if a.output_at(p) != b.output_at(p)}
    seen: set[tuple] = set()
    for change in result.changes:
        pts = oracle.cube_points(change.region)
        assert not pts & seen, "change regions overlap"
        seen |= pts
        for p in pts:
            assert change.old.output == a.output_at(p)
            assert change.new.output == b.output_at(p)
    assert seen == want
