"""Where sglang 0.5.23 decides which SWA pool to translate through: each place's class,
module and pool check (standard library only, so the plugin's entry can read it before
anything else of swapool is imported).

sglang's places do not agree on the SWA pool type check: trtllm_mha and aiter check the
concrete `SWAKVPool`, flashinfer and the KV index translator the `BaseSWAKVPool` base, the
inline backends `SWAKVPool`. The table's pool facts are "passes this place's check".
"""

from __future__ import annotations

import importlib
import os
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


#: The runner's KV index translator: it decides where SWA layers write, not what attention reads.
TRANSLATOR = "kv_index_translator"
#: Every place, by name: where its class lives.
PLACES: dict[str, Backend | Guarded] = {**BACKENDS, **GUARDED}
#: The modules that define a place's class, each once.
MODULES: tuple[str, ...] = tuple(dict.fromkeys(p.module for p in PLACES.values()))


def places_in(module: str) -> list[str]:
    """The places whose class lives in `module`."""
    return [name for name, p in PLACES.items() if p.module == module]


#: The sglang release the places above, and the flag values below, were read from.
VERIFIED_RELEASE = "0.5.23"
#: Its --attention-backend (and --prefill-/--decode-attention-backend) values, and those a
#: draft runner takes (sglang/srt/arg_groups/choices.py).
ATTENTION_BACKEND_CHOICES = (
    "triton", "torch_native", "flex_attention", "dsa", "nsa", "qsa", "dsv4", "compressed", "fa3", "fa4", "flashinfer",
    "llada2_cfg_flashinfer", "flashmla", "trtllm_mla", "cutedsl_mla", "tokenspeed_mla", "trtllm_mha", "hpc_ops",
    "minicpm_flashattn", "minicpm_flashinfer", "aiter", "wave", "intel_amx", "ascend", "intel_xpu")
DRAFT_ATTENTION_BACKEND_CHOICES = ("flashinfer", "fa3", "fa4", "triton", "ascend", "trtllm_mha", "intel_xpu")
#: The place each flag value builds, as sglang's attention registry builds it (fa3 and fa4
#: build FlashAttentionBackend, intel_xpu XPUAttentionBackend); a value not here builds a
#: backend that makes no SWA pool decision (its runner's KV index translator still does).
FLAG_PLACES = {"triton": "triton", "torch_native": "torch_native", "fa3": "flash_attention", "fa4": "flash_attention",
               "flashinfer": "flashinfer", "trtllm_mha": "trtllm_mha", "aiter": "aiter", "intel_amx": "intel_amx",
               "intel_xpu": "xpu"}
#: What a draft runner falls back to on a CUDA machine when its backend is not one it takes.
DRAFT_FALLBACK = "flashinfer"


@dataclass(frozen=True)
class FlagChoices:
    """sglang's flag values, and where they were read: the installed sglang's own lists
    (read from its source, not imported: importing sglang takes seconds and imports torch),
    or the verified release's."""

    attention: tuple[str, ...]
    draft: tuple[str, ...]
    source: str


def flag_choices() -> FlagChoices:
    import importlib.util

    found = importlib.util.find_spec("sglang")
    if found is not None and found.submodule_search_locations:
        path = os.path.join(list(found.submodule_search_locations)[0], "srt", "arg_groups", "choices.py")
        lists = _literal_lists(path, ("ATTENTION_BACKEND_CHOICES", "DRAFT_ATTENTION_BACKEND_CHOICES"))
        if lists is not None:
            return FlagChoices(lists[0], lists[1], f"the installed sglang ({path})")
    return FlagChoices(ATTENTION_BACKEND_CHOICES, DRAFT_ATTENTION_BACKEND_CHOICES,
                       f"sglang {VERIFIED_RELEASE}, the release the table of places was verified on")


def _literal_lists(path: str, names: tuple[str, ...]) -> tuple[tuple[str, ...], ...] | None:
    """The string lists assigned to `names` at the top of a Python file, or None if any is
    missing (a layout this version of swapool does not know)."""
    import ast  # only `swapool plan` reads these; the plugin's entry imports this module

    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None
    found: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                found[node.targets[0].id] = tuple(value)
    return tuple(found[n] for n in names) if all(n in found for n in names) else None
