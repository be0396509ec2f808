"""torch KV pools for sliding-window models (needs the [torch] extra)."""

from .allocator import KVPoolExhausted, SWATokenToKVPoolAllocator
from .pools import FrozenKVView, SWAKVPool, TokenToKVPool

__all__ = ["FrozenKVView", "KVPoolExhausted", "SWAKVPool", "SWATokenToKVPoolAllocator", "TokenToKVPool"]
