"""resolve_swa_kv_pool on mock model runners: the six regression cases, laziness, errors."""

import enum
import itertools
import logging
import re
from unittest.mock import MagicMock

import pytest

import swapool
from swapool import PolicyError, load_policy, resolve_swa_kv_pool
from swapool.swa.policy import clear_cache

from ..helpers import NO_SUCH_VALUE, SHIPPED, MHATokenToKVPool, SWAKVPool, algorithm_sets, algorithms, mini

ALGORITHMS = algorithms()
FROZEN_READERS = algorithm_sets()["reads_target_kv"]
SpeculativeAlgorithm = enum.Enum("SpeculativeAlgorithm", ALGORITHMS)


def runner(active: str, draft: bool, algorithm, allocator: str):
    """A model runner whose pools are MagicMock(spec=...) of sglang-shaped pool classes."""
    mr = MagicMock()
    mr.token_to_kv_pool = MagicMock(spec=SWAKVPool if active == "swa" else MHATokenToKVPool)
    mr.is_draft_worker = draft
    mr.spec_algorithm = algorithm
    kv = MagicMock(spec=SWAKVPool if allocator == "swa" else MHATokenToKVPool)
    mr.token_to_kv_pool_allocator.get_kvcache.return_value = kv
    return mr


def reference(mr):
    """sglang's fixed resolver (DESIGN.md section 1) written as plain ifs: the oracle. Which
    drafts read the target's KV is the table's list (one edit adds an algorithm)."""
    if isinstance(mr.token_to_kv_pool, SWAKVPool):
        return mr.token_to_kv_pool
    if mr.is_draft_worker and mr.spec_algorithm.name not in FROZEN_READERS:
        return None
    kv = mr.token_to_kv_pool_allocator.get_kvcache()
    return kv if isinstance(kv, SWAKVPool) else None


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch):
    monkeypatch.delenv("SWAPOOL_POLICY", raising=False)
    clear_cache()
    yield
    clear_cache()


A = SpeculativeAlgorithm


@pytest.mark.parametrize("active, draft, algorithm, allocator, expect", [
    ("swa", False, A.NONE, "swa", "active"),
    ("other", False, A.NONE, "swa", "allocator"),
    ("other", False, A.NONE, "other", "none"),
    ("other", True, A.EAGLE, "swa", "none"),
    ("other", True, A.FROZEN_KV_MTP, "swa", "allocator"),
    ("other", False, A.EAGLE, "swa", "allocator"),
])
def test_regression_case(active, draft, algorithm, allocator, expect):
    mr = runner(active, draft, algorithm, allocator)
    got = resolve_swa_kv_pool(mr)
    want = {"active": mr.token_to_kv_pool, "none": None,
            "allocator": mr.token_to_kv_pool_allocator.get_kvcache.return_value}[expect]
    assert got is want


def test_matches_the_reference_on_every_input_combination():
    for active, draft, algorithm, allocator in itertools.product(
            ["swa", "other"], [False, True], list(A), ["swa", "other"]):
        mr = runner(active, draft, algorithm, allocator)
        assert resolve_swa_kv_pool(mr) is reference(mr), (active, draft, algorithm, allocator)


@pytest.mark.parametrize("active, draft, algorithm", [
    ("swa", False, A.NONE), ("swa", True, A.EAGLE), ("other", True, A.EAGLE),
    ("other", True, A.NGRAM), ("other", True, A.DFLASH),
])
def test_get_kvcache_is_not_called_when_the_decision_is_known(active, draft, algorithm):
    mr = runner(active, draft, algorithm, "swa")
    resolve_swa_kv_pool(mr)
    mr.token_to_kv_pool_allocator.get_kvcache.assert_not_called()


def test_spec_algorithm_is_not_read_for_a_target_worker():
    mr = runner("other", False, A.NONE, "swa")
    type(mr).spec_algorithm = property(lambda self: pytest.fail("spec_algorithm was read"))
    resolve_swa_kv_pool(mr)


def test_get_kvcache_is_called_once_when_needed():
    mr = runner("other", True, A.FROZEN_KV_MTP, "swa")
    resolve_swa_kv_pool(mr)
    mr.token_to_kv_pool_allocator.get_kvcache.assert_called_once_with()


def test_string_algorithm_and_explicit_pool_types():
    mr = runner("other", True, "FROZEN_KV_MTP", "swa")
    assert resolve_swa_kv_pool(mr, swa_pool_types=(SWAKVPool,)) is mr.token_to_kv_pool_allocator.get_kvcache()
    # The type check is the caller's: with another class as "SWA", the active pool qualifies.
    assert resolve_swa_kv_pool(mr, swa_pool_types=(MHATokenToKVPool,)) is mr.token_to_kv_pool


def test_unknown_algorithm_is_an_error_naming_value_and_table():
    mr = runner("other", True, NO_SUCH_VALUE, "swa")
    with pytest.raises(PolicyError, match=rf"spec_algorithm='{re.escape(NO_SUCH_VALUE)}' is not in the domain of policy .*swa\.yaml"):
        resolve_swa_kv_pool(mr)


def test_non_bool_draft_flag_is_an_error_not_a_match():
    mr = runner("other", "yes", A.EAGLE, "swa")
    with pytest.raises(PolicyError, match="is_draft_worker"):
        resolve_swa_kv_pool(mr)


def test_decide_is_a_lookup_with_rule_id():
    policy = load_policy()
    d = policy.decide(active_pool="other", is_draft_worker=True, spec_algorithm=A.EAGLE3,
                      allocator_kvcache="swa")
    assert (d.output, d.rule_id) == ("none", "draft-owns-its-kv")
    assert policy.decide(active_pool="swa").output == "active"


