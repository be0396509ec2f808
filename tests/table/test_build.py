"""Semantic errors found while resolving the document into a table."""

from .. import hostile_families as families
from ..helpers import check, line_of, mini, only


def test_unknown_value_in_a_cell_is_located():
    text = mini("- {id: r1, when: {a: w}, then: p}\n")
    d = only(check(text), "unknown-value")
    assert (d.facts.problem, d.got, d.facts.input, d.expected) == ("input", "w", "a", ("x", "y", "z"))
    assert d.span.line == line_of(text, "id: r1")


def test_unknown_value_in_a_list_cell_points_at_the_item():
    text = mini("- id: r1\n  when:\n    a: [x,\n        w]\n  then: p\n")
    d = only(check(text), "unknown-value")
    line = line_of(text, "w]")
    assert (d.span.line, d.span.column) == (line, text.splitlines()[line - 1].index("w") + 1)


def test_boolean_where_a_string_is_expected_gets_quoting_help():
    text = mini("- {id: r1, when: {a: yes}, then: p}\n")
    assert only(check(text), "unknown-value").facts.hint == "yaml-bool"


def test_unknown_output_value():
    text = mini("- {id: r1, then: maybe}\n")
    assert only(check(text), "unknown-value").facts.problem == "output"


def test_unknown_input_name():
    text = mini("- {id: r1, when: {c: x}, then: p}\n")
    d = only(check(text), "unknown-input")
    assert d.span.line == line_of(text, "id: r1")


def test_duplicate_rule_id_names_the_first():
    text = mini("- {id: r1, when: {a: x}, then: p}\n- {id: r1, when: {a: [y, z]}, then: q}\n")
    d = only(check(text), "duplicate-rule-id")
    assert d.span.line == line_of(text, "a: [y, z]")
    assert (d.got, d.facts.first_line) == ("r1", line_of(text, "a: x"))


def test_duplicate_domain_value():
    text = mini("- {id: r1, then: p}\n").replace("[x, y, z]", "[x, y, x]")
    assert only(check(text), "duplicate-value").span.line == line_of(text, "a: {values")


def test_unknown_values_in_cases_and_invariants():
    text = mini("- {id: r1, then: p}\n", extra=(
        "cases:\n  - {given: {a: w}, expect: p}\ninvariants:\n  - {if: {output: r}, then: {a: x}}\n"))
    found = [d for d in check(text).diagnostics if d.code == "unknown-value"]
    assert sorted(d.span.line for d in found) == [line_of(text, "given"), line_of(text, "output: r")]


def test_a_broken_table_is_not_built():
    assert check(mini("- {id: r1, then: maybe}\n")).table is None


def test_a_table_too_large_for_the_model_is_refused_before_it_is_built():
    c = check(families.chain(1500))
    assert [d.code for d in c.diagnostics] == ["analysis-budget"] and c.diagnostics[0].facts.problem == "cells"



def test_an_input_with_many_values_is_linear_and_its_finding_is_short():
    c = check(families.wide_input(50_000))
    d = next(d for d in c.diagnostics if d.code == "unnamed-value")
    assert "and 49,991 more" in d.message and len(d.message) < 300



def test_an_input_named_output_is_refused():
    c = check(mini("- {id: r, then: p}\n").replace("  b: {type: bool}\n", "  output: {type: bool}\n"))
    assert "reserved-name" in [d.code for d in c.diagnostics]



def test_did_you_mean_works_on_a_budget_per_check(monkeypatch):
    """Counted: the choices difflib compares words with, for 300 misspelt values over a
    200-value domain (without a budget: 60,000); a repeated misspelling is remembered."""
    import difflib

    compared = [0]
    real = difflib.get_close_matches

    def counted(word, possibilities, *args, **kwargs):
        compared[0] += len(possibilities)
        return real(word, possibilities, *args, **kwargs)
    monkeypatch.setattr(difflib, "get_close_matches", counted)
    checked = check(families.misspelt_values(300, 200))
    assert [d.code for d in checked.diagnostics] == ["unknown-value"] * 300
    assert compared[0] <= 10_000, compared[0]
    assert checked.diagnostics[0].facts.suggestion == "value0"
    compared[0] = 0
    checked = check(families.misspelt_values(300, 1))
    assert compared[0] == 1 and all(d.facts.suggestion == "value0" for d in checked.diagnostics)
