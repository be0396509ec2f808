"""Enum binding drift, and the semantic diff between table versions."""

import json
import textwrap

import pytest

from swapool.cli import main
from swapool.table.enums import bound_members
from swapool.table.check import check_bytes
from swapool.table.enums import EnumPolicy

from .helpers import (NO_SUCH_VALUE, SHIPPED, algorithm_sets, dump, mini, only, reverted_eagle_fix, shipped_data,
                      without_frozen_fallback, diverging_algorithms, written_in_places_rules)


@pytest.fixture
def engine_enum(tmp_path, monkeypatch):
    """An importable module `fake_engine` with an Algorithm enum (members chosen by the test)."""
    def make(members: str, body: str = "") -> str:
        (tmp_path / "fake_engine.py").write_text(textwrap.dedent(f"""\
            import enum
            {body}
            Algorithm = enum.Enum("Algorithm", "{members}")
            """))
        monkeypatch.syspath_prepend(str(tmp_path))
        import sys
        sys.modules.pop("fake_engine", None)
        bound_members.cache_clear()
        return "fake_engine:Algorithm"
    return make


CASES = "cases:\n  - {given: {a: x}, expect: p}\n  - {given: {a: y}, expect: q}\n  - {given: {a: z}, expect: q}\n"


def bound_table(binding: str, cases: str = CASES) -> str:
    """A table whose input `a` is bound to `binding`, with a case for each value."""
    rules = "- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: [y, z]}, then: q}\n"
    return mini(rules, extra=cases).replace("a: {values: [x, y, z]}", f'a: {{values: [x, y, z], enum: "{binding}"}}') \
        .replace("  b: {type: bool}\n", "")


ALLOWED = ("fake_engine", "no_such_engine_pkg")


def run_check(text, allowed=ALLOWED):
    return check_bytes(text, "t.yaml", enums=EnumPolicy(do_import=True, allowed=allowed))


def test_enum_in_step_with_the_table_is_silent(engine_enum):
    c = run_check(bound_table(engine_enum("x y z")))
    assert c.ok and c.diagnostics == ()


def test_new_engine_member_is_a_gap_naming_it(engine_enum):
    c = run_check(bound_table(engine_enum("x y z NEW_MEMBER")))
    d = only(c, "enum-missing-member")
    assert d.got == "NEW_MEMBER" and d.severity.value == "error"
    assert not c.ok


def test_a_bound_value_no_case_names_is_a_warning_and_an_error_when_strict(engine_enum, write, capsys):
    text = bound_table(engine_enum("x y z"), cases=CASES.replace("  - {given: {a: z}, expect: q}\n", ""))
    d = only(run_check(text), "uncased-value")
    assert d.severity.value == "warning" and (d.got, d.facts["input"], d.facts["homes"]) == (["z"], "a", [])
    assert d.help == "add a case with given: {a: z, ...}"  # paste-ready: the words matter here
    path = str(write(text))
    assert main(["validate", "--enum-module", "fake_engine", path]) == 0
    assert main(["validate", "--strict", "--enum-module", "fake_engine", path]) == 1
    assert "warning[uncased-value]" in capsys.readouterr().out


def test_a_case_that_leaves_the_input_out_does_not_count_but_a_case_over_a_set_does(engine_enum):
    binding = engine_enum("x y z")
    loose = run_check(bound_table(binding, cases="cases:\n  - {given: {}, expect: p}\n"))
    assert only(loose, "uncased-value").got == ["x", "y", "z"]
    with_sets = bound_table(binding, cases="cases:\n  - {given: {a: {in: [yz]}}, expect: q}\n"
                                            "  - {given: {a: x}, expect: p}\n") \
        .replace("a: {values: [x, y, z],", "a: {values: [x, y, z], sets: {yz: [y, z]},")
    assert "uncased-value" not in [d.code for d in run_check(with_sets).diagnostics]


def test_a_case_names_the_one_value_of_a_one_value_input(engine_enum):
    """Naming the only value covers the whole domain; the case still names it."""
    text = (f'format: 1\ndecision: demo\nhit_policy: unique\ninputs:\n  a: {{values: [x], enum: "{engine_enum("x")}"}}\n'
            "output: {values: [p]}\nrules:\n  - {id: rx, when: {a: x}, then: p}\n")
    named = run_check(text + "cases:\n  - {given: {a: x}, expect: p}\n")
    assert named.ok and "uncased-value" not in [d.code for d in named.diagnostics]
    left_out = run_check(text + "cases:\n  - {given: {}, expect: p}\n")
    assert only(left_out, "uncased-value").got == ["x"]


