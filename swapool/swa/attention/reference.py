"""Paged attention with a sliding window in plain torch: the reference every backend is
checked against (any device; float32 math)."""

from __future__ import annotations

import torch


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor, scale: float,
            soft_cap: float | None) -> torch.Tensor:
    """q [n, Hq, D], k/v [L, Hkv, D], allowed [n, L] -> [n, Hq, D]."""
    group = q.shape[1] // k.shape[1]
    k = k.float().repeat_interleave(group, dim=1)
    v = v.float().repeat_interleave(group, dim=1)
    scores = torch.einsum("nhd,lhd->hnl", q.float(), k) * scale
    if soft_cap is not None:
        scores = soft_cap * torch.tanh(scores / soft_cap)
    scores = scores.masked_fill(~allowed.unsqueeze(0), float("-inf"))
    return torch.einsum("hnl,lhd->nhd", torch.softmax(scores, dim=-1), v)


def gather_slots(kv_indices: torch.Tensor, start: int, end: int, seq_len: int, page_size: int) -> torch.Tensor:
    pages = kv_indices[start:end].to(torch.int64)
    offsets = torch.arange(page_size, device=pages.device)
    return (pages[:, None] * page_size + offsets).reshape(-1)[:seq_len]


def paged_attention(q: torch.Tensor, k_buf: torch.Tensor, v_buf: torch.Tensor, kv_indptr: torch.Tensor,
                    kv_indices: torch.Tensor, kv_last_page_len: torch.Tensor, page_size: int,
                    qo_indptr: torch.Tensor | None = None, *, window_left: int = -1, causal: bool = True,
                    soft_cap: float | None = None, scale: float | None = None) -> torch.Tensor:
    """Attention of each sequence's queries over its paged KV.

    Decode: `qo_indptr=None`, one query per sequence at its last position. Extend: the
    queries of sequence b are its last `qo_indptr[b+1]-qo_indptr[b]` positions, with a
    causal mask. `window_left=W` keeps the W+1 keys ending at each query's position.
    """
    batch = kv_indptr.numel() - 1
    if qo_indptr is None:
        qo_indptr = torch.arange(batch + 1, device=q.device)
    scale = scale if scale is not None else q.shape[-1] ** -0.5
    out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
    indptr, qptr, last = kv_indptr.tolist(), qo_indptr.tolist(), kv_last_page_len.tolist()
    for b in range(batch):
        seq_len = (indptr[b + 1] - indptr[b] - 1) * page_size + last[b]
        slots = gather_slots(kv_indices, indptr[b], indptr[b + 1], seq_len, page_size)
        n = qptr[b + 1] - qptr[b]
        q_pos = torch.arange(seq_len - n, seq_len, device=q.device)[:, None]
        k_pos = torch.arange(seq_len, device=q.device)[None, :]
        allowed = k_pos <= q_pos if causal else torch.ones(n, seq_len, dtype=torch.bool, device=q.device)
        if window_left >= 0:
            allowed &= k_pos >= q_pos - window_left
        out[qptr[b]:qptr[b + 1]] = _attend(q[qptr[b]:qptr[b + 1]], k_buf[slots], v_buf[slots], allowed, scale,
                                            soft_cap)
    return out.to(q.dtype)


def dense_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, window_left: int = -1,
                    soft_cap: float | None = None, scale: float | None = None) -> torch.Tensor:
    """One sequence without any pool: q [n, Hq, D] are the last n positions of k/v [L, Hkv, D]."""
    n, seq_len = q.shape[0], k.shape[0]
    q_pos = torch.arange(seq_len - n, seq_len)[:, None]
    k_pos = torch.arange(seq_len)[None, :]
    allowed = k_pos <= q_pos
    if window_left >= 0:
        allowed &= k_pos >= q_pos - window_left
    return _attend(q, k, v, allowed, scale if scale is not None else q.shape[-1] ** -0.5, soft_cap).to(q.dtype)
