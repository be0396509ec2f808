"""Token-to-KV pools: a plain pool, and a SWA pool that holds a full and a smaller SWA sub-pool.

Slots are token indices; page `p` holds slots `p*page_size .. p*page_size+page_size-1`.
Page 0 (slots 0..page_size-1) is reserved as padding, so a mapping entry of 0 means
"no slot" and still gathers safely.
"""

from __future__ import annotations

from typing import Mapping

import torch


class TokenToKVPool:
    """Per-layer K and V buffers of shape [num_pages * page_size, heads, head_dim]."""

    def __init__(self, num_pages: int, page_size: int, num_layers: int, num_kv_heads: int, head_dim: int,
                 *, dtype: torch.dtype = torch.float32, device: str | torch.device = "cpu"):
        if num_pages < 2 or page_size < 1:
            raise ValueError("a pool needs page_size >= 1 and at least 2 pages (page 0 is padding)")
        self.num_pages = num_pages
        self.page_size = page_size
        self.num_layers = num_layers
        shape = (num_pages * page_size, num_kv_heads, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.v_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]

    @property
    def size(self) -> int:
        return self.num_pages * self.page_size

    def get_key_buffer(self, layer_id: int) -> torch.Tensor:
        return self.k_buffer[layer_id]

    def get_value_buffer(self, layer_id: int) -> torch.Tensor:
        return self.v_buffer[layer_id]

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.k_buffer[layer_id], self.v_buffer[layer_id]

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        self.k_buffer[layer_id][loc] = k.to(self.k_buffer[layer_id].dtype)
        self.v_buffer[layer_id][loc] = v.to(self.v_buffer[layer_id].dtype)


class SWAKVPool:
    """Full layers live in `full_kv_pool`, sliding-window layers in the smaller `swa_kv_pool`.

    `layers_mapping[global_layer] = (index in its sub-pool, is_swa)`. Callers address every
    layer with full-pool slots; SWA layers are translated through the allocator's
    `full_to_swa_index_mapping` (registered with `register_mapping`).
    """

    def __init__(self, full_kv_pool: TokenToKVPool, swa_kv_pool: TokenToKVPool,
                 layers_mapping: Mapping[int, tuple[int, bool]]):
        if full_kv_pool.page_size != swa_kv_pool.page_size:
            raise ValueError("the full and SWA sub-pools must share a page size")
        self.full_kv_pool = full_kv_pool
        self.swa_kv_pool = swa_kv_pool
        self.layers_mapping = dict(layers_mapping)
        self.page_size = full_kv_pool.page_size
        self.full_to_swa_index_mapping: torch.Tensor | None = None

    def register_mapping(self, full_to_swa_index_mapping: torch.Tensor) -> None:
        self.full_to_swa_index_mapping = full_to_swa_index_mapping

    def is_swa_layer(self, layer_id: int) -> bool:
        return self.layers_mapping[layer_id][1]

    def translate_loc_from_full_to_swa(self, loc: torch.Tensor) -> torch.Tensor:
        if self.full_to_swa_index_mapping is None:
            raise RuntimeError("no full -> swa mapping registered; create the allocator first")
        return self.full_to_swa_index_mapping[loc]

    def _pool_and_index(self, layer_id: int) -> tuple[TokenToKVPool, int, bool]:
        index, is_swa = self.layers_mapping[layer_id]
        return (self.swa_kv_pool if is_swa else self.full_kv_pool), index, is_swa

    def get_key_buffer(self, layer_id: int) -> torch.Tensor:
        pool, index, _ = self._pool_and_index(layer_id)
        return pool.get_key_buffer(index)

    def get_value_buffer(self, layer_id: int) -> torch.Tensor:
        pool, index, _ = self._pool_and_index(layer_id)
        return pool.get_value_buffer(index)

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.get_key_buffer(layer_id), self.get_value_buffer(layer_id)

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        """Write at full-pool slots; SWA layers land at their translated SWA slots."""
        pool, index, is_swa = self._pool_and_index(layer_id)
        pool.set_kv_buffer(index, self.translate_loc_from_full_to_swa(loc) if is_swa else loc, k, v)


class FrozenKVView:
    """A draft's view of the target's KV (FROZEN_KV_MTP): it owns no buffers and reads the
    target layers it is mapped to. It is not a SWA pool itself, so a backend finds the
    mapping for its SWA layers only through the allocator."""

    def __init__(self, target: SWAKVPool, draft_to_target_layer: Mapping[int, int]):
        self.target = target
        self.draft_to_target_layer = dict(draft_to_target_layer)
        self.page_size = target.page_size

    def is_swa_layer(self, layer_id: int) -> bool:
        return self.target.is_swa_layer(self.draft_to_target_layer[layer_id])

    def get_key_buffer(self, layer_id: int) -> torch.Tensor:
        return self.target.get_key_buffer(self.draft_to_target_layer[layer_id])

    def get_value_buffer(self, layer_id: int) -> torch.Tensor:
        return self.target.get_value_buffer(self.draft_to_target_layer[layer_id])

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.get_key_buffer(layer_id), self.get_value_buffer(layer_id)
