"""Each finding kind: its code, its location, and a witness that lies in the defect."""

from swapool.table.diagram import Diagram
from swapool.table.source import parse_document
from swapool.table.build import build_parts
from swapool.table.partition import Budget

from ..helpers import check, codes, decide_facts, line_of, mini, only

COMPLETE = """\
- {id: rx, when: {a: x}, then: p}
- {id: ry, when: {a: y}, then: q}
- {id: rz-t, when: {a: z, b: true}, then: q}
- {id: rz-f, when: {a: z, b: false}, then: p}
"""


def test_complete_unique_table_has_no_findings():
    c = check(mini(COMPLETE))
    assert c.ok and not c.diagnostics


def test_gap_is_one_finding_with_a_witness_that_no_rule_decides():
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y, b: true}, then: q}\n"
                "- {id: rz, when: {a: z}, then: q}\n")
    c = check(text)
    d = only(c, "gap")
    assert d.witness == {"a": "y", "b": False}
    assert d.facts.region == {"a": ["y"], "b": [False]}
    assert d.span.line == line_of(text, "rules:")


def test_gaps_are_merged_into_maximal_regions():
    # Uncovered: a in [y, z] (any b) and a=x with b=false: two maximal cubes.
    text = mini("- {id: rx, when: {a: x, b: true}, then: p}\n")
    gaps = [d.facts.region for d in check(text).diagnostics if d.code == "gap"]
    assert sorted(gaps, key=str) == sorted([{"a": ["y", "z"]}, {"a": ["x"], "b": [False]}], key=str)


def test_overlap_under_unique_names_both_rules_and_the_input():
    text = mini(COMPLETE + "- {id: extra, when: {a: [y, z], b: true}, then: p}\n")
    first, second = [d for d in check(text).diagnostics if d.code == "overlap"]  # one finding per pair
    assert (first.rules, first.witness) == (("ry", "extra"), {"a": "y", "b": True})
    assert (second.rules, second.witness) == (("rz-t", "extra"), {"a": "z", "b": True})
    assert {k: getattr(first.facts, k) for k in ("first", "first_then", "rule", "then")} == {
        "first": "ry", "first_then": "q", "rule": "extra", "then": "p"}
    assert first.span.line == line_of(text, "id: extra")
    assert first.related[0].span.line == line_of(text, "id: ry")


def test_a_conflicting_pair_comes_before_a_harmless_overlap_and_both_are_said():
    text = mini(COMPLETE + "- {id: extra, when: {a: [x, y], b: true}, then: p}\n")
    conflict, alike = [d for d in check(text).diagnostics if d.code == "overlap"]
    assert conflict.rules == ("ry", "extra") and conflict.facts.problem == "conflict"
    assert alike.rules == ("rx", "extra") and (alike.facts.problem, alike.facts.same) == ("shared", True)


def test_first_policy_allows_overlap_but_reports_unreachable_rules():
    text = mini("- {id: xy, when: {a: [x, y]}, then: p}\n- {id: yz, when: {a: [y, z]}, then: q}\n"
                "- {id: dead, when: {a: [x, z]}, then: q}\n", hit_policy="first")
    c = check(text)
    d = only(c, "unreachable-rule")
    assert d.rules[0] == "dead" and set(d.rules[1:]) == {"xy", "yz"}
    assert "overlap" not in codes(c)


def test_redundant_rule_is_a_warning():
    text = mini("- {id: special, when: {a: x, b: true}, then: p}\n- {id: x-all, when: {a: x}, then: p}\n"
                "- {id: rest, when: {a: [y, z]}, then: q}\n", hit_policy="first")
    c = check(text)
    d = only(c, "redundant-rule")
    assert d.rules == ("special",) and d.severity.value == "warning"
    assert c.ok


def test_rule_that_changes_a_decision_is_not_redundant():
    text = mini("- {id: special, when: {a: x, b: true}, then: q}\n- {id: x-all, when: {a: x}, then: p}\n"
                "- {id: rest, when: {a: [y, z]}, then: q}\n", hit_policy="first")
    assert check(text).diagnostics == ()


