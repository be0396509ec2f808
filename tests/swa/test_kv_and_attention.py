"""KV pools, the SWA allocator, the reference attention and the backends' translation."""

from __future__ import annotations

import importlib
import sys
import inspect
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch", reason="the KV pools and attention backends need the [torch] extra")

from swapool.swa.attention import AttentionLayer, PageTable, TorchAttnBackend  # noqa: E402
from swapool.swa.attention import flashinfer_backend as fib  # noqa: E402
from swapool.swa.attention.reference import dense_attention, paged_attention  # noqa: E402
from swapool.swa.kv import KVPoolExhausted, SWAKVPool, SWATokenToKVPoolAllocator, TokenToKVPool  # noqa: E402


def swa_setup(full_pages=8, swa_pages=4, page=2):
    full = TokenToKVPool(full_pages, page, 1, 1, 4)
    swa = TokenToKVPool(swa_pages, page, 1, 1, 4)
    pool = SWAKVPool(full, swa, {0: (0, False), 1: (0, True)})
    return pool, SWATokenToKVPoolAllocator(pool)


def test_allocation_maps_full_slots_to_swa_slots_page_by_page():
    pool, alloc = swa_setup()
    pages = alloc.alloc_pages(2).tolist()
    m = alloc.full_to_swa_index_mapping
    for p in pages:
        q = int(m[p * 2]) // 2
        assert q >= 1 and m[p * 2 + 1] == q * 2 + 1
    assert alloc.get_kvcache() is pool and pool.full_to_swa_index_mapping is m


def test_exhaustion_on_either_side_is_a_clear_error():
    _, alloc = swa_setup(full_pages=8, swa_pages=3)
    alloc.alloc_pages(2)
    with pytest.raises(KVPoolExhausted, match="free: 5 full, 0 swa"):
        alloc.alloc_pages(1)


def test_eviction_frees_the_swa_page_and_unmaps_it():
    _, alloc = swa_setup(swa_pages=3)
    a, b = alloc.alloc_pages(2).tolist()
    alloc.evict_swa_pages([a])
    assert alloc.full_to_swa_index_mapping[a * 2: a * 2 + 2].tolist() == [0, 0]
    (c,) = alloc.alloc_pages(1).tolist()  # the evicted SWA page is reused
    assert alloc.available() == (4, 0) and c not in (a, b)
    alloc.evict_swa_pages([a])  # already evicted: nothing happens


def test_window_eviction_frees_exactly_the_pages_no_later_query_can_see():
    _, alloc = swa_setup(full_pages=8, swa_pages=8, page=2)
    pages = alloc.alloc_pages(5).tolist()  # tokens 0..9
    # a query at 9 with a 4-key window sees 6..9: pages 0-2 (tokens 0..5) are out, page 3 is not
    assert alloc.evict_outside_window(pages, first_query_pos=9, sliding_window=4) == 3
    held = alloc.full_to_swa_index_mapping.view(-1, 2)[pages, 0].tolist()
    assert [h != 0 for h in held] == [False, False, False, True, True]
    assert alloc.evict_outside_window(pages, first_query_pos=9, sliding_window=4) == 0  # idempotent
    assert alloc.evict_outside_window(pages, first_query_pos=10, sliding_window=4) == 0  # 7..10: token 7 on page 3
    assert alloc.evict_outside_window(pages, first_query_pos=2, sliding_window=10) == 0  # all visible
    assert alloc.evict_outside_window(pages, first_query_pos=99, sliding_window=1) == 2
    with pytest.raises(ValueError, match="sliding_window must be >= 1"):
        alloc.evict_outside_window(pages, first_query_pos=9, sliding_window=0)


def test_freeing_what_was_not_allocated_is_an_error():
    _, alloc = swa_setup()
    (p,) = alloc.alloc_pages(1).tolist()
    alloc.free_pages([p])
    with pytest.raises(ValueError, match="not allocated"):
        alloc.free_pages([p])
    with pytest.raises(ValueError, match="not allocated"):
        alloc.evict_swa_pages([7])
    assert alloc.available() == (7, 3)


def test_swa_pool_routes_layers_and_translates_writes():
    pool, alloc = swa_setup()
    (p,) = alloc.alloc_pages(1).tolist()
    loc = torch.tensor([p * 2 + 1])
    pool.set_kv_buffer(0, loc, torch.ones(1, 1, 4), torch.ones(1, 1, 4))
    pool.set_kv_buffer(1, loc, torch.full((1, 1, 4), 2.0), torch.full((1, 1, 4), 2.0))
    swa_loc = pool.translate_loc_from_full_to_swa(loc)
    assert pool.full_kv_pool.k_buffer[0][loc].sum() == 4
    assert pool.swa_kv_pool.k_buffer[0][swa_loc].sum() == 8
    assert pool.get_key_buffer(1) is pool.swa_kv_pool.k_buffer[0]


