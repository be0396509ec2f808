"""The facts the SWA decision reads from a model runner, and the pools it may answer."""

from __future__ import annotations

import abc
from typing import Any, Iterable

from ..table.model import Table

DECISION = "swa_kv_pool"
#: Facts read from a model runner, in the order the tables read them.
SWA_FACTS = ("allocator_owns_active_pool", "active_pool", "active_swa_layers", "active_request_window",
             "is_draft_worker", "spec_algorithm", "allocator_kvcache", "allocator_swa_layers")


def has_swa_layers(pool: Any) -> bool:
    """sglang's `pool.swa_layer_nums > 0`; a pool without the attribute has no SWA layers."""
    return bool(getattr(pool, "swa_layer_nums", 0) > 0)


def has_request_window(pool: Any) -> bool:
    """Whether the pool keeps its SWA KV in a per-request window (DeepSeek V4's
    `request_window` is set); such a pool has no full -> swa slot mapping to write through."""
    return getattr(pool, "request_window", None) is not None


def allocator_owns_pool(model_runner: Any) -> bool:
    """Whether the runner's allocator names the physical slots of the runner's own pool:
    a unified allocator (one that translates virtual KV ids, `translate_kv_loc`) whose
    kvcache is that pool, or the host allocator of a fused draft pool (`host_allocator`).
    sglang's KVIndexTranslator then writes through the allocator's own tables."""
    allocator = model_runner.token_to_kv_pool_allocator
    pool = model_runner.token_to_kv_pool
    if getattr(pool, "host_allocator", None) is allocator:
        return True
    return callable(getattr(allocator, "translate_kv_loc", None)) and allocator.get_kvcache() is pool


#: Facts read from a pool rather than from the model runner: fact -> (the pool fact whose
#: pool it reads, the function of that pool). The generated resolver and the start-up
#: guard both call it, so the fact has one spelling.
POOL_DERIVED = {"active_swa_layers": ("active_pool", has_swa_layers),
                "active_request_window": ("active_pool", has_request_window),
                "allocator_swa_layers": ("allocator_kvcache", has_swa_layers)}
#: Facts computed from the whole model runner, by the same one function everywhere.
RUNNER_DERIVED = {"allocator_owns_active_pool": allocator_owns_pool}
#: Where a pool fact's pool is on a model runner: attributes, then a call where a step ends
#: in "()". The generated resolver inlines `pool_expression`; the start-up guard calls
#: `runner_facts`: one description, two speeds.
POOL_PATHS = {"active_pool": ("token_to_kv_pool",), "allocator_kvcache": ("token_to_kv_pool_allocator", "get_kvcache()")}


def pool_expression(fact: str, runner: str = "mr") -> str:
    """The Python expression that reads `fact`'s pool from `runner` (e.g. `mr.token_to_kv_pool`)."""
    return runner + "".join("." + step for step in POOL_PATHS[fact])


def read_pool(model_runner: Any, fact: str) -> Any:
    """`fact`'s pool, read as `pool_expression` reads it."""
    value = model_runner
    for step in POOL_PATHS[fact]:
        value = getattr(value, step.removesuffix("()"))
        if step.endswith("()"):
            value = value()
    return value


def runner_facts(model_runner: Any, types: tuple[type, ...], names: Iterable[str]) -> dict[str, Any]:
    """The facts `names` of a model runner as the generated resolver reads them, with the
    place's SWA pool check `types`; each pool is read once. A fact the runner does not
    carry (a translator is given no algorithm) is left out: the table asks for it only
    if a rule reads it."""
    pools: dict[str, Any] = {}

    def pool(fact: str) -> Any:
        if fact not in pools:
            pools[fact] = read_pool(model_runner, fact)
        return pools[fact]

    def read(name: str) -> Any:
        if name in POOL_FACTS:
            return "swa" if isinstance(pool(name), types) else "other"
        if name in POOL_DERIVED:
            source, derive = POOL_DERIVED[name]
            return derive(pool(source))
        if name in RUNNER_DERIVED:
            return RUNNER_DERIVED[name](model_runner)
        return getattr(model_runner, name)

    facts = {}
    for name in names:
        try:
            facts[name] = read(name)
        except AttributeError:
            continue
    return facts
BOOL_FACTS = ("is_draft_worker", "active_swa_layers", "active_request_window", "allocator_owns_active_pool",
              "allocator_swa_layers")
#: What the pool facts are: whether the pool passes the backend's SWA pool check.
POOL_FACTS = ("active_pool", "allocator_kvcache")
POOL_VALUES = ("swa", "other")
#: The outputs, and the pool each one hands back.
SWA_OUTPUTS = ("active", "allocator", "none")
#: The pool fact that must have passed the SWA check wherever an output is answered.
SAFE_WHEN = {"active": "active_pool", "allocator": "allocator_kvcache"}
#: Inputs that name the place deciding (a backend); fixed by `Policy.restrict` before resolving.
SELECTORS = ("backend",)


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
    """Why a checked SWA table cannot drive the resolver yet (a selector still open), or None."""
    open_ = [n for n in table.input_names if n in SELECTORS]
    if open_:
        return (f"policy {table.file} still has the input(s) {', '.join(open_)}: restrict it first, "
                f"e.g. policy.restrict({open_[0]}=...)")
    return None


#: The engine whose enums the SWA tables bind to: a binding may import only from here
#: (unless the caller says otherwise: $SWAPOOL_ENUM_MODULES, `enum_modules=`, --enum-module).
ENUM_MODULES: tuple[str, ...] = ("sglang",)