def test_invariant_breach_names_rule_and_invariant_with_witness():
    text = mini(COMPLETE, extra="invariants:\n  - {id: q-needs-b, if: {output: q}, then: {b: true}}\n")
    found = [d for d in check(text).diagnostics if d.code == "invariant"]
    assert [d.rules for d in found] == [("ry", "q-needs-b")]
    assert found[0].witness == {"a": "y", "b": False}


def test_invariant_on_output():
    text = mini(COMPLETE, extra="invariants:\n  - {if: {a: z}, then: {output: p}}\n")
    d = only(check(text), "invariant")
    assert d.rules == ("rz-t", "invariant-1")


def test_failing_case_is_located_and_replayed():
    text = mini(COMPLETE, extra="cases:\n  - {given: {a: y}, expect: p}\n")
    d = only(check(text), "case-failed")
    assert d.span.line == line_of(text, "given")
    assert (d.facts.rule, d.got, d.expected) == ("ry", "q", "p")


def test_case_that_omits_an_input_must_hold_for_all_its_values():
    text = mini("- {id: xt, when: {a: x, b: true}, then: p}\n- {id: xf, when: {a: x, b: false}, then: q}\n"
                "- {id: rest, when: {a: [y, z]}, then: q}\n", extra="cases:\n  - {given: {a: x}, expect: p}\n")
    d = only(check(text), "case-failed")
    assert d.witness == {"a": "x", "b": False}


def test_empty_cell_and_full_domain_cell_lints():
    text = mini("- {id: never, when: {a: []}, then: p}\n- {id: all, when: {a: [x, y, z]}, then: q}\n",
                hit_policy="first")
    c = check(text)
    assert only(c, "empty-cell").severity.value == "error"
    assert only(c, "full-domain-cell").severity.value == "warning"
    assert "unreachable-rule" not in codes(c)


def test_value_no_rule_names_is_an_error_unless_the_input_allows_wildcards():
    rules = ("- {id: rx, when: {a: x, b: true}, then: p}\n- {id: rxf, when: {a: x, b: false}, then: q}\n"
             "- {id: rest, when: {a: {not: [x]}}, then: q}\n")
    strict = check(mini(rules))
    d = only(strict, "unnamed-value")
    assert d.severity.value == "error" and d.got == ["y", "z"] and d.rules == ("rest",)
    relaxed = check(mini(rules).replace("{values: [x, y, z]}", "{values: [x, y, z], wildcard: true}"))
    assert only(relaxed, "unnamed-value").severity.value == "note"
    assert relaxed.ok


def test_input_no_rule_names_is_reported_unused():
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: rest, when: {a: [y, z]}, then: q}\n")
    d = only(check(text), "unused-input")
    assert d.severity.value == "warning" and d.facts.input == "b"


def test_bool_input_named_only_once_is_fine():
    text = mini("- {id: special, when: {a: x, b: true}, then: q}\n- {id: x-all, when: {a: x}, then: p}\n"
                "- {id: rest, when: {a: [y, z]}, then: q}\n", hit_policy="first")
    assert check(text).diagnostics == ()


def test_every_reported_witness_replays_through_the_compiled_decision():
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y, b: true}, then: q}\n",
                extra="cases:\n  - {given: {a: y, b: true}, expect: p}\n")
    c = check(text)
    doc, _ = parse_document(text, "t.yaml")
    compiled = Diagram(build_parts(doc).table, Budget())
    assert {"gap", "case-failed"} <= set(codes(c))
    for d in c.diagnostics:
        if d.code == "gap":
            assert decide_facts(compiled, d.witness) is None
        if d.code == "case-failed":
            assert decide_facts(compiled, d.witness).rule_id == "ry"


def test_analysis_runs_no_self_check_in_production(monkeypatch):
    """Witness replay is the test suite's job (test_oracle); a load does not pay for it."""
    def refuse(self, read):
        raise AssertionError("the analysis replayed a witness")
    monkeypatch.setattr(Diagram, "walk", refuse)
    c = check(mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: [x, y]}, then: q}\n"))
    assert {"gap", "overlap"} <= set(codes(c))



