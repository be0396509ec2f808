"""flashinfer decode backend (CUDA only): plan once per batch, run per layer.

Full and SWA layers differ in window and in page table (SWA layers read translated
pages), so the backend keeps one `BatchDecodeWithPagedKVCacheWrapper` per distinct
(window_left, translated) pair and plans each once per batch. Importing this module
needs neither a GPU nor flashinfer; constructing the backend needs both.
"""

from __future__ import annotations

from typing import Any, Iterable

import torch

from .base import AttentionLayer, PageTable, SWAAwareBackend

WORKSPACE_BYTES = 128 * 1024 * 1024


def wrapper_args(workspace: torch.Tensor) -> tuple[tuple, dict]:
    """Arguments of `BatchDecodeWithPagedKVCacheWrapper(...)` (checked against the installed
    signature on CPU by the tests)."""
    return (workspace,), {"kv_layout": "NHD"}


def plan_args(table: PageTable, layer: AttentionLayer, kv_dtype: torch.dtype, q_dtype: torch.dtype) -> tuple[tuple, dict]:
    """Arguments of `wrapper.plan(...)` for one (layer shape, window) on one page table."""
    return (table.kv_indptr, table.kv_indices, table.kv_last_page_len, layer.num_q_heads, layer.num_kv_heads,
            layer.head_dim, table.page_size), {
        "window_left": layer.window_left,
        "logits_soft_cap": layer.logit_soft_cap,
        "sm_scale": layer.sm_scale,
        "q_data_type": q_dtype,
        "kv_data_type": kv_dtype,
    }


def run_args(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, out: torch.Tensor | None = None
             ) -> tuple[tuple, dict]:
    """Arguments of `wrapper.run(...)`: KV as a (k, v) pair of [pages, page_size, Hkv, D] views."""
    return (q, (k_cache, v_cache)), {"out": out}


def paged_view(buf: torch.Tensor, page_size: int) -> torch.Tensor:
    """[slots, H, D] -> [pages, page_size, H, D] without a copy (NHD layout)."""
    return buf.view(buf.shape[0] // page_size, page_size, *buf.shape[1:])


class FlashInferAttnBackend(SWAAwareBackend):
    def __init__(self, model_runner: Any, *, policy: Any = None, swa_pool_types: Any = None,
                 workspace_bytes: int = WORKSPACE_BYTES):
        if not torch.cuda.is_available():
            raise RuntimeError("FlashInferAttnBackend needs a CUDA GPU (sm75+); use TorchAttnBackend on CPU")
        try:
            from flashinfer import BatchDecodeWithPagedKVCacheWrapper
        except ImportError as exc:
            raise RuntimeError("FlashInferAttnBackend needs flashinfer-python (pip install 'swapool[cuda]')") from exc
        super().__init__(model_runner, policy=policy, swa_pool_types=swa_pool_types)
        self._wrapper_cls = BatchDecodeWithPagedKVCacheWrapper
        self._workspace_bytes = workspace_bytes
        self._workspace: torch.Tensor | None = None
        self._wrappers: dict[tuple, Any] = {}
        self._planned: dict[tuple, Any] = {}

    def _key(self, layer: AttentionLayer) -> tuple:
        return (layer.window_left, self.translates(layer), layer.num_q_heads, layer.num_kv_heads,
                layer.head_dim, layer.logit_soft_cap, layer.sm_scale)

    def _wrapper(self, key: tuple, device: torch.device) -> Any:
        """One wrapper (and plan) per layer kind. They share one float workspace, as sglang's
        wrappers do: it holds split-k partials only while a run is in flight, and runs on one
        stream never overlap."""
        if key not in self._wrappers:
            if self._workspace is None:
                # flashinfer's split-k reduction expects a zeroed float workspace on first use
                self._workspace = torch.zeros(self._workspace_bytes, dtype=torch.uint8, device=device)
            args, kwargs = wrapper_args(self._workspace)
            self._wrappers[key] = self._wrapper_cls(*args, **kwargs)
        return self._wrappers[key]

    def plan(self, table: PageTable, layers: Iterable[AttentionLayer], q_dtype: torch.dtype) -> None:
        """Once per batch: translate the page table once, then plan each distinct layer kind."""
        translated = self.translate_page_table(table) if self.swa_pool is not None else None
        self._planned = {}
        for layer in layers:
            key = self._key(layer)
            if key in self._planned:
                continue
            k_buf = self.kv_pool.get_key_buffer(layer.layer_id)
            args, kwargs = plan_args(self.layer_page_table(layer, table, translated), layer, k_buf.dtype, q_dtype)
            wrapper = self._wrapper(key, k_buf.device)
            wrapper.plan(*args, **kwargs)
            self._planned[key] = wrapper

    def forward_decode(self, q: torch.Tensor, layer: AttentionLayer, out: torch.Tensor | None = None) -> torch.Tensor:
        """Per layer: run the plan made for this layer's kind on its own KV buffers."""
        wrapper = self._planned[self._key(layer)]
        k_buf, v_buf = self.kv_pool.get_kv_buffer(layer.layer_id)
        page_size = self.kv_pool.page_size
        args, kwargs = run_args(q, paged_view(k_buf, page_size), paged_view(v_buf, page_size), out)
        return wrapper.run(*args, **kwargs)
