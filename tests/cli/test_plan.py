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
    assert code == 3  # torch_native ignores the allocator where the policy asks it
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
    assert main(["plan", "--attention-backend", "triton", "--speculative-algorithm", "FROZEN_KV_MTP"]) == 3
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "target runner (spec_algorithm=FROZEN_KV_MTP):"
    assert "draft runner (spec_algorithm=FROZEN_KV_MTP):" in out
    assert "  triton: start-up guard, " in out
    assert "none       when allocator_owns_active_pool=false, active_pool=other  (rule translator-pool-not-swa at" in out


@pytest.mark.parametrize("flags, says", [
    (["--attention-backend", "fa9"], "--attention-backend fa9: sglang has no such attention backend; did you mean 'fa4'?"),
    (["--attention-backend", "triton", "--speculative-algorithm", "EAGEL"], "spec_algorithm='EAGEL' is not in the"),
    (["--attention-backend", "triton", "--speculative-draft-attention-backend", "kv_index_translator"],
     "--speculative-draft-attention-backend kv_index_translator: sglang has no such attention backend"),
    (["--attention-backend", "xpu"], "did you mean 'intel_xpu'?"),  # swapool's place name is not sglang's flag
    (["--speculative-algorithm", "EAGLE"], "name the target's backend: --attention-backend"),
])
def test_an_unknown_flag_value_is_a_usage_error(capsys, flags, says):
    assert main(["plan", *flags]) == 2
    assert says in capsys.readouterr().err


