"""Named value sets: an input's sets are its domain, `{in: set}` cells and cases, written back as sets."""

from __future__ import annotations
import textwrap
from swapool import load_policy
from ..helpers import check, codes, line_of, only


SETS = """\
format: 1
decision: demo
hit_policy: unique
inputs:
  a:
    sets:
      low: [x, y]
      high: [z]
  b: {type: bool}
output: {values: [p, q]}
"""



def sets_table(rules: str, extra: str = "") -> str:
    return SETS + "rules:\n" + textwrap.indent(textwrap.dedent(rules), "  ") + extra



def test_the_sets_are_the_domain_and_a_set_cell_matches_its_members():
    c = check(sets_table("- {id: lo, when: {a: {in: low}}, then: p}\n- {id: hi, when: {a: {in: high}}, then: q}\n"))
    assert c.ok, [str(d) for d in c.diagnostics]
    a = c.table.inputs[0]
    assert a.values == ("x", "y", "z") and a.set_masks == {"low": 0b011, "high": 0b100}
    assert [r.cells[0].mask for r in c.table.rules] == [0b011, 0b100]



def test_a_list_of_sets_is_their_union_and_counts_as_naming_each_member():
    c = check(sets_table("- {id: all, when: {a: {in: [low, high]}, b: true}, then: p}\n"
                         "- {id: rest, when: {b: false}, then: q}\n"))
    assert c.ok and c.table.rules[0].cells[0].mask == 0b111
    assert "unnamed-value" not in codes(c)



def test_an_unknown_set_is_named_at_its_position_with_a_suggestion():
    text = sets_table("- {id: lo, when: {a: {in: lwo}}, then: p}\n- {id: hi, when: {a: {in: high}}, then: q}\n")
    d = only(check(text), "unknown-set")
    assert (d.facts.input, d.expected, d.facts.suggestion) == ("a", ["low", "high"], "low")
    assert d.help == "did you mean 'low'?" and (d.span.line, d.got) == (line_of(text, "lwo"), "lwo")
    assert d.span.column == text.splitlines()[d.span.line - 1].index("lwo") + 1



def test_a_set_cell_on_an_input_without_sets_says_where_to_declare_them():
    text = sets_table("- {id: lo, when: {a: {in: low}, b: {in: yes_ones}}, then: p}\n"
                      "- {id: hi, when: {a: {in: high}}, then: q}\n")
    d = only(check(text), "unknown-set")
    assert (d.facts.input, d.expected) == ("b", []) and d.help == "declare it under inputs: b: sets:"



def test_set_members_must_be_values_when_values_are_listed():
    text = SETS.replace("    sets:\n", "    values: [x, y, z]\n    sets:\n").replace("high: [z]", "high: [zz]")
    d = only(check(text + "rules:\n  - {id: r, then: p}\n"), "unknown-value")
    assert (d.got, d.facts.input, d.facts.suggestion) == ("zz", "a", "z")
    assert d.span.line == line_of(text, "high: [zz]")



def test_a_value_listed_twice_in_a_set_is_a_duplicate():
    text = SETS.replace("low: [x, y]", "low: [x, y, x]") + "rules:\n  - {id: r, then: p}\n"
    assert "duplicate-value" in codes(check(text))



def test_a_value_in_two_sets_that_make_the_values_is_one_error_at_the_second_listing():
    text = SETS.replace("high: [z]", "high: [z, x]")
    c = check(text + "rules:\n  - {id: lo, when: {a: {in: low}}, then: p}\n  - {id: hi, when: {a: {in: high}}, then: q}\n")
    assert codes(c) == ["duplicate-value"], [str(d) for d in c.diagnostics]
    d = c.diagnostics[0]
    assert (d.got, d.facts.set, d.facts.first_set) == ("x", "high", "low")
    assert (d.span.line, d.span.column) == (line_of(text, "high: [z, x]"), len("      high: [z, ") + 1)
    assert "keep 'x' in the one set" in d.help and "hit_policy" not in d.help



def test_sets_beside_listed_values_are_groups_that_may_share_values():
    text = SETS.replace("    sets:\n", "    values: [x, y, z]\n    sets:\n").replace("high: [z]", "high: [z, x]")
    c = check(text + "rules:\n  - {id: r, then: p}\n")
    assert "duplicate-value" not in codes(c), [str(d) for d in c.diagnostics]



def test_a_case_over_a_set_checks_every_member_and_the_witness_names_the_one_that_fails():
    rules = "- {id: xy, when: {a: [x, y]}, then: p}\n- {id: z, when: {a: z}, then: q}\n"
    good = check(sets_table(rules, "cases:\n  - {given: {a: {in: low}}, expect: p}\n"))
    assert good.ok
    bad = check(sets_table(rules.replace("[x, y]", "x").replace("a: z}", "a: [y, z]}"),
                           "cases:\n  - {given: {a: {in: low}}, expect: p}\n"))
    d = only(bad, "case-failed")
    assert d.witness["a"] == "y"



def test_sets_are_written_back_as_sets():
    from swapool.table.emit import rule_data

    c = check(sets_table("- {id: lo, when: {a: {in: low}}, then: p}\n- {id: hi, when: {a: {in: high}}, then: q}\n"))
    assert rule_data(c.table, c.table.rules[0])["when"] == {"a": {"in": "low"}}



def test_a_restricted_view_keeps_each_case_set_on_its_own_input():
    """Fixing an input drops it from every case's sets too, so each `{in: ...}` stays
    under the input it was written for."""
    from ..helpers import SHIPPED

    places = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False).table
    view = places.restricted("backend", "flashinfer")
    written = [c for c in view.cases if any(c.sets)]
    assert written and all(len(c.sets) == len(view.inputs) for c in view.cases if c.sets)
    for case in written:  # each set named is one of its own input's, inside what the case covers there
        for k, (inp, names) in enumerate(zip(view.inputs, case.sets)):
            own = dict(inp.sets)
            assert all(name in own and own[name] & ~case.region[k] == 0 for name in names), (case, inp.name)
