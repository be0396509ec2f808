"""The facts the SWA decision reads from a model runner, and the pools it may answer."""

from __future__ import annotations

import abc
from typing import Any

from ..table.model import Table

DECISION = "swa_kv_pool"
#: Facts read from a model runner, in the order the shipped table reads them.
SWA_FACTS = ("active_pool", "is_draft_worker", "spec_algorithm", "allocator_kvcache")
#: What the pool facts are: whether the pool passes the backend's SWA pool check.
POOL_FACTS = ("active_pool", "allocator_kvcache")
POOL_VALUES = ("swa", "other")
#: The outputs, and the pool each one hands back.
SWA_OUTPUTS = ("active", "allocator", "none")


class SWAKVPoolLike(abc.ABC):
    """Any class with `translate_loc_from_full_to_swa` counts as a SWA pool (sglang's
    SWAKVPool and swapool's both have it). ABC caching keeps the check cheap; backends
    that know their concrete class should pass it as `swa_pool_types` instead."""

    @classmethod
    def __subclasshook__(cls, other: type) -> Any:
        if cls is SWAKVPoolLike:
            return any("translate_loc_from_full_to_swa" in vars(base) for base in other.__mro__) or NotImplemented
        return NotImplemented


DEFAULT_SWA_POOL_TYPES: tuple[type, ...] = (SWAKVPoolLike,)


def unsupported(table: Table) -> str | None:
    """Why a table cannot drive the SWA resolver, or None when it can."""
    extra_in = [n for n in table.input_names if n not in SWA_FACTS]
    extra_out = [v for v in table.output.values if v not in SWA_OUTPUTS]
    odd = [f"{i.name}: {list(i.values)}" for i in table.inputs
           if i.name in POOL_FACTS and not set(i.values) <= set(POOL_VALUES)]
    if table.decision != DECISION or extra_in or extra_out or odd:
        return (f"policy {table.file} decides '{table.decision}' with inputs {list(table.input_names)} and "
                f"outputs {list(table.output.values)}; resolve_swa_kv_pool reads only {list(SWA_FACTS)} "
                f"(pool facts valued swa/other) and returns only {list(SWA_OUTPUTS)}")
    return None
