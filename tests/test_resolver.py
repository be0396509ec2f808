"""The generated resolver agrees with the decision diagram it was generated from."""

import enum
import itertools

import pytest
import yaml

from swapool import PolicyError, load_policy
from swapool.runtime import clear_cache

from .helpers import SHIPPED, SWAKVPool
from .test_runtime import runner

ALGS = enum.Enum("ALGS", "NONE EAGLE EAGLE3 STANDALONE NGRAM DFLASH DSPARK UNO FROZEN_KV_MTP")


def all_inputs():
    return itertools.product(["swa", "other"], [False, True], list(ALGS), ["swa", "other"])


def expected(policy, mr, active, draft, alg, alloc):
    d = policy.decide(active_pool=active, is_draft_worker=draft, spec_algorithm=alg, allocator_kvcache=alloc)
    return {"active": mr.token_to_kv_pool, "none": None,
            "allocator": mr.token_to_kv_pool_allocator.get_kvcache.return_value}[d.output]


def test_generated_code_agrees_with_the_diagram_on_the_shipped_table():
    policy = load_policy(SHIPPED)
    for facts in all_inputs():
        mr = runner(*facts)
        assert policy.resolve(mr, (SWAKVPool,)) is expected(policy, mr, *facts), facts


def test_generated_code_agrees_on_a_reordered_first_hit_table(tmp_path):
    """Input order changes the read order and the code shape, never the answer."""
    data = yaml.safe_load(SHIPPED.read_text())
    data["inputs"] = dict(reversed(list(data["inputs"].items())))
    data["hit_policy"] = "first"
    p = tmp_path / "reordered.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    clear_cache()
    policy = load_policy(p, import_enums=False)
    assert policy.table.input_names[0] == "allocator_kvcache"
    for facts in all_inputs():
        mr = runner(*facts)
        assert policy.resolve(mr, (SWAKVPool,)) is expected(policy, mr, *facts), facts


def test_generated_source_is_attached_for_review():
    assert "def resolve(mr" in load_policy(SHIPPED).resolve.__doc__


def test_out_of_domain_pool_value_is_refused(tmp_path):
    data = yaml.safe_load(SHIPPED.read_text())
    data["inputs"]["allocator_kvcache"]["values"] = ["swa", "other", "paged"]
    data["rules"].append({"id": "paged", "when": {"active_pool": "other", "is_draft_worker": False,
                                                  "allocator_kvcache": "paged"}, "then": "none"})
    data["rules"].append({"id": "paged-draft", "when": {"active_pool": "other", "is_draft_worker": True,
                                                        "spec_algorithm": "FROZEN_KV_MTP",
                                                        "allocator_kvcache": "paged"}, "then": "none"})
    p = tmp_path / "paged.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    policy = load_policy(p, import_enums=False)
    with pytest.raises(PolicyError, match="pool facts valued swa/other"):
        policy.resolve(runner("other", False, ALGS.NONE, "swa"))
