"""The generated resolver agrees with the decision diagram it was generated from."""

import enum
import itertools

import pytest
import yaml

from swapool import PolicyError, load_policy
from swapool.swa.policy import clear_cache

from .helpers import SHIPPED, SWAKVPool, algorithms
from .test_runtime import runner

ALGS = enum.Enum("ALGS", algorithms())


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
    with pytest.raises(PolicyError, match=r"decision-kind.*allocator_kvcache.*is whether a pool passes the SWA check"):
        load_policy(p, import_enums=False)


class Named:
    """An object whose string `name` is its spelling (like sglang's plugin algorithms)."""

    def __init__(self, name):
        self.name = name


class Algo(str, enum.Enum):
    EAGLE = "eagle"  # a str-valued enum still counts by member name


class _OwnMeta(type(enum.Enum)):
    """An enum metaclass of its own: its members miss the fast path and take `name`."""


class OwnMetaAlgo(enum.Enum, metaclass=_OwnMeta):
    EAGLE = 7


ODD_FACTS = [1, 0, 1.0, None, "yes", "true", [], {}, b"EAGLE", Named("EAGLE"), Named(3), Algo.EAGLE,
             "EAGLE", ALGS.EAGLE, OwnMetaAlgo.EAGLE, True, False, object()]


def test_an_enum_member_is_spelled_by_its_name_whatever_its_enum():
    policy = load_policy(SHIPPED)
    for member in (ALGS.EAGLE, Algo.EAGLE, OwnMetaAlgo.EAGLE, Named("EAGLE")):
        assert policy.spell("spec_algorithm", member) == "EAGLE", member
        mr = runner("other", True, member, "swa")
        assert policy.resolve(mr, (SWAKVPool,)) is None  # EAGLE owns its KV


def outcome(call):
    try:
        return ("ok", call())
    except PolicyError as exc:
        return ("refused", type(exc))


def test_decide_and_the_generated_resolver_spell_every_fact_alike():
    """One spelling of facts: for each input, every odd value is accepted or refused by
    both, and when accepted both decide the same."""
    policy = load_policy(SHIPPED)
    for facts in all_inputs():
        base = dict(zip(("active_pool", "is_draft_worker", "spec_algorithm", "allocator_kvcache"), facts))
        for name in ("is_draft_worker", "spec_algorithm"):
            for odd in ODD_FACTS:
                fed = dict(base, **{name: odd})
                mr = runner(fed["active_pool"], fed["is_draft_worker"], fed["spec_algorithm"],
                            fed["allocator_kvcache"])

                def via_decide():
                    return expected(policy, mr, *fed.values())
                got_decide = outcome(via_decide)
                got_resolve = outcome(lambda: policy.resolve(mr, (SWAKVPool,)))
                assert got_decide == got_resolve, (fed, got_decide, got_resolve)


def test_a_draft_flag_of_1_is_refused_by_decide_too():
    policy = load_policy(SHIPPED)
    with pytest.raises(PolicyError, match="is_draft_worker=1 is not in the domain"):
        policy.decide(active_pool="other", is_draft_worker=1, spec_algorithm="EAGLE", allocator_kvcache="swa")
    assert policy.decide(active_pool="other", is_draft_worker=True, spec_algorithm=Named("EAGLE"),
                         allocator_kvcache="swa").output == "none"


def test_the_resolver_and_the_guard_read_pools_from_one_description():
    """facts.POOL_PATHS: the generated code inlines the expression, the guard calls read_pool."""
    from swapool.swa.facts import POOL_PATHS, pool_expression, read_pool, runner_facts

    mr = runner("other", False, None, "swa")
    source = load_policy(SHIPPED, import_enums=False).resolve.__doc__
    for fact in POOL_PATHS:
        assert f"= {pool_expression(fact)}\n" in source
        assert read_pool(mr, fact) is eval(pool_expression(fact), {"mr": mr})
    facts = runner_facts(mr, (SWAKVPool,), ["active_pool", "allocator_kvcache", "is_draft_worker"])
    assert facts == {"active_pool": "other", "allocator_kvcache": "swa", "is_draft_worker": False}