def test_unknown_values_inputs_and_outputs_suggest_the_nearest_name():
    c = check(mini("- {id: rx, when: {a: X}, then: p}\n- {id: ry, when: {aa: y}, then: q}\n"
                   "- {id: rz, when: {a: z}, then: pp}\n"))
    near = {(d.code, d.got): getattr(d.facts, "suggestion", None) for d in c.diagnostics}
    assert near == {("unknown-value", "X"): "x", ("unknown-input", "aa"): "a", ("unknown-value", "pp"): "p"}
    assert {d.help for d in c.diagnostics} == {"did you mean 'x'?", "did you mean 'a'?", "did you mean 'p'?"}


def test_an_invariant_breach_says_what_the_invariant_requires_and_where_it_is(capsys):
    """One line: the rule, where it decides what, what the invariant requires; the
    invariant itself as a related location (in JSON and SARIF: tests/cli/test_formats.py)."""
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: [y, z]}, then: q}\n",
                extra="invariants:\n  - {id: never-q-on-z, if: {a: z}, then: {output: p}, why: \"z is\\nspecial\"}\n")
    d = only(check(text), "invariant")
    assert (d.facts.region, d.expected, d.got) == ({"a": ["z"]}, {"output": ["p"]}, {"output": "q"})
    assert d.message == ("rule 'ry' breaks invariant 'never-q-on-z': where a=z it decides 'q', but the invariant "
                         "requires output 'p' (z is special)")  # the words, once: how a breach reads
    assert d.related[0][:2] == ("invariant", "never-q-on-z")
    assert d.related[0].span.line == line_of(text, "never-q-on-z")
    assert f"= note: invariant 'never-q-on-z' is at t.yaml:{d.related[0].span.line}:" in str(d)


def test_an_overlap_names_the_conflicting_partner_first():
    """Three rules on a=x: the harmless overlap (same output) is not the one shown."""
    c = check(mini("- {id: r1, when: {a: x}, then: p}\n- {id: r2, when: {a: x, b: true}, then: q}\n"
                   "- {id: r3, when: {a: x}, then: p}\n- {id: rest, when: {a: [y, z]}, then: q}\n"))
    d = next(d for d in c.diagnostics if d.code == "overlap" and d.rules[1] == "r3")
    assert (d.facts.problem, d.facts.first_then, d.facts.then) == ("conflict", "q", "p")
    assert d.rules == ("r2", "r3") and d.witness == {"a": "x", "b": True}


def test_identical_rules_under_first_are_never_told_to_remove_each_other():
    """Findings about the same rules never contradict: the second is unreachable (hidden by
    the first alone), and the first is not 'redundant' (the rule that would take over is the
    unreachable one). Acting on every finding keeps the behaviour."""
    from swapool.table.check import check_bytes
    from swapool.table.enums import EnumPolicy

    from .. import hostile_families as families

    text = families.identical_rules(3000).replace("hit_policy: unique", "hit_policy: first")
    c = check_bytes(text, "t.yaml", enums=EnumPolicy(do_import=False))
    hidden = [d for d in c.diagnostics if d.code == "unreachable-rule"]
    assert len(hidden) == 2999 and all(d.rules == (d.rules[0], "r0") and d.facts.hiders == ["r0"] for d in hidden)
    assert [d.rules for d in c.diagnostics if d.code != "unreachable-rule"] == [("r0", "ry")]  # mergeable: a: -


def test_redundant_rules_are_judged_one_after_another_so_removing_all_named_is_safe():
    """a and b are each redundant alone (b takes over a's input, f takes over b's), but not
    together: without both, d decides a=x, b=true as q. Only one of them is named."""
    text = mini("- {id: ra, when: {a: x, b: true}, then: p}\n- {id: rb, when: {a: [x, y], b: true}, then: p}\n"
                "- {id: rd, when: {a: [x, z]}, then: q}\n- {id: rf, when: {a: y}, then: p}\n", hit_policy="first")
    c = check(text)
    assert [d.rules for d in c.diagnostics if d.code == "redundant-rule"] == [("ra",)]


