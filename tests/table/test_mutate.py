"""Mutation testing: every single-point edit, survivors and the cases that kill them."""

import re

import swapool
from swapool.cli import main
from swapool.table.mutate import mutants, run_mutations
from ..helpers import SHIPPED, check, line_of, mini


GAP = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y, b: true}, then: q}\n"
           "- {id: rz, when: {a: [x, z]}, then: q}\n")



def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out



def test_every_mutant_of_both_shipped_tables_is_killed(capsys):
    """What docs/cli.md says of the shipped tables, run on the folder as an author would."""
    code, out = run(capsys, "mutate", "--no-enum-import", str(SHIPPED.parent))
    summaries = [line for line in out.splitlines() if " mutants, " in line]
    assert [s.split(":")[0] for s in summaries] == [str(SHIPPED.parent / n) for n in ("swa.yaml", "swa_backends.yaml")]
    assert code == 0 and all(s.endswith("kill rate 100.0%") for s in summaries), out


def test_a_folder_with_a_survivor_fails_and_names_the_file(capsys, tmp_path):
    (tmp_path / "a.yaml").write_text(SHIPPED.read_text().replace("$schema=../", "$schema="))
    (tmp_path / "b.yaml").write_text(mini("- {id: rx, when: {a: x}, then: p}\n- {id: rest, when: {a: [y, z]}, then: q}\n"))
    code, out = run(capsys, "mutate", str(tmp_path))
    assert code == 1 and f"{tmp_path / 'b.yaml'}:" in out and f"{tmp_path / 'a.yaml'}: " in out, out



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


def test_a_run_stops_at_its_work_budget_and_says_how_many_mutants_it_judged(monkeypatch, capsys):
    """The count of mutants does not bound the work (a 6 KB chain table under the cap ran for
    minutes): the analysis steps spent on them do."""
    import json

    from swapool.cli import main
    from swapool.table import mutate

    monkeypatch.setattr(mutate, "MAX_MUTATION_STEPS", 20_000)
    path = str(SHIPPED.parent / "swa_backends.yaml")
    planned = mutate.mutant_count(swapool.check_file(path, import_enums=False).table)  # as the table is today
    assert main(["mutate", "--no-enum-import", path]) == 3
    lines = capsys.readouterr().out.splitlines()
    stopped = re.fullmatch(rf"{re.escape(path)}: stopped after (\d+) of {planned:,} mutants: the work budget of a run "
                           r"is spent; split the table, or mutate a part of it", lines[-2])
    assert stopped and 0 < int(stopped.group(1)) < planned, lines[-2:]
    assert main(["mutate", "--no-enum-import", "--format", "json", path]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["stopped"] and report["judged"] == int(stopped.group(1)) and report["mutants"] == planned
