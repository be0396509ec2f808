"""What every backend shares: the layer and batch descriptions, and the SWA pool it
resolved once at construction and translates page tables through per forward."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from ..policy import Policy, resolve_swa_kv_pool


@dataclass(frozen=True)
class AttentionLayer:
    """One attention layer. `sliding_window` keys are visible to a query (its own position
    included), i.e. flashinfer's `window_left = sliding_window - 1`; None means full attention."""

    layer_id: int
    num_q_heads: int
    num_kv_heads: int
    head_dim: int
    sliding_window: int | None = None
    logit_soft_cap: float | None = None
    scale: float | None = None

    @property
    def window_left(self) -> int:
        return -1 if self.sliding_window is None else self.sliding_window - 1

    @property
    def sm_scale(self) -> float:
        return self.scale if self.scale is not None else self.head_dim ** -0.5


@dataclass(frozen=True)
class PageTable:
    """A batch's pages in the full pool's index space (flashinfer's CSR layout, int32)."""

    kv_indptr: torch.Tensor  # [batch + 1]
    kv_indices: torch.Tensor  # [total pages]: full-pool page ids
    kv_last_page_len: torch.Tensor  # [batch], 1..page_size
    page_size: int

    @classmethod
    def from_pages(cls, pages_per_seq: list[torch.Tensor], seq_lens: list[int], page_size: int,
                   device: Any = "cpu") -> "PageTable":
        counts = [len(p) for p in pages_per_seq]
        indptr = torch.tensor([0] + counts, dtype=torch.int32).cumsum(0, dtype=torch.int32)
        indices = torch.cat([p.to(torch.int32) for p in pages_per_seq]) if pages_per_seq else \
            torch.zeros(0, dtype=torch.int32)
        last = torch.tensor([(n - 1) % page_size + 1 for n in seq_lens], dtype=torch.int32)
        return cls(indptr.to(device), indices.to(device), last.to(device), page_size)

    def seq_lens(self) -> torch.Tensor:
        pages = (self.kv_indptr[1:] - self.kv_indptr[:-1]).to(torch.int64)
        return (pages - 1) * self.page_size + self.kv_last_page_len.to(torch.int64)

    def with_indices(self, kv_indices: torch.Tensor) -> "PageTable":
        return PageTable(self.kv_indptr, kv_indices, self.kv_last_page_len, self.page_size)


class SWAAwareBackend:
    """Resolves the SWA pool once (through the policy table); per forward, SWA layers'
    page tables and write locations are translated through that pool's mapping.

    `swa_pool` is the active pool, the allocator's kvcache, or None (translate nothing).
    KV is read from the backend's own pool, `model_runner.token_to_kv_pool`.
    """

    def __init__(self, model_runner: Any, *, policy: Policy | None = None,
                 swa_pool_types: tuple[type, ...] | None = None):
        self.kv_pool = model_runner.token_to_kv_pool
        self.swa_pool = resolve_swa_kv_pool(model_runner, policy=policy, swa_pool_types=swa_pool_types)

    def translates(self, layer: AttentionLayer) -> bool:
        """Whether this layer's indices go through the SWA mapping: it is a sliding-window
        layer and a pool was resolved. The layer's own window decides (as in sglang's
        flashinfer backend), not the resolved pool's `layers_mapping` of its id (as in its
        trtllm_mha backend), which is right only while a FROZEN_KV_MTP draft's layer ids
        equal the target's."""
        sliding = layer.sliding_window is not None
        stored_in_swa = getattr(self.kv_pool, "is_swa_layer", None)
        if stored_in_swa is not None and stored_in_swa(layer.layer_id) != sliding:
            raise ValueError(f"layer {layer.layer_id} has {'a' if sliding else 'no'} sliding window, but the "
                             f"pool it reads keeps its KV in the {'full' if sliding else 'SWA'} sub-pool")
        return sliding and self.swa_pool is not None

    def layer_page_table(self, layer: AttentionLayer, table: PageTable,
                         translated: PageTable | None = None) -> PageTable:
        if not self.translates(layer):
            return table
        return translated if translated is not None else self.translate_page_table(table)

    def translate_page_table(self, table: PageTable) -> PageTable:
        """Full-pool page ids -> SWA page ids: one gather of each page's first slot."""
        mapping = self.swa_pool.full_to_swa_index_mapping
        first_slots = table.kv_indices.to(torch.int64) * table.page_size
        swa_pages = torch.div(mapping[first_slots], table.page_size, rounding_mode="floor")
        return table.with_indices(swa_pages.to(torch.int32))

    def write_locations(self, layer: AttentionLayer, out_loc: torch.Tensor) -> torch.Tensor:
        """Where this layer's new KV goes in the buffer the backend reads."""
        return self.swa_pool.translate_loc_from_full_to_swa(out_loc) if self.translates(layer) else out_loc

    def save_kv(self, layer: AttentionLayer, out_loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        k_buf, v_buf = self.kv_pool.get_kv_buffer(layer.layer_id)
        loc = self.write_locations(layer, out_loc)
        k_buf[loc] = k.to(k_buf.dtype)
        v_buf[loc] = v.to(v_buf.dtype)
