"""The facts the SWA decision reads from a model runner, and the pools it may answer."""

from __future__ import annotations

import abc

from ..table.model import Table
from ..table.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

DECISION = "swa_kv_pool"


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
        """The pool a pool fact is about: the runner's own, or its allocator's kvcache."""
        if fact not in self.pools:
            runner = self.runner
            pool = runner.token_to_kv_pool if fact == "active_pool" else runner.token_to_kv_pool_allocator.get_kvcache()
            self.pools[fact] = pool
            if isinstance(pool, self.types):
                self.passed[fact] = pool
        return self.pools[fact]

    def passes(self, fact: str) -> str:
        """A pool fact's value: whether its pool passed the SWA check."""
        self.pool(fact)
        return "swa" if fact in self.passed else "other"

    def read(self, name: str) -> Any:
        fact = _BY_NAME.get(name)
        if fact is None or fact.read is None:
            return getattr(self.runner, name)
        return fact.read(self)


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


class Fact(Record):
    """A fact the SWA decision reads from a model runner: its kind (`pool`: whether a pool
    passes the place's SWA pool check, valued swa or other; `bool`; `name`: the engine's
    value, such as the speculative algorithm), and how it is read (None: the runner's
    attribute of that name)."""

    name: str
    kind: str
    read: Callable[[RunnerFacts], Any] | None = None


POOL, BOOL, NAME = "pool", "bool", "name"

#: The SWA decision, declared once: the facts it reads, in the order the tables read them
#: (the contract checks a table's inputs against it, RunnerFacts reads a runner by it) ...
FACTS = (Fact("allocator_owns_active_pool", BOOL, lambda f: allocator_owns_pool(f.runner)),
         Fact("active_pool", POOL, lambda f: f.passes("active_pool")),
         Fact("active_swa_layers", BOOL, lambda f: has_swa_layers(f.pool("active_pool"))),
         Fact("active_request_window", BOOL, lambda f: has_request_window(f.pool("active_pool"))),
         Fact("is_draft_worker", BOOL),
         Fact("spec_algorithm", NAME),
         Fact("allocator_kvcache", POOL, lambda f: f.passes("allocator_kvcache")),
         Fact("allocator_swa_layers", BOOL, lambda f: has_swa_layers(f.pool("allocator_kvcache"))))
#: ... and the outputs, each with the pool fact that must have passed the SWA check wherever
#: it is answered (the pool it hands back), None for no pool.
OUTPUTS: dict[str, str | None] = {"active": "active_pool", "allocator": "allocator_kvcache", "none": None}
#: Inputs that name the place deciding (a backend); fixed by `Policy.restrict` before resolving.
SELECTORS = ("backend",)

_BY_NAME = {fact.name: fact for fact in FACTS}
SWA_FACTS = tuple(_BY_NAME)
BOOL_FACTS = tuple(f.name for f in FACTS if f.kind == BOOL)
POOL_FACTS = tuple(f.name for f in FACTS if f.kind == POOL)
POOL_VALUES = ("swa", "other")
SWA_OUTPUTS = tuple(OUTPUTS)
SAFE_WHEN = {output: fact for output, fact in OUTPUTS.items() if fact is not None}


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
