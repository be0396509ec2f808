"""A page allocator for a SWA pool: full and SWA free lists joined by the full -> swa mapping."""

from __future__ import annotations

from typing import Iterable, Sequence

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

    def _slots(self, pages: list[int]) -> torch.Tensor:
        device = self.full_to_swa_index_mapping.device
        offsets = torch.arange(self.page_size, device=device)
        return (torch.tensor(pages, dtype=torch.int64, device=device)[:, None] * self.page_size + offsets).reshape(-1)

    def _map(self, full_pages: list[int], swa_pages: list[int] | None) -> None:
        """One scatter for many pages; `swa_pages=None` unmaps them."""
        if not full_pages:
            return
        slots = self._slots(full_pages)
        self.full_to_swa_index_mapping[slots] = 0 if swa_pages is None else self._slots(swa_pages)

    def alloc_pages(self, n: int) -> torch.Tensor:
        """`n` full pages (int64), each mapped to a fresh SWA page."""
        if n > len(self._full_free) or n > len(self._swa_free):
            raise KVPoolExhausted(f"asked for {n} pages; free: {len(self._full_free)} full, {len(self._swa_free)} swa")
        pages, swa_pages = [], []
        for _ in range(n):
            p, q = self._full_free.pop(), self._swa_free.pop()
            self._swa_of[p] = q
            pages.append(p)
            swa_pages.append(q)
        self._map(pages, swa_pages)
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
        unmapped = []
        for p in self._check(full_pages):
            q = self._swa_of[p]
            if q is not None:
                self._swa_free.append(q)
                self._swa_of[p] = None
                unmapped.append(p)
        self._map(unmapped, None)

    def evict_outside_window(self, full_pages: Sequence[int], *, first_query_pos: int,
                             sliding_window: int) -> int:
        """Evict the SWA pages of one sequence's pages (in order) that no query at
        `first_query_pos` or later can see: a query at q sees the `sliding_window` keys
        ending at q. Returns how many SWA pages came free."""
        if sliding_window < 1:
            raise ValueError(f"sliding_window must be >= 1, got {sliding_window}")
        oldest_visible = first_query_pos - sliding_window + 1  # page i is out when (i+1)*page_size <= this
        out = max(0, min(len(full_pages), oldest_visible // self.page_size))
        before = len(self._swa_free)
        self.evict_swa_pages(full_pages[:out])
        return len(self._swa_free) - before

    def free_pages(self, full_pages: Iterable[int]) -> None:
        """Free full pages and whatever SWA pages they still hold."""
        pages = self._check(full_pages)
        self.evict_swa_pages(pages)
        for p in pages:
            del self._swa_of[p]
            self._full_free.append(p)
