"""Semantic errors found while resolving the document into a table."""

from .helpers import check, line_of, mini, only


def test_unknown_value_in_a_cell_is_located():
    text = mini("- {id: r1, when: {a: w}, then: p}\n")
    d = only(check(text), "unknown-value")
    assert (d.facts["problem"], d.got, d.facts["input"], d.expected) == ("input", "w", "a", ("x", "y", "z"))
    assert d.span.line == line_of(text, "id: r1")


def test_unknown_value_in_a_list_cell_points_at_the_item():
    text = mini("- id: r1\n  when:\n    a: [x,\n        w]\n  then: p\n")
    d = only(check(text), "unknown-value")
    line = line_of(text, "w]")
    assert (d.span.line, d.span.column) == (line, text.splitlines()[line - 1].index("w") + 1)


def test_boolean_where_a_string_is_expected_gets_quoting_help():
    text = mini("- {id: r1, when: {a: yes}, then: p}\n")
    assert only(check(text), "unknown-value").facts["hint"] == "yaml-bool"


def test_unknown_output_value():
    text = mini("- {id: r1, then: maybe}\n")
    assert only(check(text), "unknown-value").facts["problem"] == "output"


def test_unknown_input_name():
    text = mini("- {id: r1, when: {c: x}, then: p}\n")
    d = only(check(text), "unknown-input")
    assert d.span.line == line_of(text, "id: r1")


def test_duplicate_rule_id_names_the_first():
    text = mini("- {id: r1, when: {a: x}, then: p}\n- {id: r1, when: {a: [y, z]}, then: q}\n")
    d = only(check(text), "duplicate-rule-id")
    assert d.span.line == line_of(text, "a: [y, z]")
    assert (d.got, d.facts["first_line"]) == ("r1", line_of(text, "a: x"))


def test_duplicate_domain_value():
    text = mini("- {id: r1, then: p}\n").replace("[x, y, z]", "[x, y, x]")
    assert only(check(text), "duplicate-value").span.line == line_of(text, "a: {values")


def test_unknown_values_in_cases_and_invariants():
    text = mini("- {id: r1, then: p}\n", extra=(
        "cases:\n  - {given: {a: w}, expect: p}\n"
        "invariants:\n  - {if: {output: r}, then: {a: x}}\n"))
    found = [d for d in check(text).diagnostics if d.code == "unknown-value"]
    assert sorted(d.span.line for d in found) == [line_of(text, "given"), line_of(text, "output: r")]


def test_a_broken_table_is_not_built():
    assert check(mini("- {id: r1, then: maybe}\n")).table is None
