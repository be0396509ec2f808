"""Drop-in for sglang's per-backend `_resolve_swa_kv_pool(model_runner)`, driven by the table.

sglang's backends do not agree on the SWA pool type check: trtllm_mha and aiter check the
concrete `SWAKVPool`, flashinfer the `BaseSWAKVPool` base. Each installed resolver keeps
its backend's own check; the decision itself comes from the loaded policy. Importing this
module does not import sglang; using it without sglang raises `SGLangUnavailable`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..policy import Policy, load_policy

_POOLS = "sglang.srt.mem_cache"


@dataclass(frozen=True)
class Backend:
    """Where a backend class lives and which pool class its SWA check uses."""

    module: str
    cls: str
    pool_module: str
    pool_cls: str


BACKENDS: dict[str, Backend] = {
    "trtllm_mha": Backend("sglang.srt.layers.attention.trtllm_mha_backend", "TRTLLMHAAttnBackend",
                          f"{_POOLS}.swa_memory_pool", "SWAKVPool"),
    "flashinfer": Backend("sglang.srt.layers.attention.flashinfer_backend", "FlashInferAttnBackend",
                          f"{_POOLS}.base_swa_memory_pool", "BaseSWAKVPool"),
    "aiter": Backend("sglang.srt.layers.attention.aiter_backend", "AiterAttnBackend",
                     f"{_POOLS}.swa_memory_pool", "SWAKVPool"),
}

_ATTR = "_resolve_swa_kv_pool"
_originals: dict[str, tuple[type, Any]] = {}


class SGLangUnavailable(RuntimeError):
    """sglang (or the named backend) cannot be imported in this environment."""


def _import(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise SGLangUnavailable(f"swapool.integrations.sglang needs sglang: cannot import {module}.{name} "
                                f"({exc})") from exc
    except AttributeError as exc:
        raise SGLangUnavailable(f"{module} has no {name}; this sglang version is not supported") from exc


def _backend(name: str) -> Backend:
    try:
        return BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown sglang backend '{name}'; known: {', '.join(BACKENDS)}") from None


def pool_types(backend: str) -> tuple[type, ...]:
    """The pool class(es) `backend`'s own SWA check uses."""
    b = _backend(backend)
    return (_import(b.pool_module, b.pool_cls),)


def make_resolver(backend: str, *, policy: Policy | None = None) -> Callable[[Any], Any]:
    """A function with the signature of sglang's `_resolve_swa_kv_pool(model_runner)` for one
    backend. A policy with a `backend` input is restricted to this backend first."""
    types = pool_types(backend)
    policy = policy or load_policy()
    if "backend" in policy.table.input_names:
        policy = policy.restrict(backend=backend)
    resolve = policy.resolver(types)  # generated code with this backend's check built in: no wrapper
    resolve.__qualname__ = f"swapool[{backend}]._resolve_swa_kv_pool"
    resolve.swapool_policy = policy
    return resolve


def install(backends: Iterable[str] | None = None, *, policy: Policy | None = None) -> list[str]:
    """Replace the backends' static `_resolve_swa_kv_pool` with swapool's (idempotent).

    `backends=None` means every known backend whose module imports here. Returns the
    backends whose resolver was replaced by this call.
    """
    policy = policy or load_policy()
    explicit = backends is not None
    names = list(backends) if backends is not None else list(BACKENDS)
    changed = []
    for name in names:
        b = _backend(name)
        if name in _originals:
            continue
        try:
            cls = _import(b.module, b.cls)
        except SGLangUnavailable:
            if explicit or name == "trtllm_mha":
                raise
            continue  # e.g. aiter needs ROCm; by default only backends that import are replaced
        _originals[name] = (cls, cls.__dict__.get(_ATTR))
        setattr(cls, _ATTR, staticmethod(make_resolver(name, policy=policy)))
        changed.append(name)
    return changed


def uninstall() -> list[str]:
    """Put back every resolver `install` replaced."""
    restored = []
    for name, (cls, original) in list(_originals.items()):
        if original is None:
            delattr(cls, _ATTR)
        else:
            setattr(cls, _ATTR, original)
        del _originals[name]
        restored.append(name)
    return restored


def installed() -> list[str]:
    return list(_originals)
