"""`swapool plan`: what each sglang place decides for a deployment's flags, before a start."""

import json
import re

import pytest
import yaml

from swapool import load_policy
from swapool.cli import main

from ..helpers import SHIPPED, shipped_data

PLACES = SHIPPED.parent / "swa_backends.yaml"


def plan_json(capsys, *flags: str) -> tuple[int, dict]:
    code = main(["plan", "--policy", str(SHIPPED), "--places", str(PLACES), "--format", "json", *flags])
    out, _ = capsys.readouterr()
    return code, json.loads(out) if out else {}


def test_no_speculative_algorithm_plans_the_target_runner_only(capsys):
    code, result = plan_json(capsys, "--attention-backend", "torch_native")
    assert code == 0
    assert [(p["role"], p["place"], p["how"]) for p in result["places"]] == [
        ("target", "torch_native", "start-up guard"), ("target", "kv_index_translator", "start-up guard")]


def test_a_replaced_resolver_is_planned_from_the_policy_a_guarded_place_from_the_places_table(capsys):
    _, result = plan_json(capsys, "--attention-backend", "trtllm_mha", "--speculative-algorithm", "EAGLE",
                          "--speculative-draft-attention-backend", "triton")
    by = {(p["role"], p["place"]): p for p in result["places"]}
    assert set(by) == {("target", "trtllm_mha"), ("target", "kv_index_translator"), ("draft", "triton"),
                       ("draft", "kv_index_translator")}
    assert by["target", "trtllm_mha"]["table"] == str(SHIPPED) and by["draft", "triton"]["table"] == str(PLACES)


def test_every_planned_row_is_what_the_table_decides_there(capsys):
    """Each row's rule and output, replayed through the table at the row's rule: the
    EAGLE draft's trtllm_mha never asks the allocator, the target's does."""
    policy = load_policy(SHIPPED)
    _, result = plan_json(capsys, "--attention-backend", "trtllm_mha", "--speculative-algorithm", "EAGLE")
    rows = {(p["role"], r["region"]): (r["output"], r["rule"]) for p in result["places"]
            if p["place"] == "trtllm_mha" for r in p["decisions"]}
    assert rows == {
        ("target", "active_pool=swa"): ("active", "active-pool-is-swa"),
        ("target", "active_pool=other, allocator_kvcache=swa"): ("allocator", "target-uses-allocator-swa"),
        ("target", "active_pool=other, allocator_kvcache=other"): ("none", "target-without-swa"),
        ("draft", "active_pool=swa"): ("active", "active-pool-is-swa"),
        ("draft", "active_pool=other"): ("none", "draft-owns-its-kv"),
    }
    draft = policy.explain(active_pool="other", is_draft_worker=True, spec_algorithm="EAGLE", allocator_kvcache="swa")
    assert (draft.decision.output, draft.rule.id) == rows["draft", "active_pool=other"]
    for row in (r for p in result["places"] for r in p["decisions"]):
        assert row["rule"] and row["at"].count(":") >= 2  # every row names its rule's file:line:col


def test_text_output_names_each_runner_place_and_rule(capsys):
    assert main(["plan", "--attention-backend", "triton", "--speculative-algorithm", "FROZEN_KV_MTP"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "target runner (spec_algorithm=FROZEN_KV_MTP):"
    assert "draft runner (spec_algorithm=FROZEN_KV_MTP):" in out
    assert "  triton: start-up guard, " in out
    assert "none       when allocator_owns_active_pool=false, active_pool=other  (rule translator-pool-not-swa at" in out


@pytest.mark.parametrize("flags, says", [
    (["--attention-backend", "fa9"], "'fa9' is not an attention backend that picks a SWA pool"),
    (["--attention-backend", "triton", "--speculative-algorithm", "EAGEL"], "spec_algorithm='EAGEL' is not in the"),
    (["--attention-backend", "triton", "--speculative-draft-attention-backend", "kv_index_translator"],
     "'kv_index_translator' is not an attention backend"),
])
def test_an_unknown_flag_value_is_a_usage_error(capsys, flags, says):
    assert main(["plan", *flags]) == 2
    assert says in capsys.readouterr().err


def test_a_table_that_does_not_validate_is_refused_as_a_server_would(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\n")
    assert main(["plan", "--attention-backend", "triton", "--policy", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1:1: error" in err and "a server would refuse to start with it" in err


@pytest.mark.parametrize("flags, env, says", [
    (["--policy", ""], {}, "--policy is set but empty"),
    (["--places", ""], {}, "--places is set but empty"),
    ([], {"SWAPOOL_POLICY": ""}, "$SWAPOOL_POLICY is set but empty"),
    ([], {"SWAPOOL_PLACES_POLICY": ""}, "$SWAPOOL_PLACES_POLICY is set but empty"),
])
def test_an_empty_table_path_is_refused_as_the_server_refuses_it(capsys, monkeypatch, flags, env, says):
    """An empty path never means the shipped table: the plugin refuses it, so plan does."""
    from swapool.swa.paths import table_path
    from swapool.table.decider import PolicyError

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["plan", "--attention-backend", "triton", *flags]) == 2
    assert says in capsys.readouterr().err
    role = "policy" if "POLICY" in says.replace("PLACES_POLICY", "") or "--policy" in says else "places"
    with pytest.raises(PolicyError, match=re.escape(says)):
        table_path(role, flags[1] if flags else None)


def test_plan_reads_the_tables_the_server_would(capsys, monkeypatch, tmp_path):
    """No flag: $SWAPOOL_POLICY, as the plugin reads it; a table deciding something other
    than swa_kv_pool is refused as the server refuses it, not planned."""
    other = tmp_path / "other.yaml"
    other.write_text(SHIPPED.read_text().replace("decision: swa_kv_pool", "decision: something_else"))
    monkeypatch.setenv("SWAPOOL_POLICY", str(other))
    assert main(["plan", "--attention-backend", "trtllm_mha"]) == 2
    assert "decision-kind" in capsys.readouterr().err
    monkeypatch.setenv("SWAPOOL_POLICY", str(SHIPPED))
    assert main(["plan", "--attention-backend", "trtllm_mha"]) == 0
    assert f"trtllm_mha: the table's resolver, {SHIPPED}" in capsys.readouterr().out


def test_two_unknown_backends_name_the_target_first(capsys):
    assert main(["plan", "--attention-backend", "fa8", "--speculative-draft-attention-backend", "fa9"]) == 2
    assert "'fa8' is not an attention backend" in capsys.readouterr().err


def test_plan_text_makes_control_characters_visible(capsys, tmp_path):
    """A value from a table (here an algorithm's name holding ESC) is printed escaped."""
    data = shipped_data()
    data["inputs"]["spec_algorithm"]["sets"]["owns_its_kv"].append("U\x1b[2J")
    (tmp_path / "swa.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (tmp_path / "swa_backends.yaml").write_text(PLACES.read_text())
    code = main(["plan", "--attention-backend", "triton", "--speculative-algorithm", "U\x1b[2J", "--no-enum-import",
                 "--policy", str(tmp_path / "swa.yaml"), "--places", str(tmp_path / "swa_backends.yaml")])
    out = capsys.readouterr().out
    assert code == 0 and "\x1b" not in out and "spec_algorithm=U\\x1b[2J" in out
