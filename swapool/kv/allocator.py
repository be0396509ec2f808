"""A page allocator for a SWA pool: full and SWA free lists joined by the full -> swa mapping."""

from __future__ import annotations

from typing import Iterable

import torch

from .pools import SWAKVPool


class KVPoolExhausted(RuntimeError):
    """No free pages left on one side of the pool."""


class SWATokenToKVPoolAllocator:
    """Hands out full-pool pages, each backed by a SWA page while it is inside the window.

    `full_to_swa_index_mapping[full_slot] = swa_slot` (0 once the SWA page is evicted or
    freed) is what a backend translates SWA layers' page tables and write locations
    through. `get_kvcache()` returns the SWA pool, as sglang's allocator does.
    """

    def __init__(self, kvcache: SWAKVPool):
        self._kvcache = kvcache
        self.page_size = kvcache.page_size
        full, swa = kvcache.full_kv_pool, kvcache.swa_kv_pool
        device = full.k_buffer[0].device if full.k_buffer else "cpu"
        self.full_to_swa_index_mapping = torch.zeros(full.size, dtype=torch.int64, device=device)
        self._full_free = list(range(full.num_pages - 1, 0, -1))  # pop() gives 1, 2, 3, ...
        self._swa_free = list(range(1, swa.num_pages))  # pop() gives the highest first: mapping != identity
        self._swa_of: dict[int, int | None] = {}  # allocated full page -> its SWA page (None: evicted)
        kvcache.register_mapping(self.full_to_swa_index_mapping)

    def get_kvcache(self) -> SWAKVPool:
        return self._kvcache

    def available(self) -> tuple[int, int]:
        """Free (full, swa) pages."""
        return len(self._full_free), len(self._swa_free)

    def _map(self, full_page: int, swa_page: int | None) -> None:
        ps = self.page_size
        target = self.full_to_swa_index_mapping[full_page * ps:(full_page + 1) * ps]
        if swa_page is None:
            target.zero_()
        else:
            target.copy_(torch.arange(swa_page * ps, (swa_page + 1) * ps, device=target.device))

    def alloc_pages(self, n: int) -> torch.Tensor:
        """`n` full pages (int64), each mapped to a fresh SWA page."""
        if n > len(self._full_free) or n > len(self._swa_free):
            raise KVPoolExhausted(f"asked for {n} pages; free: {len(self._full_free)} full, "
                                  f"{len(self._swa_free)} swa")
        pages = []
        for _ in range(n):
            p, q = self._full_free.pop(), self._swa_free.pop()
            self._swa_of[p] = q
            self._map(p, q)
            pages.append(p)
        return torch.tensor(pages, dtype=torch.int64)

    def _check(self, pages: Iterable[int]) -> list[int]:
        pages = [int(p) for p in pages]
        unknown = [p for p in pages if p not in self._swa_of]
        if unknown:
            raise ValueError(f"page(s) {unknown} were not allocated by this allocator")
        if len(set(pages)) != len(pages):
            raise ValueError(f"pages {pages} name a page twice")
        return pages

    def evict_swa_pages(self, full_pages: Iterable[int]) -> None:
        """Give back the SWA pages of full pages that slid out of the window (already evicted: no-op)."""
        for p in self._check(full_pages):
            q = self._swa_of[p]
            if q is not None:
                self._swa_free.append(q)
                self._swa_of[p] = None
                self._map(p, None)

    def free_pages(self, full_pages: Iterable[int]) -> None:
        """Free full pages and whatever SWA pages they still hold."""
        pages = self._check(full_pages)
        self.evict_swa_pages(pages)
        for p in pages:
            del self._swa_of[p]
            self._full_free.append(p)