def test_any_allows_overlaps_that_decide_alike_and_names_the_ones_that_do_not():
    alike = check(mini("- {id: xy, when: {a: [x, y]}, then: p}\n- {id: yz, when: {a: [y, z]}, then: p}\n",
                       hit_policy="any"))
    assert alike.ok and "overlap" not in codes(alike)
    differ = check(mini("- {id: xy, when: {a: [x, y]}, then: p}\n- {id: yz, when: {a: [y, z]}, then: q}\n",
                        hit_policy="any"))
    d = only(differ, "overlap")
    assert (d.rules, d.witness) == (("xy", "yz"), {"a": "y", "b": False})
    copy = check(mini("- {id: all, then: p}\n- {id: again, when: {a: x}, then: p}\n", hit_policy="any"))
    d = only(copy, "redundant-rule")  # hidden by an earlier rule, which under any is no error
    assert (d.rules, d.facts.problem) == (("again",), "others") and "unreachable-rule" not in codes(copy)


def test_priority_decides_by_the_outputs_order_and_names_the_rules_it_masks():
    text = mini("- {id: low, when: {a: [x, y]}, then: q}\n- {id: high, when: {a: [y, z]}, then: p}\n"
                "- {id: masked, when: {a: z}, then: q}\n", hit_policy="priority")  # outputs: [p, q]
    c = check(text)
    diagram = Diagram(build_parts(parse_document(text, "t.yaml")[0]).table, Budget())
    assert decide_facts(diagram, {"a": "y", "b": True}).rule_id == "high"  # q is listed after p
    assert decide_facts(diagram, {"a": "x", "b": True}).rule_id == "low"
    d = only(c, "unreachable-rule")
    assert (d.rules, d.facts.problem, d.facts.hiders) == (("masked", "high"), "priority", ["high"])
    assert "of higher or equal priority" in d.message


def test_rules_that_differ_in_one_cell_and_decide_alike_are_offered_as_one():
    text = mini("- {id: xt, when: {a: x, b: true}, then: p}\n- {id: yt, when: {a: y, b: true}, then: p}\n"
                "- {id: rest, when: {a: z}, then: q}\n- {id: idle, when: {a: [x, y], b: false}, then: q}\n")
    d = only(check(text), "mergeable-rules")
    assert d.severity.value == "note" and d.rules == ("xt", "yt") and d.facts.input == "a"
    assert d.facts.merged == {"id": "xt", "when": {"a": ["x", "y"], "b": True}, "then": "p"}


def test_rules_each_taken_by_an_earlier_merge_are_left_alone():
    """r1+r2 merge over p and r3+r4 over q; r2+r3 could merge over r, but both are taken.
    (Found by benchmarks/load_scaling.py: an IndexError on a valid 1,000-rule table.)"""
    text = """\
format: 1
decision: d
hit_policy: unique
inputs:
  p: {values: [a, b]}
  q: {values: [s, t]}
  r: {values: [m, n]}
output: {values: [o, z]}
rules:
  - {id: r1, when: {p: a, q: s, r: m}, then: o}
  - {id: r2, when: {p: b, q: s, r: m}, then: o}
  - {id: r3, when: {p: b, q: s, r: n}, then: o}
  - {id: r4, when: {p: b, q: t, r: n}, then: o}
  - {id: rest, when: {p: a, q: t}, then: z}
  - {id: rest2, when: {p: a, q: s, r: n}, then: z}
  - {id: rest3, when: {p: b, q: t, r: m}, then: z}
"""
    merges = [d.rules for d in check(text).diagnostics if d.code == "mergeable-rules"]
    assert merges == [("r1", "r2"), ("r3", "r4")]


