"""Ranks agree on the table they loaded: one all-gather of its digest, bounded in time.

Used only when `torch.distributed` is already initialised: torch is taken from the
modules the process has loaded, never imported here. Every rank joins the gather even when its own load failed, so the others learn
which rank failed instead of hanging.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from typing import Any

DIGEST_BYTES = 32


def is_initialized() -> bool:
    dist = sys.modules.get("torch.distributed")
    return bool(dist is not None and dist.is_available() and dist.is_initialized())


def gather_digests(digest: str | None, *, group: Any = None, timeout_s: float = 60.0) -> list[tuple[int, str | None]]:
    """(global rank, digest or None for a rank that failed to load) for every rank of `group`.

    Raises TimeoutError when not every rank joins within `timeout_s`.
    """
    torch = sys.modules["torch"]
    dist = sys.modules["torch.distributed"]

    payload = torch.zeros(DIGEST_BYTES + 1, dtype=torch.uint8)
    if digest is not None:
        payload[0] = 1
        payload[1:] = torch.frombuffer(bytearray(bytes.fromhex(digest)), dtype=torch.uint8)
    if dist.get_backend(group) == "nccl":  # NCCL gathers CUDA tensors only
        payload = payload.cuda()
    world = dist.get_world_size(group)
    gathered = [torch.empty_like(payload) for _ in range(world)]
    work = dist.all_gather(gathered, payload, group=group, async_op=True)
    try:
        work.wait(timeout=timedelta(seconds=timeout_s))
    except RuntimeError as exc:
        raise TimeoutError(f"not every rank reported its policy within {timeout_s:g} s ({exc})") from None
    out = []
    for i, t in enumerate(gathered):
        t = t.cpu()
        rank = dist.get_global_rank(group, i) if group is not None else i
        out.append((rank, bytes(t[1:].tolist()).hex() if int(t[0]) else None))
    return out


def disagreement(entries: list[tuple[int, str | None]]) -> str | None:
    """Why the ranks do not agree (naming ranks and short digests), or None when they do."""
    failed = [r for r, d in entries if d is None]
    by_digest: dict[str, list[int]] = {}
    for r, d in entries:
        if d is not None:
            by_digest.setdefault(d, []).append(r)
    if not failed and len(by_digest) <= 1:
        return None
    parts = [f"rank(s) {', '.join(map(str, ranks))}: sha256:{d[:12]}" for d, ranks in by_digest.items()]
    if failed:
        parts.append(f"rank(s) {', '.join(map(str, failed))}: failed to load")
    return "ranks disagree on the SWA pool policy; " + "; ".join(parts)
