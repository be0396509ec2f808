"""Where each sglang release decides which SWA pool to translate through: each place's class,
module, pool check and way of deciding, by release (standard library only, so the plugin's
entry can read it before anything else of swapool is imported).

sglang's places do not agree on the SWA pool type check: trtllm_mha and aiter check the
concrete `SWAKVPool`, flashinfer and the KV index translator the `BaseSWAKVPool` base, the
inline backends `SWAKVPool`. The table's pool facts are "passes this place's check".

How a place decides changed between releases (read from each release's source, 0.5.12 to
0.5.23, and checked by building every place on four of them in CI). Each way of deciding
leaves a name in the constructor's code, which the plugin checks before it trusts the
release number: a resolver method the constructor calls (`RESOLVER`: the table's replaces
it); a flag the constructor sets from the runner's own pool (`FLAG`), the allocator's pool
kept by the constructor (`POOL`, trtllm_mha 0.5.12, with the pre-fix EAGLE logic), the
translator's SWA write function (`WRITE_LOC`) or its SWA id space (`ID_SPACE`): a start-up
guard checks what the constructor decided. `PER_CALL`: the decision is made at each forward
pass, outside the constructor (flashinfer up to 0.5.13, the flag backends in 0.5.12), where
swapool can neither replace nor check it.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass
from types import CodeType, SimpleNamespace
from typing import Any, Callable

#: Set to 0/off/false/no to keep the plugin from touching anything.
ENV_PLUGIN = "SWAPOOL_SGLANG_PLUGIN"


class RefusedPlace(RuntimeError):
    """swapool could not put the table in force for a place; the place is not built."""


_POOLS = "sglang.srt.mem_cache"
_ATTENTION = "sglang.srt.layers.attention"

RESOLVER, FLAG, POOL, WRITE_LOC, ID_SPACE, PER_CALL = "resolver", "flag", "pool", "write_loc", "id_space", "per_call"
#: A place a release does not have (its module is not there: nothing to watch).
ABSENT = "absent"
#: The name each way of deciding leaves in the constructor's code.
MARKS = {RESOLVER: "_resolve_swa_kv_pool", FLAG: "use_sliding_window_kv_pool", POOL: "_swa_kv_pool",
         WRITE_LOC: "_swa_write_loc_from_full", ID_SPACE: "IdSpaceKind"}
#: The first and the last sglang release the places below were read from and checked on.
VERIFIED_RELEASES = ("0.5.12", "0.5.23")
#: The release the table of places (policies/swa_backends.yaml) and the flag values describe.
VERIFIED_RELEASE = VERIFIED_RELEASES[1]


def backend_runner(args: tuple, kwargs: dict) -> Any:
    """A backend's constructor takes the model runner first."""
    return args[0] if args else kwargs["model_runner"]


def translator_runner(args: tuple, kwargs: dict) -> Any:
    """The translator is built from keyword arguments, not from a model runner."""
    return SimpleNamespace(token_to_kv_pool=kwargs["token_to_kv_pool"],
                           token_to_kv_pool_allocator=kwargs["token_to_kv_pool_allocator"],
                           is_draft_worker=kwargs.get("is_draft_worker", False))


@dataclass(frozen=True)
class Place:
    """A class of sglang that picks a SWA pool: where it lives, its pool check, how it decides
    from which release on (`(release, kind)`, oldest first), and the model runner its
    constructor was given (or what stands for one)."""

    module: str
    cls: str
    pool_module: str
    pool_cls: str
    shapes: tuple[tuple[str, str], ...]
    runner: Callable[[tuple, dict], Any] = backend_runner

    @property
    def kind(self) -> str:
        """How it decides in the release the table of places describes."""
        return self.shapes[-1][1]


#: sglang's base class of every SWA pool: a runner that reaches none has nothing to decide.
BASE_POOL = (f"{_POOLS}.base_swa_memory_pool", "BaseSWAKVPool")


