"""The torch reference backend: paged decode and extend with sliding windows, CPU or CUDA."""

from __future__ import annotations

import torch

from .base import AttentionLayer, PageTable, SWAAwareBackend
from .reference import paged_attention


class TorchAttnBackend(SWAAwareBackend):
    """Translates SWA layers' page tables (once per batch, shared by all SWA layers) and
    computes attention with `reference.paged_attention`."""

    def plan(self, table: PageTable) -> None:
        """Per batch: keep the full-pool table and, if any layer needs it, its SWA translation."""
        self._table = table
        self._translated = self.translate_page_table(table) if self.swa_pool is not None else None

    def _run(self, q: torch.Tensor, layer: AttentionLayer, qo_indptr: torch.Tensor | None,
             causal: bool) -> torch.Tensor:
        table = self.layer_page_table(layer, self._table, self._translated)
        k_buf, v_buf = self.kv_pool.get_kv_buffer(layer.layer_id)
        return paged_attention(q, k_buf, v_buf, table.kv_indptr, table.kv_indices, table.kv_last_page_len,
                               table.page_size, qo_indptr, window_left=layer.window_left, causal=causal,
                               soft_cap=layer.logit_soft_cap, scale=layer.sm_scale)

    def forward_decode(self, q: torch.Tensor, layer: AttentionLayer) -> torch.Tensor:
        """q [batch, Hq, D]: one query per sequence at its last position."""
        return self._run(q, layer, None, causal=True)

    def forward_extend(self, q: torch.Tensor, layer: AttentionLayer, qo_indptr: torch.Tensor) -> torch.Tensor:
        """q [total new tokens, Hq, D]: each sequence's last tokens, causally masked."""
        return self._run(q, layer, qo_indptr, causal=True)