def test_backend_write_locations_match_the_pools_own_write_path():
    pool, alloc = swa_setup()
    pages = alloc.alloc_pages(3)
    runner = SimpleNamespace(token_to_kv_pool=pool, is_draft_worker=False, spec_algorithm="NONE",
                             token_to_kv_pool_allocator=alloc)
    backend = TorchAttnBackend(runner, swa_pool_types=(SWAKVPool,))
    assert backend.swa_pool is pool
    out_loc = pages * 2 + 1
    swa_layer, full_layer = AttentionLayer(1, 1, 1, 4, sliding_window=2), AttentionLayer(0, 1, 1, 4)
    assert torch.equal(backend.write_locations(swa_layer, out_loc), alloc.full_to_swa_index_mapping[out_loc])
    assert torch.equal(backend.write_locations(full_layer, out_loc), out_loc)
    twin, twin_alloc = swa_setup()  # same allocation order, so the same mapping
    twin_alloc.alloc_pages(3)
    k, v = torch.randn(3, 1, 4), torch.randn(3, 1, 4)
    for layer in (swa_layer, full_layer):
        backend.save_kv(layer, out_loc, k, v)
        twin.set_kv_buffer(layer.layer_id, out_loc, k, v)
        assert torch.equal(pool.get_key_buffer(layer.layer_id), twin.get_key_buffer(layer.layer_id))
        assert torch.equal(pool.get_value_buffer(layer.layer_id), twin.get_value_buffer(layer.layer_id))
    table = PageTable.from_pages([pages], [6], 2)
    translated = backend.translate_page_table(table)
    assert translated.kv_indices.dtype == torch.int32
    assert torch.equal(translated.kv_indices.long() * 2, alloc.full_to_swa_index_mapping[pages * 2])


def test_a_layer_whose_window_disagrees_with_where_its_kv_lives_is_refused():
    pool, alloc = swa_setup()
    runner = SimpleNamespace(token_to_kv_pool=pool, is_draft_worker=False, spec_algorithm="NONE",
                             token_to_kv_pool_allocator=alloc)
    backend = TorchAttnBackend(runner, swa_pool_types=(SWAKVPool,))
    with pytest.raises(ValueError, match="layer 1 has no sliding window, but .* in the SWA sub-pool"):
        backend.translates(AttentionLayer(1, 1, 1, 4))
    with pytest.raises(ValueError, match="layer 0 has a sliding window, but .* in the full sub-pool"):
        backend.translates(AttentionLayer(0, 1, 1, 4, sliding_window=2))


def test_window_left_keeps_w_plus_one_keys_ending_at_the_query():
    g = torch.Generator().manual_seed(0)
    q, k, v = torch.randn(1, 2, 8, generator=g), torch.randn(10, 1, 8, generator=g), torch.randn(10, 1, 8, generator=g)
    base = dense_attention(q, k, v, window_left=3)
    k2, v2 = k.clone(), v.clone()
    k2[:6] += 100.0  # keys 0..5 are outside the 4 keys (6..9) the query at 9 sees
    v2[:6] -= 50.0
    assert torch.allclose(dense_attention(q, k2, v2, window_left=3), base)
    k2[6] += 1.0
    assert not torch.allclose(dense_attention(q, k2, v2, window_left=3), base)


def test_soft_cap_bounds_the_logits():
    q = torch.full((1, 1, 4), 10.0)
    k = torch.stack([torch.full((1, 4), 10.0), torch.zeros(1, 4)])
    v = torch.stack([torch.ones(1, 4), torch.zeros(1, 4)])
    capped = dense_attention(q, k, v, soft_cap=1.0, scale=1.0)
    expect = torch.softmax(torch.tensor([torch.tanh(torch.tensor(400.0)), 0.0]), 0)[0]
    assert torch.allclose(capped, torch.full_like(capped, float(expect)))


def test_paged_attention_equals_dense_with_gqa_and_pages():
    g = torch.Generator().manual_seed(1)
    page, lens = 3, [7, 4]
    k_buf, v_buf = torch.randn(30, 2, 8, generator=g), torch.randn(30, 2, 8, generator=g)
    pages = [torch.tensor([5, 2, 8]), torch.tensor([1, 9])]
    table = PageTable.from_pages(pages, lens, page)
    q = torch.randn(2, 4, 8, generator=g)
    out = paged_attention(q, k_buf, v_buf, table.kv_indptr, table.kv_indices, table.kv_last_page_len, page,
                          window_left=2)
    for b, (ps, n) in enumerate(zip(pages, lens)):
        slots = (ps[:, None] * page + torch.arange(page)).reshape(-1)[:n]
        want = dense_attention(q[b:b + 1], k_buf[slots], v_buf[slots], window_left=2)
        assert torch.allclose(out[b:b + 1], want, atol=1e-6)
    assert table.seq_lens().tolist() == lens