def test_decide_rejects_unknown_and_missing_facts():
    policy = load_policy()
    with pytest.raises(PolicyError, match="unknown fact"):
        policy.decide(active_pool="swa", colour="blue")
    with pytest.raises(PolicyError, match="needs the fact 'is_draft_worker'"):
        policy.decide(active_pool="other")


def test_load_policy_is_cached_per_path_and_content(write):
    p = write(SHIPPED.read_text())
    first = load_policy(p)
    assert load_policy(p) is first
    p.write_text(SHIPPED.read_text() + "\n# edited\n")
    assert load_policy(p) is not first


def test_env_var_names_the_policy(write, monkeypatch):
    p = write(SHIPPED.read_text(), "other.yaml")
    monkeypatch.setenv("SWAPOOL_POLICY", str(p))
    assert load_policy().path == str(p)


def test_invalid_table_raises_listing_every_diagnostic(write):
    p = write(mini("- {id: r1, when: {a: x}, then: p}\n- {id: r1, when: {a: w}, then: maybe}\n"))
    with pytest.raises(PolicyError) as info:
        load_policy(p)
    got = {d.code for d in info.value.diagnostics}
    assert {"unknown-value", "duplicate-rule-id"} <= got
    assert "t.yaml:" in str(info.value)


def test_invalid_table_is_not_cached_or_half_loaded(write):
    p = write(mini("- {id: r1, when: {a: x}, then: p}\n"))
    for _ in range(2):
        with pytest.raises(PolicyError, match="gap"):
            load_policy(p)


def test_unreadable_table_raises_policy_error(tmp_path):
    with pytest.raises(PolicyError, match="no such file"):
        load_policy(tmp_path / "missing.yaml")


def test_load_logs_one_info_line(caplog, write):
    p = write(SHIPPED.read_text())
    with caplog.at_level(logging.INFO, logger="swapool"):
        policy = load_policy(p)
        load_policy(p)
    lines = [r.getMessage() for r in caplog.records if r.name == "swapool"]
    assert len(lines) == 1
    assert str(p) in lines[0] and policy.digest[:12] in lines[0] and "6 rules" in lines[0]


def test_load_policy_refuses_a_table_for_another_decision(write):
    p = write(mini("- {id: rx, when: {a: x}, then: p}\n- {id: r, when: {a: [y, z]}, then: q}\n"))
    with pytest.raises(PolicyError, match="decides 'demo', not swa_kv_pool|this one decides 'demo'") as info:
        load_policy(p)
    assert [d.code for d in info.value.diagnostics if d.is_error] == ["decision-kind"]
    assert info.value.diagnostics[0].span.line == 2


def test_public_api():
    assert set(swapool.__all__) >= {"load_policy", "resolve_swa_kv_pool", "Policy", "PolicyError", "Decision"}


DRIFTING = """\
format: 1
decision: swa_kv_pool
hit_policy: unique
inputs:
  active_pool: {values: [swa, other], enum: "enum:Enum"}
output: {values: [active, none]}
rules:
  - {id: a, when: {active_pool: swa}, then: active}
  - {id: b, when: {active_pool: other}, then: none}
"""


def test_cache_key_covers_whether_enums_were_imported(write, monkeypatch):
    """A load without the drift check must not answer for a later load with it."""
    import swapool.table.enums as enums
    p = write(DRIFTING)
    monkeypatch.setattr(enums, "bound_members", lambda binding: ("swa", "other", "paged"))
    monkeypatch.setattr(enums, "_installed", lambda top: True)
    clear_cache()
    assert load_policy(p, import_enums=False, enum_modules=("enum",)).table.decision == "swa_kv_pool"
    with pytest.raises(PolicyError, match="enum-missing-member"):
        load_policy(p, enum_modules=("enum",))


def test_a_load_hashes_the_bytes_once(write, monkeypatch):
    import swapool.table.files as files
    calls = []
    real = files._sha256
    monkeypatch.setattr(files, "_sha256", lambda data: calls.append(len(data)) or real(data))
    clear_cache()
    load_policy(write(SHIPPED.read_text()))
    assert len(calls) == 1


def test_a_path_with_a_nul_byte_is_an_io_finding_and_a_policy_error_never_a_valueerror():
    checked = swapool.check_file("policies\0/swa.yaml")
    assert not checked.ok and [d.code for d in checked.diagnostics] == ["io"]
    assert "NUL byte" in checked.diagnostics[0].message and checked.diagnostics[0].facts.problem == "nul-byte"
    with pytest.raises(PolicyError, match="NUL byte"):
        load_policy("policies\0/swa.yaml")


def test_str_bytes_and_pathlike_are_accepted_alike_by_both_entry_points():
    for path in (str(SHIPPED), bytes(SHIPPED), SHIPPED):
        assert load_policy(path, import_enums=False).digest == load_policy(SHIPPED, import_enums=False).digest
        assert swapool.check_file(path, import_enums=False).ok


def test_a_table_loaded_by_a_relative_path_notices_its_import_changed_after_a_chdir(tmp_path, monkeypatch):
    import shutil

    for place in ("a", "b"):
        shutil.copytree(SHIPPED.parent, tmp_path / place / "policies")
    monkeypatch.chdir(tmp_path / "a")
    first = load_policy("policies/swa_backends.yaml", import_enums=False)
    imported = tmp_path / "a" / "policies" / "swa.yaml"
    imported.write_text(imported.read_text() + "# edited\n")
    monkeypatch.chdir(tmp_path / "b")  # the same relative path names an unchanged copy here
    again = load_policy(tmp_path / "a" / "policies" / "swa_backends.yaml", import_enums=False)
    assert again.digest != first.digest