def _backend(module: str, cls: str, pool: str, *shapes: tuple[str, str]) -> Place:
    base = "base_swa_memory_pool" if pool == "BaseSWAKVPool" else "swa_memory_pool"
    return Place(f"{_ATTENTION}.{module}", cls, f"{_POOLS}.{base}", pool, shapes)


#: Every place, by name (the name of its backend in swapool's tables).
PLACES: dict[str, Place] = {
    "trtllm_mha": _backend("trtllm_mha_backend", "TRTLLMHAAttnBackend", "SWAKVPool",
                           ("0.5.12", POOL), ("0.5.13", RESOLVER)),
    "flashinfer": _backend("flashinfer_backend", "FlashInferAttnBackend", "BaseSWAKVPool",
                           ("0.5.12", PER_CALL), ("0.5.14", RESOLVER)),
    "aiter": _backend("aiter_backend", "AiterAttnBackend", "SWAKVPool", ("0.5.12", FLAG), ("0.5.20", RESOLVER)),
    "triton": _backend("triton_backend", "TritonAttnBackend", "SWAKVPool", ("0.5.12", PER_CALL), ("0.5.13", FLAG)),
    "flash_attention": _backend("flashattention_backend", "FlashAttentionBackend", "SWAKVPool", ("0.5.12", FLAG)),
    **{place: _backend(module, cls, "SWAKVPool", ("0.5.12", PER_CALL), ("0.5.13", FLAG)) for place, module, cls in (
        ("torch_native", "torch_native_backend", "TorchNativeAttnBackend"),
        ("intel_amx", "intel_amx_backend", "IntelAMXAttnBackend"),
        ("xpu", "xpu_backend", "XPUAttentionBackend"))},
    "kv_index_translator": Place(f"{_POOLS}.kv_index_translator", "KVIndexTranslator", f"{_POOLS}.base_swa_memory_pool",
                                 "BaseSWAKVPool", (("0.5.19", WRITE_LOC), ("0.5.22", ID_SPACE)), translator_runner),
}
#: The places with a resolver the table replaces, in the release the table of places describes.
BACKENDS: dict[str, Place] = {name: p for name, p in PLACES.items() if p.kind == RESOLVER}
#: The places whose decision is inline in a constructor there, which a start-up guard checks.
GUARDED: dict[str, Place] = {name: p for name, p in PLACES.items() if p.kind != RESOLVER}
#: The runner's KV index translator: it decides where SWA layers write, not what attention reads.
TRANSLATOR = "kv_index_translator"
#: The modules that define a place's class, each once.
MODULES: tuple[str, ...] = tuple(dict.fromkeys(p.module for p in PLACES.values()))


def places_in(module: str) -> list[str]:
    """The places whose class lives in `module`."""
    return [name for name, p in PLACES.items() if p.module == module]


def release_key(version: str) -> tuple[int, ...] | None:
    """`0.5.12.post1` -> (0, 5, 12, 1); None for what is not a final release (`rc`, `dev`)."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(?:\.post(\d+))?(?:\+[\w.]+)?", version.strip())
    return None if m is None else tuple(int(part) for part in m.groups() if part is not None)


def sglang_release() -> str | None:
    """The version of the sglang in this process (imported or installed), or None."""
    version = getattr(sys.modules.get("sglang"), "__version__", None)
    if isinstance(version, str):
        return version
    from importlib import metadata

    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return None


def expected_kind(place: str, release: str | None) -> tuple[str, str]:
    """How `place` decides in `release`, and if that is `PER_CALL` (nothing swapool can put in
    force), why: an unknown release, one outside the verified range, or a per-call decision;
    `ABSENT` where the release has no such place."""
    key = release_key(release) if release else None
    first, last = VERIFIED_RELEASES
    if key is None:
        return PER_CALL, (f"sglang's version ({release or 'none found'}) is not a release swapool knows; it was "
                          f"verified on sglang {first} to {last}")
    if not release_key(first) <= key <= release_key(last):  # type: ignore[operator]
        return PER_CALL, f"sglang {release} is outside the releases swapool was verified on ({first} to {last})"
    kind = next((k for since, k in reversed(PLACES[place].shapes) if release_key(since) <= key), None)  # type: ignore
    if kind is None:
        return ABSENT, f"sglang {release} has no {place}"
    if kind == PER_CALL:
        return kind, (f"sglang {release} decides it at each forward pass, outside the constructor, where swapool "
                      "can neither replace nor check the decision")
    return kind, ""


def _names(code: CodeType) -> set[str]:
    """The attribute and global names a function's code uses, its nested functions' too."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _names(const)
    return names


