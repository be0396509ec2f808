"""Where sglang 0.5.23 decides which SWA pool to translate through: each place's class,
module and pool check (standard library only, so the plugin's entry can read it before
anything else of swapool is imported).

sglang's places do not agree on the SWA pool type check: trtllm_mha and aiter check the
concrete `SWAKVPool`, flashinfer and the KV index translator the `BaseSWAKVPool` base, the
inline backends `SWAKVPool`. The table's pool facts are "passes this place's check".
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable

_POOLS = "sglang.srt.mem_cache"
_ATTENTION = "sglang.srt.layers.attention"


@dataclass(frozen=True)
class Backend:
    """A place with a resolver method (`_resolve_swa_kv_pool`) the table replaces."""

    module: str
    cls: str
    pool_module: str
    pool_cls: str


BACKENDS: dict[str, Backend] = {
    "trtllm_mha": Backend(f"{_ATTENTION}.trtllm_mha_backend", "TRTLLMHAAttnBackend",
                          f"{_POOLS}.swa_memory_pool", "SWAKVPool"),
    "flashinfer": Backend(f"{_ATTENTION}.flashinfer_backend", "FlashInferAttnBackend",
                          f"{_POOLS}.base_swa_memory_pool", "BaseSWAKVPool"),
    "aiter": Backend(f"{_ATTENTION}.aiter_backend", "AiterAttnBackend",
                     f"{_POOLS}.swa_memory_pool", "SWAKVPool"),
}


def backend_runner(args: tuple, kwargs: dict) -> Any:
    """A backend's constructor takes the model runner first."""
    return args[0] if args else kwargs["model_runner"]


def flag_decision(backend: Any, runner: Any) -> tuple[str, str]:
    flag = backend.use_sliding_window_kv_pool
    return ("active" if flag else "none"), f"use_sliding_window_kv_pool={flag!r}"


def translator_runner(args: tuple, kwargs: dict) -> Any:
    """The translator is built from keyword arguments, not from a model runner."""
    return SimpleNamespace(token_to_kv_pool=kwargs["token_to_kv_pool"],
                           token_to_kv_pool_allocator=kwargs["token_to_kv_pool_allocator"],
                           is_draft_worker=kwargs.get("is_draft_worker", False))


def translator_decision(translator: Any, runner: Any) -> tuple[str, str]:
    """Whose tables the SWA write space goes through: its key names the owner's id (the
    runner's pool, or the allocator), whichever function writes (NPU DCP wraps it)."""
    kind = importlib.import_module(f"{_POOLS}.kv_loc_plan").IdSpaceKind
    space = translator.space(kind.SLIDING_WINDOW)
    if space is None:
        return "none", "no SLIDING_WINDOW id space"
    owner = space.key[1]
    if owner == id(runner.token_to_kv_pool):
        return "active", "SLIDING_WINDOW id space of the runner's pool"
    if owner == id(runner.token_to_kv_pool_allocator):
        return "allocator", "SLIDING_WINDOW id space of the allocator"
    return "unrecognised", f"SLIDING_WINDOW id space keyed {space.key!r}, neither the runner's pool nor its allocator"


@dataclass(frozen=True)
class Guarded:
    """A place whose decision is inline in a constructor: where it lives, its pool check,
    the model runner its constructor was given (or what stands for one), and what the
    built object decided, as an output of the table and as the code shows it."""

    module: str
    cls: str
    pool_module: str
    pool_cls: str
    runner: Callable[[tuple, dict], Any] = backend_runner
    decided: Callable[[Any, Any], tuple[str, str]] = flag_decision


#: Places whose decision is inline in the constructor: the five backends that set
#: `use_sliding_window_kv_pool`, and the runner's KVIndexTranslator.
GUARDED: dict[str, Guarded] = {
    **{place: Guarded(f"{_ATTENTION}.{module}", cls, f"{_POOLS}.swa_memory_pool", "SWAKVPool")
       for place, module, cls in (
           ("triton", "triton_backend", "TritonAttnBackend"),
           ("flash_attention", "flashattention_backend", "FlashAttentionBackend"),
           ("torch_native", "torch_native_backend", "TorchNativeAttnBackend"),
           ("intel_amx", "intel_amx_backend", "IntelAMXAttnBackend"),
           ("xpu", "xpu_backend", "XPUAttentionBackend"),
       )},
    "kv_index_translator": Guarded(f"{_POOLS}.kv_index_translator", "KVIndexTranslator",
                                   f"{_POOLS}.base_swa_memory_pool", "BaseSWAKVPool",
                                   translator_runner, translator_decision),
}


#: Every place, by name: where its class lives.
PLACES: dict[str, Backend | Guarded] = {**BACKENDS, **GUARDED}
#: The modules that define a place's class, each once.
MODULES: tuple[str, ...] = tuple(dict.fromkeys(p.module for p in PLACES.values()))


def places_in(module: str) -> list[str]:
    """The places whose class lives in `module`."""
    return [name for name, p in PLACES.items() if p.module == module]