def test_a_two_by_two_grid_deciding_alike_is_two_merges_not_a_crash():
    """Hardening IV: the four rules of a 2x2 grid merge pairwise over the first input; the
    groups over the second then hold only taken rules."""
    text = mini("- {id: xt, when: {a: x, b: true}, then: p}\n- {id: yt, when: {a: y, b: true}, then: p}\n"
                "- {id: xf, when: {a: x, b: false}, then: p}\n- {id: yf, when: {a: y, b: false}, then: p}\n"
                "- {id: rest, when: {a: z}, then: q}\n")
    merges = [d.rules for d in check(text).diagnostics if d.code == "mergeable-rules"]
    assert merges == [("xt", "yt"), ("xf", "yf")]


def test_under_first_a_rule_between_that_decides_otherwise_keeps_a_merge_out():
    """Moving yt up into xt would take a=y, b=true from mid, which decides q."""
    text = mini("- {id: xt, when: {a: x, b: true}, then: p}\n- {id: mid, when: {a: y}, then: q}\n"
                "- {id: yt, when: {a: y, b: true}, then: p}\n- {id: rest, then: q}\n", hit_policy="first")
    assert "mergeable-rules" not in codes(check(text))
    assert "mergeable-rules" in codes(check(text.replace("{id: mid, when: {a: y}", "{id: mid, when: {a: z}")))


def test_a_misspelt_value_in_one_rule_does_not_hide_a_gap_elsewhere():
    """The rule that failed to build is left out, the rest is analysed, and says so."""
    text = mini("- {id: bad, when: {a: xx}, then: p}\n- {id: ry, when: {a: y}, then: q}\n"
                "- {id: zt, when: {a: z, b: true}, then: q}\n")
    c = check(text)
    assert c.table is None and not c.ok
    partial = only(c, "analysis-partial")
    assert (partial.facts.rules_left_out, partial.severity.value) == (["bad"], "note")
    gaps = [d for d in c.diagnostics if d.code == "gap"]
    assert {str(g.facts.region) for g in gaps} == {str({"a": ["x"]}), str({"a": ["z"], "b": [False]})}
    assert all(g.partial for g in gaps) and "= note: partial" in str(gaps[0])
    assert not only(c, "unknown-value").partial  # what failed to build is no guess


def test_no_partial_analysis_when_an_input_or_the_output_fails_to_build():
    text = mini("- {id: ry, when: {a: y}, then: q}\n").replace("output: {values: [p, q]}", "output: {values: [p, p]}")
    assert "analysis-partial" not in codes(check(text)) and "gap" not in codes(check(text))


INVARIANTS = ("invariants:\n  - {id: z-is-q, if: {a: z}, then: {output: q}}\n")


def test_a_gaps_help_proposes_only_the_outputs_the_invariants_allow():
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y}, then: q}\n", extra=INVARIANTS)
    d = only(check(text), "gap")
    assert d.facts.outputs == ["q"] and d.facts.forbidden == {"p": "invariant 'z-is-q'"}
    assert "with TODO one of: q " in d.help and "ruled out: 'p' (invariant 'z-is-q')" in d.help


def test_a_gap_no_output_may_close_says_so():
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y}, then: q}\n",
                extra=INVARIANTS + "  - {id: z-is-p, if: {a: z}, then: {output: p}}\n")
    d = only(check(text), "gap")
    assert d.facts.outputs == [] and "TODO" not in d.help and d.help.startswith("no output is allowed there: 'p' (")


def test_a_case_whose_expectation_an_invariant_forbids_is_reported_at_expect_naming_the_invariant():
    text = mini("- {id: rxy, when: {a: [x, y]}, then: p}\n- {id: rz, when: {a: z}, then: q}\n",
                extra=INVARIANTS + "cases:\n  - {given: {a: z, b: true}, expect: p}\n")
    d = only(check(text), "case-failed")
    line = text.splitlines()[d.span.line - 1]
    assert line[d.span.column - 1:].startswith("p}") and d.facts.invariant == "z-is-q"
    assert [r.name for r in d.related] == ["z-is-q"] and d.help.startswith("the case is wrong: invariant 'z-is-q'")
    plain = only(check(text.replace("expect: p}", "expect: q}").replace("then: q}", "then: p}")), "case-failed")
    assert plain.facts.invariant is None and plain.help.startswith("fix the rule if the case is right")