def shape_differs(kind: str, cls: type) -> str | None:
    """What in `cls`'s constructor differs from the way of deciding `kind`, or None."""
    init = vars(cls).get("__init__")
    code = getattr(getattr(init, "__wrapped__", init), "__code__", None)
    if code is None:
        return f"{cls.__qualname__} defines no constructor of its own"
    names = _names(code)
    mark = MARKS[kind]
    if mark not in names:
        return f"{cls.__qualname__}.__init__ does not use {mark}"
    if kind != RESOLVER and MARKS[RESOLVER] in names:
        return f"{cls.__qualname__}.__init__ calls {MARKS[RESOLVER]}"
    if kind == RESOLVER and not callable(getattr(cls, mark, None)):
        return f"{cls.__qualname__} has no {mark} method"
    return None


def has_swa_pool(runner: Any, base: type) -> bool:
    """Whether any pool the runner reaches is a SWA pool (`base`: sglang's `BaseSWAKVPool`):
    without one every decision is 'none', whatever the code."""
    if isinstance(getattr(runner, "token_to_kv_pool", None), base):
        return True
    get_kvcache = getattr(getattr(runner, "token_to_kv_pool_allocator", None), "get_kvcache", None)
    return callable(get_kvcache) and isinstance(get_kvcache(), base)


def flag_decision(backend: Any, runner: Any) -> tuple[str, str]:
    flag = backend.use_sliding_window_kv_pool
    return ("active" if flag else "none"), f"use_sliding_window_kv_pool={flag!r}"


def pool_decision(backend: Any, runner: Any) -> tuple[str, str]:
    """Whose pool the constructor kept in `_swa_kv_pool`: the runner's, the allocator's, or none."""
    pool = backend._swa_kv_pool
    if pool is None:
        return "none", "_swa_kv_pool=None"
    if pool is runner.token_to_kv_pool:
        return "active", "_swa_kv_pool is the runner's pool"
    if pool is runner.token_to_kv_pool_allocator.get_kvcache():
        return "allocator", "_swa_kv_pool is the allocator's pool"
    return "unrecognised", f"_swa_kv_pool is {type(pool).__name__}, neither the runner's pool nor the allocator's"


def write_loc_decision(translator: Any, runner: Any) -> tuple[str, str]:
    """Which mapping the translator's SWA write function goes through (sglang 0.5.19-0.5.21):
    the runner's pool's own, the allocator's tables (a method of the translator), or none."""
    write = translator._swa_write_loc_from_full
    if write is None:
        return "none", "no SWA write function"
    if write == getattr(runner.token_to_kv_pool, "translate_loc_from_full_to_swa", None):
        return "active", "SWA writes through the runner's pool"
    if getattr(write, "__self__", None) is translator:
        return "allocator", "SWA writes through the allocator's page tables"
    return "unrecognised", f"SWA writes through {write!r}"


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


#: What a built place decided, as an output of the table and as the code shows it, by kind.
READERS: dict[str, Callable[[Any, Any], tuple[str, str]]] = {
    FLAG: flag_decision, POOL: pool_decision, WRITE_LOC: write_loc_decision, ID_SPACE: translator_decision}


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
#: `--speculative-algorithm` values sglang turns into another before any runner is built
#: (0.5.23, srt/arg_groups/speculative_hook.py); its runners' spec_algorithm is the second.
ALGORITHM_ALIASES = {"NEXTN": "EAGLE"}


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
