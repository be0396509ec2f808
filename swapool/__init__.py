"""swapool: which SWA KV pool an attention backend translates through, as a checked table."""

from .compiled import Decision
from .diagnostics import Diagnostic, Span
from .runtime import (
    DEFAULT_SWA_POOL_TYPES,
    Policy,
    PolicyError,
    SWAKVPoolLike,
    load_policy,
    resolve_swa_kv_pool,
)

__all__ = [
    "DEFAULT_SWA_POOL_TYPES",
    "Decision",
    "Diagnostic",
    "Policy",
    "PolicyError",
    "SWAKVPoolLike",
    "Span",
    "load_policy",
    "resolve_swa_kv_pool",
]
__version__ = "0.1.0"
