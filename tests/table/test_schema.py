"""The JSON Schema is the format's contract; its errors point at the offending YAML."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from swapool.table.generated import schema_check
from swapool.table.schema import table_schema

from .. import hostile_families as families
from ..helpers import SHIPPED, check, line_of, mini, only, shipped_data
from ..suites.test_hostile import SHIPPED_PATHS, yaml_values

# Keywords draft-07 editor tooling (yaml-language-server) understands.
DRAFT7_KEYWORDS = {
    "$schema", "$id", "$ref", "title", "description", "type", "properties", "required",
    "additionalProperties", "items", "enum", "const", "oneOf", "anyOf", "not", "minItems",
    "minLength", "minProperties", "pattern", "propertyNames", "definitions",
}


def keywords(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            out.add(k)
            if k in ("properties", "definitions"):
                for sub in v.values():
                    keywords(sub, out)
            else:
                keywords(v, out)
    elif isinstance(node, list):
        for v in node:
            keywords(v, out)
    return out


def test_schema_is_valid_2020_12_and_draft_07():
    jsonschema.Draft202012Validator.check_schema(table_schema())
    jsonschema.Draft7Validator.check_schema(table_schema())


def test_schema_uses_only_draft_07_keywords():
    used = keywords(table_schema(), set())
    assert used - DRAFT7_KEYWORDS - {"values", "format", "decision", "hit_policy", "inputs", "output",
                                     "invariants", "rules", "cases", "identifier", "rule_id", "literal",
                                     "domain", "input", "cell", "condition", "rule", "invariant", "case",
                                     "enum", "wildcard", "id", "when", "then", "why", "if", "given",
                                     "expect"} == set()


def test_shipped_table_validates_under_draft_07_too():
    import yaml
    jsonschema.Draft7Validator(table_schema()).validate(yaml.safe_load(SHIPPED.read_text()))


def test_shipped_table_has_the_modeline():
    first = SHIPPED.read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/decision-table.schema.json"


def test_unknown_top_level_key_points_at_the_key():
    text = mini("- {id: r, then: p}\n") + "colour: blue\n"
    d = only(check(text), "schema")
    assert (d.facts.problem, d.got) == ("unknown-key", "colour")
    assert d.span.line == line_of(text, "colour:")


def test_missing_required_key():
    text = mini("- {id: r, then: p}\n").replace("hit_policy: unique\n", "")
    d = only(check(text), "schema")
    assert (d.facts.problem, d.expected) == ("missing-key", ["hit_policy"]) and d.span.line == 1


def test_wrong_type_names_expected_and_got():
    text = mini("- {id: r, when: {a: x}, then: [p]}\n")
    d = only(check(text), "schema")
    assert (d.expected, d.got) == ("string", "list")
    assert d.span.line == line_of(text, "id: r")


def test_bad_cell_explains_the_cell_forms():
    text = mini("- {id: r, when: {a: 3}, then: p}\n")
    d = only(check(text), "schema")
    assert d.facts.problem == "cell-form" and d.keyword == "anyOf" and d.got == "integer"


def test_mapping_cell_with_a_wrong_key_names_the_key_at_its_position():
    """Read from jsonschema's structured context errors, not its prose."""
    text = mini("- {id: r, when: {a: {only: x}}, then: p}\n")
    d = only(check(text), "schema")
    assert (d.facts.problem, d.got, d.expected) == ("cell-key", "only", ["not", "in"])
    assert (d.keyword, d.expected, d.got) == ("additionalProperties", ["not", "in"], "only")
    assert d.span.column == text.splitlines()[d.span.line - 1].index("only") + 1


def test_list_cell_holding_a_number_points_at_the_number():
    text = mini("- {id: r, when: {a: [x, 3]}, then: p}\n")
    d = only(check(text), "schema")
    assert (d.facts.path, d.facts.item, d.expected, d.got, d.facts.value) == (
        ["rules", 0, "when", "a", 1], "r", "string or boolean", "integer", 3)


def test_missing_key_is_read_from_the_error_fields_not_its_message():
    d = only(check(mini("- {id: r, when: {a: x}}\n")), "schema")
    assert (d.facts.problem, d.expected) == ("missing-key", ["then"])
    assert d.keyword == "required" and d.expected == ["then"]


def test_input_needs_values_or_type():
    text = mini("- {id: r, then: p}\n").replace("b: {type: bool}", "b: {description: nothing}")
    d = only(check(text), "schema")
    assert (d.facts.problem, d.facts.input, d.facts.given) == ("domain", "b", [])
    assert d.span.line == line_of(text, "b: {description")


@pytest.mark.parametrize("key, value", [("format", "2"), ("hit_policy", "collect")])
def test_constant_and_enum_keys(key, value):
    text = mini("- {id: r, then: p}\n")
    text = "\n".join(f"{key}: {value}" if line.startswith(f"{key}:") else line for line in text.splitlines())
    d = only(check(text + "\n"), "schema")
    assert d.span.line == line_of(text, f"{key}:")


def test_all_schema_errors_are_reported_not_only_the_first():
    text = mini("- {id: r, then: 1}\n- {id: 's s', then: p}\n") + "extra: 1\n"
    assert len([d for d in check(text).diagnostics if d.code == "schema"]) == 3


def test_schema_file_is_plain_json():
    from swapool.table.shipped import schema_path
    assert json.loads(schema_path().read_text())["$schema"].endswith("2020-12/schema")


# --- the compiled fast path agrees with jsonschema -------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def test_the_compiled_check_is_generated_from_the_current_schema():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_schema_check.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def fast_verdict(data) -> bool:
    try:
        schema_check.validate(data)
        return True
    except schema_check.SchemaMismatch:
        return False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SHIPPED_PATHS), yaml_values, st.booleans())
