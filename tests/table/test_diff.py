"""The semantic diff: regions decided differently, equivalence, tables mid-edit."""

import json
from swapool.cli import main
from ..helpers import NO_SUCH_VALUE, SHIPPED, algorithm_sets, dump, mini, reverted_eagle_fix, shipped_data, diverging_algorithms, written_in_places_rules


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
    assert "note: " in out.err and "new.yaml has 1 error(s) (gap)" in out.err
    code, out = diff(capsys, old, old)
    assert code == 0 and "equivalent" in out.out



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
