"""The facts the SWA decision reads from a model runner, and the pools it may answer."""

from __future__ import annotations

import abc

from ..table.model import Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

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
#: pool it reads, the function of that pool).
POOL_DERIVED = {"active_swa_layers": ("active_pool", has_swa_layers),
                "active_request_window": ("active_pool", has_request_window),
                "allocator_swa_layers": ("allocator_kvcache", has_swa_layers)}
#: Facts computed from the whole model runner.
RUNNER_DERIVED = {"allocator_owns_active_pool": allocator_owns_pool}


def read_pool(model_runner: Any, fact: str) -> Any:
    """The pool a pool fact is about: the runner's own, or its allocator's kvcache."""
    if fact == "active_pool":
        return model_runner.token_to_kv_pool
    return model_runner.token_to_kv_pool_allocator.get_kvcache()


class RunnerFacts:
    """The facts of one model runner as the SWA decision reads them, each pool read at most
    once. A pool fact is `swa` when its pool passes the place's SWA pool check `types`;
    the pools that passed are kept, since only those may be answered."""

    __slots__ = ("runner", "types", "pools", "passed")

    def __init__(self, model_runner: Any, types: tuple[type, ...]):
        self.runner = model_runner
        self.types = types
        self.pools: dict[str, Any] = {}
        self.passed: dict[str, Any] = {}

    def pool(self, fact: str) -> Any:
        if fact not in self.pools:
            pool = self.pools[fact] = read_pool(self.runner, fact)
            if isinstance(pool, self.types):
                self.passed[fact] = pool
        return self.pools[fact]

    def read(self, name: str) -> Any:
        if name in POOL_FACTS:
            self.pool(name)
            return "swa" if name in self.passed else "other"
        if name in POOL_DERIVED:
            source, derive = POOL_DERIVED[name]
            return derive(self.pool(source))
        if name in RUNNER_DERIVED:
            return RUNNER_DERIVED[name](self.runner)
        return getattr(self.runner, name)


def runner_facts(model_runner: Any, types: tuple[type, ...], names: Iterable[str]) -> dict[str, Any]:
    """The facts `names` of a model runner, read as the resolver reads them. A fact the
    runner does not carry (a translator is given no algorithm) is left out: the table asks
    for it only if a rule reads it."""
    facts = RunnerFacts(model_runner, types)
    out = {}
    for name in names:
        try:
            out[name] = facts.read(name)
        except AttributeError:
            continue
    return out


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