def test_flashinfer_backend_imports_without_a_gpu_and_refuses_to_construct(monkeypatch):
    monkeypatch.delitem(sys.modules, fib.__name__, raising=False)  # a fresh import, put back afterwards
    fresh = importlib.import_module(fib.__name__)
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA; the refusal is for CPU-only machines")
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        fresh.FlashInferAttnBackend(SimpleNamespace())


def test_flashinfer_call_arguments_bind_to_the_installed_signatures():
    """An API change in flashinfer shows up here, without a GPU."""
    flashinfer = pytest.importorskip("flashinfer", reason="flashinfer-python is not installed here")
    wrapper = flashinfer.BatchDecodeWithPagedKVCacheWrapper
    table = PageTable.from_pages([torch.tensor([1, 2])], [3], 2)
    layer = AttentionLayer(1, 8, 2, 64, sliding_window=4096, logit_soft_cap=30.0)
    args, kwargs = fib.wrapper_args(torch.empty(8, dtype=torch.uint8))
    inspect.signature(wrapper.__init__).bind(None, *args, **kwargs)
    args, kwargs = fib.plan_args(table, layer, torch.bfloat16, torch.bfloat16)
    bound = inspect.signature(wrapper.plan).bind(None, *args, **kwargs)
    assert bound.arguments["window_left"] == 4095 and bound.arguments["page_size"] == 2
    kv = fib.paged_view(torch.empty(8, 2, 64), 2)
    args, kwargs = fib.run_args(torch.empty(1, 8, 64), kv, kv)
    inspect.signature(wrapper.run).bind(None, *args, **kwargs)
    assert table.kv_indptr.dtype == table.kv_indices.dtype == table.kv_last_page_len.dtype == torch.int32