def test_an_overlapping_rule_is_judged_alone_so_the_invariant_it_breaks_shows_with_the_overlap():
    """unique: the new rule overlaps an earlier one and breaks an invariant; the first run
    names both, so following the overlap's help is not the author's only next step."""
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ryz, when: {a: [y, z]}, then: q}\n"
                "- {id: new, when: {a: z, b: true}, then: p}\n", extra=INVARIANTS)
    found = codes(check(text))
    assert "overlap" in found and "invariant" in found, found
    d = only(check(text), "invariant")
    assert d.facts.rule == "new" and d.facts.invariant == "z-is-q"
    first = check(text.replace("hit_policy: unique", "hit_policy: first"))  # first: the earlier rule decides
    assert "invariant" not in codes(first)


def test_a_deleted_rule_is_one_gap_whose_fix_names_the_values_not_a_wildcard_warning_first():
    """The values only the deleted rule named are the gap's to report: its closing rule names
    them; 'set wildcard: true' (unnamed-value's help) would be the wrong fix."""
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: rest, when: {a: {not: [x]}, b: true}, then: q}\n"
                "- {id: yf, when: {a: y, b: false}, then: q}\n")
    assert codes(check(text)) == ["gap"], [str(d) for d in check(text).diagnostics]
    assert "when: {a: z, b: false}" in only(check(text), "gap").help
    named_nowhere = mini("- {id: rx, when: {a: x}, then: p}\n- {id: rest, when: {a: {not: [x]}}, then: q}\n")
    assert "unnamed-value" in codes(check(named_nowhere))  # no gap: the wildcard is the finding


def test_a_gaps_help_leaves_out_the_pools_the_swa_contract_refuses(tmp_path):
    """A swa_kv_pool table without invariants: 'active' where the own pool is not SWA would
    be an unsafe-pool error once pasted, so the gap does not propose it."""
    from swapool.swa.contract import CONTRACTS
    from swapool.table.check import check_bytes
    from swapool.table.enums import EnumPolicy

    text = ("format: 1\ndecision: swa_kv_pool\nhit_policy: unique\ninputs:\n  active_pool: {values: [swa, other]}\n"
            "output: {values: [active, none]}\nrules:\n  - {id: a, when: {active_pool: swa}, then: active}\n")
    d = only(check_bytes(text, "t.yaml", enums=EnumPolicy(do_import=False), contracts=CONTRACTS), "gap")
    assert d.facts.outputs == ["none"] and "active_pool=swa" in d.facts.forbidden["active"]
    assert "with TODO one of: none " in d.help


def test_judging_redundant_rules_never_spends_the_analysis_s_own_budget(monkeypatch):
    """The one-at-a-time fallback re-analyses the table up to 64 times; out of the shared
    budget it refused tables whose analysis fits. With its own budget spent, the rules not yet
    judged are simply not named."""
    from swapool.table import analysis
    from swapool.table.partition import Budget

    real = analysis._removable_together

    def costly(first, cubes, outputs, region, budget, never, gone):
        budget.spend(budget.limit // 2, "judging redundant rules")  # two calls exhaust any budget
        return real(first, cubes, outputs, region, budget, never, gone)

    monkeypatch.setattr(analysis, "_removable_together", costly)
    calls = []
    monkeypatch.setattr(analysis, "_removable_together", lambda *a: calls.append(1) or costly(*a))
    # r1, r2 and r3 each decide nothing the later rules do not, alike; not all three can go
    table = check(mini("- {id: r1, when: {a: x}, then: p}\n- {id: r2, when: {b: true}, then: p}\n"
                       "- {id: r3, when: {a: [x, y], b: false}, then: p}\n- {id: r4, when: {a: [y, z]}, then: p}\n",
                       hit_policy="any")).table
    budget = Budget(10_000)
    done = analysis.analyse(table, budget)
    assert calls and "analysis-budget" not in {d.code for d in done.findings}, [str(d) for d in done.findings]
    assert budget.used < 10_000