def test_the_compiled_check_and_jsonschema_give_the_same_verdict(path, value, delete):
    """Documents one edit away from a valid table: replace a node, or delete a key."""
    data = shipped_data()
    node = data
    for key in path[:-1]:
        node = node[key]
    if delete and isinstance(node, dict):
        del node[path[-1]]
    else:
        node[path[-1]] = value
    assert fast_verdict(data) == Draft202012Validator(table_schema()).is_valid(data)


def test_trailing_newlines_are_refused_by_both_paths():
    data = shipped_data()
    data["rules"][0]["id"] = "active-pool-is-swa\n"
    assert not fast_verdict(data) and not Draft202012Validator(table_schema()).is_valid(data)


def test_validate_imports_jsonschema_only_to_explain_a_failure(tmp_path):
    code = ("import sys; from swapool.cli import main; rc = main(['validate', '-q', '--no-enum-import', sys.argv[1]]);"
            " print('jsonschema' in sys.modules)")
    ok = subprocess.run([sys.executable, "-c", code, str(ROOT / "policies" / "swa.yaml")], capture_output=True,
                        text=True)
    assert ok.stdout.strip() == "False", ok.stdout + ok.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 2\n")
    failed = subprocess.run([sys.executable, "-c", code, str(bad)], capture_output=True, text=True)
    assert failed.stdout.strip().endswith("True"), failed.stdout + failed.stderr



def test_a_typo_of_a_required_key_is_one_finding_with_a_suggestion_naming_the_rule_by_id():
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: [y, z]}, than: p}\n")
    (d,) = check(text).diagnostics
    assert (d.got, d.expected, d.facts.item, d.facts.suggestion) == ("than", ["id", "when", "then", "why"],
                                                                          "ry", "then")
    assert d.span.line == line_of(text, "than")


def test_a_misspelt_keyword_value_gets_a_suggestion():
    d = only(check(mini("- {id: r, when: {a: '-'}, then: p}", hit_policy="uniqe")), "schema")
    assert (d.keyword, d.got, d.facts.suggestion) == ("enum", "uniqe", "unique")


def test_identifiers_refuse_a_trailing_newline():
    c = check(mini("- {id: \"rx\\n\", when: {a: x}, then: p}\n- {id: r, when: {a: [y, z]}, then: q}\n"))
    assert [(d.code, d.got) for d in c.diagnostics] == [("schema", "rx\n")]
    assert "\\n" in str(c.diagnostics[0])  # shown as an escape, never as a line break



@pytest.mark.parametrize("a, out", [("{values: [x, '-', z]}", "[p, q]"), ("{values: [x, y]}", "[p, '-']"),
                                    ("{sets: {odd: [x, '-']}}", "[p, q]")])
def test_the_any_cell_cannot_be_declared_as_a_value(a, out):
    """'-' in a cell always means any value, so a value named '-' could never be chosen alone."""
    checked = check(f"format: 1\ndecision: demo\nhit_policy: first\ninputs:\n  a: {a}\n"
                    f"output: {{values: {out}}}\nrules:\n- {{id: r, when: {{a: '-'}}, then: p}}\n")
    errors = [d for d in checked.diagnostics if d.severity.name == "ERROR"]
    assert checked.table is None and errors, [str(d) for d in checked.diagnostics]
    assert all(d.got == "-" for d in errors), [str(d) for d in errors]



def test_pairing_missing_keys_with_their_typos_is_linear_in_the_errors(monkeypatch):
    """Counted, not timed: how often an error's place is read while pairing a missing `id`
    with the unknown `idd` beside it, for 400 rules (quadratic was ~ 400 x 800)."""
    import jsonschema

    reads = [0]
    real = jsonschema.ValidationError.absolute_path

    def counted(self):
        reads[0] += 1
        return real.fget(self)
    monkeypatch.setattr(jsonschema.ValidationError, "absolute_path", property(counted))
    checked = check(families.misspelt_keys(400))
    assert [d.code for d in checked.diagnostics] == ["schema"] * 400
    assert all(d.facts.suggestion == "id" for d in checked.diagnostics)
    assert reads[0] <= 10 * 800, reads[0]


def test_a_key_indented_under_its_sibling_is_named_where_it_is_written():
    """`then:` under `when:`: not 'rule r is missing then' at the rule, but the misplaced key."""
    text = ("format: 1\ndecision: d\nhit_policy: unique\ninputs:\n  a: {values: [x, y]}\noutput: {values: [p]}\n"
            "rules:\n  - id: r\n    when:\n      a: [x, y]\n      then: p\n")
    d = only(check(text), "schema")
    assert (d.span.line, d.span.column) == (11, 7) and "'then' is written inside 'when'" in d.message
    assert d.help == "indent 'then' as 'when' is, at column 5"


@pytest.mark.parametrize("text, at, columns", [
    ("format: 1\ndecision: d\nhit_policy: unique\ninputs:\n  a: {values: [x, y]}\n b: {type: bool}\n", (6, 2), (2, 5, 3)),
    ("format: 1\ndecision: d\nhit_policy: unique\ninputs:\n  a: {values: [x]}\noutput: {values: [p]}\nrules:\n"
     "  - id: r\n    when:\n      a: x\n  then: p\n", (11, 3), (3, 10, 7)),
])
def test_an_indentation_mistake_is_at_its_line_with_the_columns_in_the_help(text, at, columns):
    d = only(check(text), "yaml-syntax")
    assert (d.span.line, d.span.column) == at
    column, above, above_column = columns
    assert d.help.startswith(f"check the indentation: this line starts at column {column}, line {above} above it at "
                             f"column {above_column}")