def test_a_table_that_does_not_validate_is_refused_as_a_server_would(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\n")
    assert main(["plan", "--attention-backend", "triton", "--policy", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1:1: error" in err and "swapool plan: the SWA pool policy did not load: policy" in err
    assert "swapool validate" not in err and err.count("must not start") == 1, err


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
    assert "--attention-backend fa8: sglang has no such" in capsys.readouterr().err


def test_plan_text_makes_control_characters_visible(capsys, tmp_path):
    """A value from a table (here an algorithm's name holding ESC) is printed escaped."""
    data = shipped_data()
    data["inputs"]["spec_algorithm"]["sets"]["owns_its_kv"].append("U\x1b[2J")
    (tmp_path / "swa.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (tmp_path / "swa_backends.yaml").write_text(PLACES.read_text())
    code = main(["plan", "--attention-backend", "triton", "--speculative-algorithm", "U\x1b[2J", "--no-enum-import",
                 "--policy", str(tmp_path / "swa.yaml"), "--places", str(tmp_path / "swa_backends.yaml")])
    out = capsys.readouterr().out
    assert code == 3 and "\x1b" not in out and "spec_algorithm=U\\x1b[2J" in out  # 3: triton's target diverges


def test_every_attention_backend_value_of_sglang_is_planned(capsys):
    """sglang's own values (the installed sglang's, else the verified release's), each to the
    place its registry builds, or to none with the runner's translator."""
    from swapool.swa.integrations.sglang_places import FLAG_PLACES, flag_choices

    for flag in flag_choices().attention:
        code, result = plan_json(capsys, "--attention-backend", flag)
        assert code in (0, 3), flag
        places = [(p["place"], p["flag"], p["table"] is not None) for p in result["places"]]
        assert places[-1] == ("kv_index_translator", None, True)
        assert places[0] == ((FLAG_PLACES[flag], flag, True) if flag in FLAG_PLACES else (flag, flag, False)), flag


@pytest.mark.parametrize("flag, place", [("fa3", "flash_attention"), ("fa4", "flash_attention"), ("intel_xpu", "xpu")])
def test_sglangs_flag_builds_the_place_its_registry_builds(capsys, flag, place):
    code, result = plan_json(capsys, "--attention-backend", flag)
    assert (result["places"][0]["place"], result["places"][0]["how"]) == (place, "start-up guard")


def test_prefill_and_decode_backends_are_both_planned_and_a_draft_falls_back_as_sglang(capsys):
    _, result = plan_json(capsys, "--prefill-attention-backend", "fa3", "--decode-attention-backend", "trtllm_mha",
                          "--speculative-algorithm", "EAGLE")
    assert [(p["role"], p["place"]) for p in result["places"]] == [
        ("target", "flash_attention"), ("target", "trtllm_mha"), ("target", "kv_index_translator"),
        ("draft", "flash_attention"), ("draft", "kv_index_translator")]  # the draft takes the prefill backend
    assert main(["plan", "--attention-backend", "torch_native", "--speculative-algorithm", "EAGLE"]) == 3
    out = capsys.readouterr().out
    assert "note: torch_native is not a draft backend of sglang; on a CUDA machine it falls back to flashinfer" in out
    assert "  flashinfer: the table's resolver, " in out.split("draft runner")[1]


@pytest.mark.parametrize("env, says", [({"SWAPOOL_SGLANG_PLUGIN": "off"}, "SWAPOOL_SGLANG_PLUGIN=off"),
                                       ({"SGLANG_PLUGINS": "other"}, "SGLANG_PLUGINS=other does not list swapool")])
def test_with_the_plugin_off_plan_says_so_and_plans_sglangs_own_code(capsys, monkeypatch, env, says):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, result = plan_json(capsys, "--attention-backend", "trtllm_mha")
    assert result["plugin_off"] == says
    assert [(p["place"], p["how"], p["table"]) for p in result["places"]] == [
        ("trtllm_mha", "sglang's own code (the plugin is off)", str(PLACES)),
        ("kv_index_translator", "sglang's own code (the plugin is off)", str(PLACES))]
    assert main(["plan", "--attention-backend", "trtllm_mha"]) == code
    assert capsys.readouterr().out.startswith(f"the swapool plugin is off here ({says}): sglang's own code decides")
    monkeypatch.setenv("SGLANG_PLUGINS", "other, swapool")
    monkeypatch.delenv("SWAPOOL_SGLANG_PLUGIN", raising=False)
    assert plan_json(capsys, "--attention-backend", "trtllm_mha")[1]["plugin_off"] is None


def test_a_place_that_decides_otherwise_than_the_policy_is_marked_and_the_exit_is_3(capsys):
    """triton's FROZEN_KV_MTP draft ignores the allocator where the policy reads through it
    (docs/sglang.md's confirmed mismatch); the table's own resolvers never diverge."""
    code, result = plan_json(capsys, "--attention-backend", "triton", "--speculative-algorithm", "FROZEN_KV_MTP")
    draft = next(p for p in result["places"] if p["role"] == "draft" and p["place"] == "triton")
    assert code == 3 and draft["divergences"] == [{
        "region": "active_pool=other, allocator_kvcache=swa",
        "here": {"output": "none", "rule": "active-only-backends-ignore-the-allocator", "at": draft["divergences"][0]["here"]["at"]},
        "intended": {"output": "allocator", "rule": "frozen-kv-draft-reads-target-swa",
                     "at": draft["divergences"][0]["intended"]["at"]}}]
    assert draft["divergences"][0]["intended"]["at"].startswith(f"{SHIPPED}:")
    code, result = plan_json(capsys, "--attention-backend", "trtllm_mha", "--speculative-algorithm", "FROZEN_KV_MTP")
    assert code == 0 and all(not p["divergences"] for p in result["places"] if p["place"] == "trtllm_mha")
    main(["plan", "--attention-backend", "triton", "--speculative-algorithm", "FROZEN_KV_MTP", "--policy", str(SHIPPED),
          "--places", str(PLACES)])
    out = capsys.readouterr().out
    assert "    ! when active_pool=other, allocator_kvcache=swa: none here (active-only-backends-ignore-the-allocator), " \
           "allocator intended (frozen-kv-draft-reads-target-swa at " in out


def test_sglangs_algorithm_alias_is_planned_as_what_sglang_turns_it_into(capsys):
    """sglang accepts --speculative-algorithm NEXTN and makes it EAGLE before any runner is
    built: plan does the same and says so (it advised adding NEXTN to the table, which
    --strict would then refuse as no member of SpeculativeAlgorithm)."""
    flags = ["plan", "--attention-backend", "trtllm_mha", "--no-enum-import"]
    assert main([*flags, "--speculative-algorithm", "NEXTN"]) == 0
    nextn = capsys.readouterr().out
    assert nextn.splitlines()[0].startswith("note: sglang turns --speculative-algorithm NEXTN into EAGLE")
    assert main([*flags, "--speculative-algorithm", "EAGLE"]) == 0
    assert nextn.split("\n", 1)[1] == capsys.readouterr().out
