"""A small hybrid model's KV state on real tensors, for the end-to-end tests.

Target: layer 0 full attention, layer 1 sliding window, in a SWAKVPool whose SWA sub-pool
is too small to hold every page (so the allocator must evict). An EAGLE-style draft owns a
plain pool (same layers, full-pool index space) and shares the target's allocator; a
FROZEN_KV_MTP draft owns nothing and reads the target's layers. K/V are written through
the pools' own write paths; the dense reference keeps plain copies.

Which drafts read the target's KV is not restated here: it is the shipped table's own
decision (a draft it sends to the allocator on a SWA target reads the target's frozen
KV), so an algorithm added to policies/swa.yaml is exercised here the moment it is added.
The table under test ($SWAPOOL_POLICY, or a broken edit) is judged against that world.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import torch

from swapool.swa.attention import AttentionLayer, PageTable, TorchAttnBackend
from swapool.swa.attention.reference import dense_attention
from swapool.swa.kv import FrozenKVView, SWAKVPool, SWATokenToKVPoolAllocator, TokenToKVPool
from swapool.swa.policy import load_policy
from swapool.table.shipped import shipped

PAGE = 2
WINDOW = 6  # keys a SWA query sees, its own included
HQ, HKV, D = 4, 2, 16
FULL_PAGES, SWA_PAGES = 24, 14
SEQ_LENS = (3, 9, 17)
LAYERS = (AttentionLayer(0, HQ, HKV, D), AttentionLayer(1, HQ, HKV, D, sliding_window=WINDOW, logit_soft_cap=30.0))
#: The shipped table: the world's source of truth for what each algorithm's draft reads.
TRUTH = load_policy(shipped("policies/swa.yaml"), import_enums=False)
ALGORITHMS: tuple[str, ...] = TRUTH.table.inputs[TRUTH.table.input_names.index("spec_algorithm")].values


def reads_target_kv(algorithm: str, truth=TRUTH) -> bool:
    """Whether a draft of `algorithm` reads the target's frozen KV: the table (`truth`, the
    shipped one unless a test edits it) sends it to the allocator when its own pool is plain
    and the target's is SWA."""
    return truth.decide(active_pool="other", is_draft_worker=True, spec_algorithm=algorithm,
                        allocator_kvcache="swa").output == "allocator"


FROZEN_READERS = tuple(a for a in ALGORITHMS if reads_target_kv(a))
KV_OWNERS = tuple(a for a in ALGORITHMS if not reads_target_kv(a))


@dataclass
class World:
    target_pool: SWAKVPool
    allocator: SWATokenToKVPoolAllocator
    draft_pool: TokenToKVPool
    page_table: PageTable
    kv: dict = field(default_factory=dict)  # (owner, layer_id) -> [(K [L, Hkv, D], V)] per sequence
    evictions: int = 0


EXTEND = 3  # the extend tests re-run each sequence's last EXTEND tokens


def build_world(seed: int = 0, dtype: torch.dtype = torch.float32, device: str = "cpu") -> World:
    gen = torch.Generator().manual_seed(seed)
    full = TokenToKVPool(FULL_PAGES, PAGE, 1, HKV, D, dtype=dtype, device=device)
    swa = TokenToKVPool(SWA_PAGES, PAGE, 1, HKV, D, dtype=dtype, device=device)
    target = SWAKVPool(full, swa, {0: (0, False), 1: (0, True)})
    allocator = SWATokenToKVPoolAllocator(target)
    draft = TokenToKVPool(FULL_PAGES, PAGE, 2, HKV, D, dtype=dtype, device=device)
    world = World(target, allocator, draft, page_table=None)  # type: ignore[arg-type]
    pages_per_seq = []
    for b, length in enumerate(SEQ_LENS):
        pages: list[int] = []
        for owner in ("target", "draft"):
            for layer in LAYERS:
                world.kv[(owner, layer.layer_id)] = world.kv.get((owner, layer.layer_id), []) + [
                    (torch.randn(length, HKV, D, generator=gen), torch.randn(length, HKV, D, generator=gen))]
        for t in range(length):
            if t % PAGE == 0:
                pages.append(int(allocator.alloc_pages(1)[0]))
            loc = torch.tensor([pages[-1] * PAGE + t % PAGE])
            for layer in LAYERS:
                k, v = world.kv[("target", layer.layer_id)][b]
                target.set_kv_buffer(layer.layer_id, loc, k[t:t + 1].to(device), v[t:t + 1].to(device))
                k, v = world.kv[("draft", layer.layer_id)][b]
                draft.set_kv_buffer(layer.layer_id, loc, k[t:t + 1].to(device), v[t:t + 1].to(device))
            # the last EXTEND positions count as queries still to come
            world.evictions += allocator.evict_outside_window(pages, first_query_pos=t + 1 - EXTEND,
                                                              sliding_window=WINDOW)
        pages_per_seq.append(torch.tensor(pages))
    world.page_table = PageTable.from_pages(pages_per_seq, list(SEQ_LENS), PAGE, device=device)
    return world


def runner(world: World, *, draft: bool, algorithm: str, truth=TRUTH) -> SimpleNamespace:
    if not draft:
        pool = world.target_pool
    elif reads_target_kv(algorithm, truth):
        pool = FrozenKVView(world.target_pool, {0: 0, 1: 1})
    else:
        pool = world.draft_pool
    return SimpleNamespace(token_to_kv_pool=pool, is_draft_worker=draft, spec_algorithm=algorithm,
                           token_to_kv_pool_allocator=world.allocator)


def reads(draft: bool, algorithm: str, truth=TRUTH) -> str:
    """Whose KV the worker's attention must see."""
    return "draft" if draft and not reads_target_kv(algorithm, truth) else "target"


def max_error(world: World, *, draft: bool, algorithm: str, policy, seed: int = 1, extend: int = 0,
              truth=TRUTH) -> float:
    """Largest |backend - dense reference| over every layer and sequence, decode (extend=0)
    or the last `extend` tokens of each sequence, for a worker of the world `truth` describes
    whose backend follows `policy`."""
    gen = torch.Generator().manual_seed(seed)
    backend = TorchAttnBackend(runner(world, draft=draft, algorithm=algorithm, truth=truth), policy=policy,
                               swa_pool_types=(SWAKVPool,))
    backend.plan(world.page_table)
    owner = reads(draft, algorithm, truth)
    worst = 0.0
    n = max(1, extend)
    q = torch.randn(len(SEQ_LENS) * n, HQ, D, generator=gen)
    qo_indptr = torch.arange(len(SEQ_LENS) + 1) * n
    for layer in LAYERS:
        got = backend.forward_extend(q, layer, qo_indptr) if extend else backend.forward_decode(q, layer)
        for b in range(len(SEQ_LENS)):
            k, v = world.kv[(owner, layer.layer_id)][b]
            want = dense_attention(q[b * n:(b + 1) * n], k, v, window_left=layer.window_left,
                                   soft_cap=layer.logit_soft_cap, scale=layer.sm_scale)
            worst = max(worst, (got[b * n:(b + 1) * n] - want).abs().max().item())
    return worst