def test_value_that_is_not_a_member_is_a_warning(engine_enum):
    d = only(run_check(bound_table(engine_enum("x y"))), "enum-extra-value")
    assert d.severity.value == "warning" and (d.got, d.facts["input"]) == ("z", "a")


def test_unimportable_binding_is_a_note_not_a_failure():
    c = run_check(bound_table("no_such_engine_pkg.spec:Algorithm"))
    d = only(c, "enum-import")
    assert d.severity.value == "note" and d.facts["module"] == "no_such_engine_pkg" and c.ok


def test_binding_whose_import_fails_is_a_warning_with_the_reason(engine_enum):
    """Valid, but --strict fails: an installed engine that does not import checks no drift."""
    c = run_check(bound_table(engine_enum("x y z", body="raise RuntimeError('needs a GPU')")))
    d = only(c, "enum-import-failed")
    assert "needs a GPU" in d.facts["reason"] and d.severity.value == "warning" and c.ok


def test_binding_to_a_non_enum_is_a_warning(engine_enum):
    engine_enum("x y z")
    c = run_check(bound_table("fake_engine:enum"))
    assert "not an Enum" in only(c, "enum-import-failed").facts["reason"]


def test_reverted_eagle_fix_breaks_the_shipped_invariant():
    c = check_bytes(dump(reverted_eagle_fix(shipped_data())), "reverted.yaml", enums=EnumPolicy(do_import=False))
    breach = [d for d in c.diagnostics if d.code == "invariant"]
    assert any(d.rules == ("allocator-if-swa", "eagle-style-drafts-never-touch-the-allocator") for d in breach)
    assert "case-failed" in {d.code for d in c.diagnostics}


def test_removed_frozen_fallback_fails_the_regression_case():
    c = check_bytes(dump(without_frozen_fallback(shipped_data())), "nofrozen.yaml", enums=EnumPolicy(do_import=False))
    failed = [d for d in c.diagnostics if d.code == "case-failed"]
    assert any(d.witness["spec_algorithm"] in algorithm_sets()["reads_target_kv"] for d in failed)


def diff(capsys, old, new, *extra):
    code = main(["diff", str(old), str(new), *extra])
    return code, capsys.readouterr()


def test_diff_shows_exactly_the_reverted_region(capsys, write):
    data = shipped_data()
    data.pop("invariants")
    data["cases"] = []
    new = write(dump(reverted_eagle_fix(data)), "reverted.yaml")
    code, out = diff(capsys, SHIPPED, new, "--format", "json")
    assert code == 1
    changes = json.loads(out.out)["changes"]
    assert len(changes) == 1
    c = changes[0]
    assert c["old"] == {"output": "none", "rule": "draft-owns-its-kv"}
    assert c["new"] == {"output": "allocator", "rule": "allocator-if-swa"}
    owners = ", ".join(algorithm_sets()["owns_its_kv"])
    assert c["region"] == f"active_pool=other, is_draft_worker=true, spec_algorithm in [{owners}], allocator_kvcache=swa"


def test_renamed_and_reordered_rules_are_equivalent(capsys, write):
    data = shipped_data()
    for r in data["rules"]:
        r["id"] = "renamed-" + r["id"]
    data["rules"].reverse()
    code, out = diff(capsys, SHIPPED, write(dump(data)))
    assert code == 0 and out.out.strip().endswith("equivalent")


def test_diff_reports_a_value_only_one_table_knows(capsys, write):
    data = shipped_data()
    algorithm_sets(data)["owns_its_kv"].append(NO_SUCH_VALUE)  # the one edit that adds an algorithm
    code, out = diff(capsys, SHIPPED, write(dump(data)))
    assert code == 1
    assert (f"active_pool=other, is_draft_worker=true, spec_algorithm={NO_SUCH_VALUE}: (not in the table's domain) "
            "-> none (draft-owns-its-kv)") in out.out


def test_diff_refuses_unreadable_or_incomparable_tables(capsys, write):
    bad = write("format: 1\n", "bad.yaml")
    code, out = diff(capsys, SHIPPED, bad)
    assert code == 2 and "could not be read as a table" in out.err
    other = write(mini("- {id: rx, when: {a: x, b: true}, then: p}\n- {id: rxf, when: {a: x, b: false}, "
                       "then: q}\n- {id: r, when: {a: [y, z]}, then: q}\n"), "other.yaml")
    code, out = diff(capsys, SHIPPED, other)
    assert code == 2 and "different inputs" in out.err



