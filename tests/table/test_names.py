"""Names no engine could send: whitespace around a value is an error where it is written; a
value in another case than the rest of its input is a warning (so --strict fails)."""

from __future__ import annotations

import pytest

from swapool.cli import main

from ..helpers import check, codes, line_of, only

HEAD = "format: 1\ndecision: d\nhit_policy: unique\ninputs:\n  algo: {sets: {own: [NONE, EAGLE, %s], reads: [FROZEN]}}\n" \
       "output: {values: [p, q]}\nrules:\n  - {id: o, when: {algo: {in: own}}, then: p}\n" \
       "  - {id: r, when: {algo: {in: reads}}, then: q}\n"


@pytest.mark.parametrize("written", ['"MEDUSA "', '" MEDUSA"', '"MEDUSA\\t"'])
def test_whitespace_around_a_value_is_an_error_at_the_value(written):
    text = HEAD % written
    d = only(check(text), "schema")
    line = line_of(text, "MEDUSA")
    assert (d.span.line, d.span.column) == (line, text.splitlines()[line - 1].index(written) + 1)
    assert "whitespace around it" in d.message and d.help == 'write it "MEDUSA"'


def test_a_value_in_another_case_than_its_input_is_a_warning_at_the_value(write, capsys):
    text = HEAD % "medusa"
    d = only(check(text), "value-case")
    assert (d.got, d.expected, d.facts.convention) == ("medusa", "MEDUSA", "upper")
    assert (d.span.line, d.span.column) == (line_of(text, "medusa"), text.splitlines()[4].index("medusa") + 1)
    path = str(write(text))
    assert main(["validate", path]) == 0 and main(["validate", "--strict", path]) == 1
    assert "write it 'MEDUSA'" in capsys.readouterr().out


@pytest.mark.parametrize("values", ["[a, B]", "[x, y, Z, W]", "[NONE, EAGLE, Eagle, eagle]", "[x1, '2', Y]"])
def test_no_convention_no_warning(values):
    text = (f"format: 1\ndecision: d\nhit_policy: unique\ninputs:\n  a: {{values: {values}}}\n"
            "output: {values: [p]}\nrules:\n  - {id: r, then: p}\n")
    assert "value-case" not in codes(check(text)), [str(d) for d in check(text).diagnostics]


def test_an_imported_input_is_judged_where_its_values_are_listed(tmp_path):
    (tmp_path / "base.yaml").write_text(HEAD % "medusa")
    text = ("format: 1\ndecision: d\nhit_policy: unique\ninputs:\n  algo: {from: base.yaml}\n"
            "output: {values: [p]}\nrules:\n  - {id: r, then: p}\n")
    assert "value-case" not in codes(check(text, folder=tmp_path))
