"""The resolver (the diagram walked over a model runner) decides as `decide` does."""

import enum
import itertools

import pytest
import yaml

from swapool import PolicyError, load_policy
from swapool.swa.policy import clear_cache

from ..helpers import SHIPPED, SWAKVPool, algorithms
from .test_policy import runner

ALGS = enum.Enum("ALGS", algorithms())


def all_inputs():
    return itertools.product(["swa", "other"], [False, True], list(ALGS), ["swa", "other"])


def expected(policy, mr, active, draft, alg, alloc):
    d = policy.decide(active_pool=active, is_draft_worker=draft, spec_algorithm=alg, allocator_kvcache=alloc)
    return {"active": mr.token_to_kv_pool, "none": None,
            "allocator": mr.token_to_kv_pool_allocator.get_kvcache.return_value}[d.output]


def test_the_resolver_agrees_with_decide_on_the_shipped_table():
    policy = load_policy(SHIPPED)
    for facts in all_inputs():
        mr = runner(*facts)
        assert policy.resolve(mr, (SWAKVPool,)) is expected(policy, mr, *facts), facts


def test_the_resolver_agrees_on_a_reordered_first_hit_table(tmp_path):
    """Input order changes the read order, never the answer."""
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


def test_decide_and_the_resolver_spell_every_fact_alike():
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
    with pytest.raises(PolicyError, match="is_draft_worker=1 is not a bool"):
        policy.decide(active_pool="other", is_draft_worker=1, spec_algorithm="EAGLE", allocator_kvcache="swa")
    assert policy.decide(active_pool="other", is_draft_worker=True, spec_algorithm=Named("EAGLE"),
                         allocator_kvcache="swa").output == "none"


def test_the_resolver_reads_the_allocator_only_when_the_answer_needs_it():
    """Facts are read lazily, in table order: an SWA active pool, or a draft that owns its
    KV, never calls the allocator's get_kvcache()."""
    policy = load_policy(SHIPPED, import_enums=False)
    for facts in all_inputs():
        mr = runner(*facts)
        read = policy.explain(active_pool=facts[0], is_draft_worker=facts[1], spec_algorithm=facts[2],
                              allocator_kvcache=facts[3]).read
        policy.resolve(mr, (SWAKVPool,))
        assert mr.token_to_kv_pool_allocator.get_kvcache.called == ("allocator_kvcache" in read), facts


def test_the_guard_reads_facts_as_the_resolver_does():
    from swapool.swa.facts import runner_facts

    mr = runner("other", False, None, "swa")
    facts = runner_facts(mr, (SWAKVPool,), ["active_pool", "allocator_kvcache", "is_draft_worker"])
    assert facts == {"active_pool": "other", "allocator_kvcache": "swa", "is_draft_worker": False}
