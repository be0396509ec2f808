"""End to end on real tensors: the attention each worker computes through the policy's
pool equals a dense reference, and the two historical regressions break it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="the KV pools and attention backends need the [torch] extra")

from swapool import load_policy  # noqa: E402
from swapool.swa.attention import AttentionLayer, TorchAttnBackend  # noqa: E402
from swapool.swa.attention.reference import dense_attention  # noqa: E402
from swapool.swa.kv import FrozenKVView, SWAKVPool  # noqa: E402

from ..e2e_world import (ALGORITHMS, EXTEND, FROZEN_READERS, HQ, KV_OWNERS, LAYERS, SEQ_LENS,  # noqa: E402
                        SWA_PAGES, build_world, max_error, runner)
from ..helpers import add_algorithms, dump, reverted_eagle_fix, shipped_data, without_frozen_fallback  # noqa: E402

TOL = 1e-5


@pytest.fixture(scope="module")
def world():
    return build_world()


@pytest.fixture(scope="module")
def policy():
    """The shipped table, or the one $SWAPOOL_POLICY names (to run these tests against an edit)."""
    return load_policy(import_enums=False)


def test_e2e_world_has_both_kinds_of_draft():
    assert FROZEN_READERS and KV_OWNERS and set(FROZEN_READERS) | set(KV_OWNERS) == set(ALGORITHMS)


def test_e2e_world_needs_eviction(world):
    pages_without_eviction = sum(-(-n // 2) for n in SEQ_LENS)
    assert pages_without_eviction > SWA_PAGES - 1
    assert world.evictions > 0
    mapping = world.allocator.full_to_swa_index_mapping
    live = mapping[mapping > 0]
    assert len(set(live.tolist())) == live.numel()  # injective while mapped
    mapped_slots = torch.nonzero(mapping > 0).squeeze(1)
    assert (live != mapped_slots).any()  # not the identity: a missing translation would show


@pytest.mark.parametrize("extend", [0, EXTEND], ids=["decode", "extend"])
def test_e2e_target_matches_dense_reference(world, policy, extend):
    assert max_error(world, draft=False, algorithm="NONE", policy=policy, extend=extend) < TOL


@pytest.mark.parametrize("extend", [0, EXTEND], ids=["decode", "extend"])
def test_e2e_every_draft_algorithm_matches_dense_reference(world, policy, extend):
    for algorithm in ALGORITHMS:
        err = max_error(world, draft=True, algorithm=algorithm, policy=policy, extend=extend)
        assert err < TOL, (algorithm, err)


def broken(tmp_path, edit, name):
    """An edited table without the invariants and cases that would stop it loading: the e2e
    tests are the last line of defence and must catch it on their own."""
    data = edit(shipped_data())
    data.pop("invariants")
    data["cases"] = []
    path = tmp_path / f"{name}.yaml"
    path.write_text(dump(data))
    return path


def test_e2e_reverted_eagle_fix_reads_the_wrong_kv(world, tmp_path):
    bad = load_policy(broken(tmp_path, reverted_eagle_fix, "reverted"), import_enums=False)
    for algorithm in KV_OWNERS:
        assert max_error(world, draft=True, algorithm=algorithm, policy=bad) > 0.1, algorithm


def test_e2e_removed_frozen_fallback_indexes_past_the_swa_pool(world, tmp_path):
    bad = load_policy(broken(tmp_path, without_frozen_fallback, "nofrozen"), import_enums=False)
    for algorithm in FROZEN_READERS:
        with pytest.raises(IndexError):
            max_error(world, draft=True, algorithm=algorithm, policy=bad)


@pytest.mark.parametrize("edit", [reverted_eagle_fix, without_frozen_fallback])
def test_e2e_tests_fail_when_swapool_policy_names_a_broken_table(tmp_path, edit):
    path = broken(tmp_path, edit, edit.__name__)
    env = {**os.environ, "SWAPOOL_POLICY": str(path)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"{__file__}::test_e2e_every_draft_algorithm_matches_dense_reference"],
                          env=env, capture_output=True, text=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "2 failed" in proc.stdout


def test_e2e_frozen_draft_with_its_own_layer_ids_reads_the_right_target_layers(world, policy):
    """A FROZEN_KV_MTP draft's layer ids need not be the target's: draft layer 0 (sliding
    window) reads target layer 1, draft layer 1 (full) reads target layer 0. Whether a layer
    is translated follows the layer's own window, not the target pool's view of its id."""
    swa, full = LAYERS[1], LAYERS[0]
    draft_layers = {AttentionLayer(0, HQ, swa.num_kv_heads, swa.head_dim, sliding_window=swa.sliding_window,
                                   logit_soft_cap=swa.logit_soft_cap): 1,
                    AttentionLayer(1, HQ, full.num_kv_heads, full.head_dim): 0}
    mr = runner(world, draft=True, algorithm=FROZEN_READERS[0])
    mr.token_to_kv_pool = FrozenKVView(world.target_pool, {0: 1, 1: 0})
    backend = TorchAttnBackend(mr, policy=policy, swa_pool_types=(SWAKVPool,))
    backend.plan(world.page_table)
    q = torch.randn(len(SEQ_LENS), HQ, full.head_dim, generator=torch.Generator().manual_seed(5))
    for layer, target_layer in draft_layers.items():
        got = backend.forward_decode(q, layer)
        for b in range(len(SEQ_LENS)):
            k, v = world.kv[("target", target_layer)][b]
            want = dense_attention(q[b:b + 1], k, v, window_left=layer.window_left, soft_cap=layer.logit_soft_cap,
                                   scale=layer.sm_scale)
            assert (got[b:b + 1] - want).abs().max().item() < TOL, (layer.layer_id, b)


def test_e2e_an_algorithm_added_by_one_edit_is_exercised_on_tensors(world, tmp_path):
    """The README's one edit (PARD joins owns_its_kv, SUFFIX_MTP joins reads_target_kv): the
    world builds each draft from the edited table's decision and the backend, following the
    same table, reads the right KV. A table without the edit refuses the new names."""
    from swapool import PolicyError

    edited = load_policy(add_algorithms(tmp_path, owner="PARD", reader="SUFFIX_MTP") / "swa.yaml",
                         import_enums=False)
    for algorithm, reader in (("PARD", False), ("SUFFIX_MTP", True)):
        own_pool = runner(world, draft=True, algorithm=algorithm, truth=edited).token_to_kv_pool
        assert (own_pool is world.draft_pool) == (not reader)
        for extend in (0, EXTEND):
            err = max_error(world, draft=True, algorithm=algorithm, policy=edited, truth=edited, extend=extend)
            assert err < TOL, (algorithm, extend, err)
        if algorithm in ALGORITHMS:  # a clone where the edit was made to the shipped table itself
            continue
        with pytest.raises(PolicyError, match=f"(?i)spec_algorithm='{algorithm}' is not in the domain.*append it to"):
            max_error(world, draft=True, algorithm=algorithm, policy=load_policy(import_enums=False), truth=edited)