def test_gpu_check_script_runs_its_cpu_smoke_path(tmp_path):
    """The GPU script shares its setup, translation and reference code with this CPU path."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_check.py"
    out = tmp_path / "gpu_check.json"
    proc = subprocess.run([sys.executable, str(script), "--smoke", "--out", str(out)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["smoke"] and all(c["ok"] for c in result["correctness"])
    assert [(r["batch"], r["context"]) for r in result["timing"]] == [(1, 256), (4, 512)]


class RecordingDecodeWrapper:
    """A CPU stand-in with flashinfer's wrapper signatures: records plans, computes `run` with
    the torch reference from what was planned. It checks the backend's plumbing (which
    page table and window each layer kind is planned with, planning once per batch)."""

    plans: list = []
    workspaces: list = []

    def __init__(self, float_workspace_buffer, kv_layout="NHD"):
        assert kv_layout == "NHD"
        assert not float_workspace_buffer.any(), "flashinfer wants a zeroed float workspace on first use"
        RecordingDecodeWrapper.workspaces.append(float_workspace_buffer)

    def plan(self, indptr, indices, last_page_len, num_qo_heads, num_kv_heads, head_dim, page_size, *,
             window_left=-1, logits_soft_cap=None, sm_scale=None, q_data_type=None, kv_data_type=None):
        assert indptr.dtype == indices.dtype == last_page_len.dtype == torch.int32
        self.planned = (indptr, indices, last_page_len, page_size, window_left, logits_soft_cap, sm_scale)
        self.dtypes = (q_data_type, kv_data_type)
        RecordingDecodeWrapper.plans.append((window_left, indices.clone()))

    def run(self, q, paged_kv_cache, *, out=None):
        indptr, indices, last, page_size, window_left, cap, scale = self.planned
        # flashinfer refuses q/KV of other dtypes than planned, and an `out` unlike q
        assert (q.dtype, paged_kv_cache[0].dtype) == self.dtypes
        assert out is None or (out.shape, out.dtype) == (q.shape, q.dtype)
        k, v = (c.reshape(-1, *c.shape[2:]) for c in paged_kv_cache)
        result = paged_attention(q, k, v, indptr, indices, last, page_size, window_left=window_left,
                                 soft_cap=cap, scale=scale)
        if out is not None:
            out.copy_(result)
            return out
        return result


@pytest.fixture
def flashinfer_on_cpu(monkeypatch):
    import sys
    import types

    RecordingDecodeWrapper.plans = []
    RecordingDecodeWrapper.workspaces = []
    monkeypatch.setitem(sys.modules, "flashinfer",
                        types.SimpleNamespace(BatchDecodeWithPagedKVCacheWrapper=RecordingDecodeWrapper))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    return RecordingDecodeWrapper


@pytest.mark.parametrize("draft, reader", [(False, False), (True, False), (True, True)],
                         ids=["target", "kv-owning-draft", "frozen-kv-draft"])
def test_flashinfer_backend_plumbing_matches_the_torch_backend(flashinfer_on_cpu, draft, reader):
    """CPU twin of the GPU check: same world, same policy, flashinfer's calls replayed in torch."""
    from swapool import load_policy

    from ..e2e_world import FROZEN_READERS, HQ, KV_OWNERS, LAYERS, SEQ_LENS, build_world, reads, runner

    algorithm = (FROZEN_READERS if reader else KV_OWNERS)[-1]

    world = build_world()
    policy = load_policy(import_enums=False)
    mr = runner(world, draft=draft, algorithm=algorithm)
    fast = fib.FlashInferAttnBackend(mr, policy=policy, swa_pool_types=(SWAKVPool,), workspace_bytes=16)
    ref = TorchAttnBackend(mr, policy=policy, swa_pool_types=(SWAKVPool,))
    fast.plan(world.page_table, LAYERS * 3, q_dtype=torch.float32)  # repeated layers plan once per kind
    ref.plan(world.page_table)
    assert [w for w, _ in flashinfer_on_cpu.plans] == [layer.window_left for layer in LAYERS]
    assert len(flashinfer_on_cpu.workspaces) == 2 and flashinfer_on_cpu.workspaces[0] is flashinfer_on_cpu.workspaces[1]
    full_pages = world.page_table.kv_indices
    swa_pages = ref.translate_page_table(world.page_table).kv_indices if ref.swa_pool is not None else full_pages
    assert torch.equal(flashinfer_on_cpu.plans[0][1], full_pages)
    assert torch.equal(flashinfer_on_cpu.plans[1][1], swa_pages)
    assert (ref.swa_pool is None) == (draft and not reader)
    q = torch.randn(len(SEQ_LENS), HQ, LAYERS[0].head_dim, generator=torch.Generator().manual_seed(3))
    owner = reads(draft, algorithm)
    for layer in LAYERS:
        out = torch.full_like(q, float("nan"))
        got = fast.forward_decode(q, layer, out=out)
        assert torch.isfinite(out).all() and got is out
        for b, _ in enumerate(SEQ_LENS):  # what the worker must see, computed without the pools
            assert torch.allclose(got[b], naive_decode(q[b], *world.kv[(owner, layer.layer_id)][b], layer), atol=1e-5)


def naive_decode(q, k, v, layer):
    """The last position's attention over dense K/V, one head at a time: shares no code with
    the reference the stand-in wrapper computes with."""
    seq_len, group = k.shape[0], q.shape[0] // k.shape[1]
    first = 0 if layer.window_left < 0 else max(0, seq_len - 1 - layer.window_left)
    out = torch.empty_like(q)
    for h in range(q.shape[0]):
        keys, values = k[first:, h // group], v[first:, h // group]
        scores = (keys @ q[h]) * layer.sm_scale
        if layer.logit_soft_cap is not None:
            scores = layer.logit_soft_cap * torch.tanh(scores / layer.logit_soft_cap)
        weights = torch.exp(scores - scores.max())
        out[h] = (weights / weights.sum()) @ values
    return out


def test_the_independent_decode_tells_the_windows_and_pools_apart():
    """naive_decode can fail: the full layer's answer is not the SWA layer's, and the
    draft's own KV is not the target's."""
    from ..e2e_world import HQ, LAYERS, build_world

    world = build_world()
    q = torch.randn(HQ, LAYERS[0].head_dim, generator=torch.Generator().manual_seed(5))
    k, v = world.kv[("target", 1)][2]  # the longest sequence, past the window
    assert not torch.allclose(naive_decode(q, k, v, LAYERS[0]), naive_decode(q, k, v, LAYERS[1]), atol=1e-3)
    assert not torch.allclose(naive_decode(q, k, v, LAYERS[1]),
                              naive_decode(q, *world.kv[("draft", 1)][2], LAYERS[1]), atol=1e-3)
    want = dense_attention(q[None], k, v, window_left=LAYERS[1].window_left, soft_cap=LAYERS[1].logit_soft_cap,
                           scale=LAYERS[1].sm_scale)[0]
    assert torch.allclose(naive_decode(q, k, v, LAYERS[1]), want, atol=1e-5)