def test_diff_answers_mid_edit_and_says_the_answer_is_partial(capsys, write):
    """A table with a gap still diffs: the gap shows as 'no rule decides it', exit 1."""
    old = write(mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: [y, z]}, then: q}\n"), "old.yaml")
    new = write(mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y}, then: q}\n"), "new.yaml")
    code, out = diff(capsys, old, new)
    assert code == 1 and "a=z: q (ry) -> (no rule decides it)" in out.out
    assert "note: " in out.err and "new.yaml has 2 error(s) (gap, unnamed-value)" in out.err
    code, out = diff(capsys, old, old)
    assert code == 0 and "equivalent" in out.out


def test_explain_answers_mid_edit_with_exit_1(capsys, write):
    mid_edit = str(write(mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y}, then: q}\n")))
    assert main(["explain", mid_edit, "--set", "a=x"]) == 1
    captured = capsys.readouterr()
    assert "decision: p" in captured.out and "has 2 error(s)" in captured.err
    assert main(["explain", mid_edit, "--set", "a=z", "--set", "b=true"]) == 1
    assert "gap" in capsys.readouterr().err


def test_an_input_only_one_table_has_is_left_out_where_no_rule_reads_it(capsys):
    """The table of places has active_swa_layers; trtllm_mha's rules never read it, xpu's do."""
    places = str(SHIPPED.parent / "swa_backends.yaml")
    code, out = diff(capsys, SHIPPED, places, "--new-set", "backend=trtllm_mha")
    assert "active_swa_layers" not in out.out + out.err
    # what is decided differently is data: the frozen-KV readers sglang's code does not know
    missed = set(algorithm_sets()["reads_target_kv"]) - written_in_places_rules()
    assert diverging_algorithms(out.out) == missed and code == (1 if missed else 0), out.out
    code, out = diff(capsys, SHIPPED, places, "--new-set", "backend=xpu")
    assert code == 2 and "(--new-set active_swa_layers=VALUE)" in out.err
    code, out = diff(capsys, SHIPPED, places, "--new-set", "backend=xpu", "--new-set", "active_swa_layers=false")
    assert code == 1 and "active_pool=swa: active (active-pool-is-swa) -> none (active-pool-without-swa-layers)" \
        in out.out


@pytest.mark.parametrize("where", ["values", "sets"])
def test_a_value_that_is_not_a_member_is_reported_where_it_is_written(engine_enum, where):
    text = bound_table(engine_enum("x y"))
    if where == "sets":
        text = text.replace("a: {values: [x, y, z],", "a: {sets: {xy: [x, y], more: [y,\n      z]},")
    d = only(run_check(text), "enum-extra-value")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "z]" in ln)
    assert (d.span.line, d.span.column) == (line, text.splitlines()[line - 1].index("z]") + 1)


def test_diff_and_mutate_read_a_priority_table_by_its_outputs_order(capsys, write):
    """The same rules under first and under priority (q listed before p) differ exactly
    where a p rule comes first in the table and a q rule matches too; and removing xp
    changes nothing under priority (bq outranks it where they meet), but does under first."""
    rules = "- {id: xp, when: {a: x}, then: p}\n- {id: bq, when: {b: true}, then: q}\n- {id: rest, then: p}\n"
    head = mini(rules, hit_policy="first").replace("{values: [x, y, z]}", "{values: [x, y, z], wildcard: true}")
    first = write(head, "first.yaml")
    ranked = write(head.replace("hit_policy: first", "hit_policy: priority").replace("values: [p, q]", "values: [q, p]"),
                   "ranked.yaml")
    code, out = diff(capsys, first, ranked, "--format", "json")
    (change,) = json.loads(out.out)["changes"]
    assert code == 1 and change["region"] == "a=x, b=true"
    assert (change["old"], change["new"]) == ({"output": "p", "rule": "xp"}, {"output": "q", "rule": "bq"})
    removed = {}
    for name, path in (("first", first), ("priority", ranked)):
        main(["mutate", "--format", "json", str(path)])
        survivors = json.loads(capsys.readouterr().out)["survivors"]
        removed[name] = next(s for s in survivors if s["mutant"] == "rule 'xp' removed")
    assert removed["priority"]["case"] is None  # equivalent
    assert removed["first"]["case"] == {"given": {"a": "x", "b": True}, "expect": "p"}
