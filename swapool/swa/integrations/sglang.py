"""sglang integration: the table replaces each backend's `_resolve_swa_kv_pool(model_runner)`.

sglang's backends do not agree on the SWA pool type check: trtllm_mha and aiter check the
concrete `SWAKVPool`, flashinfer the `BaseSWAKVPool` base. Each replaced resolver keeps
its backend's own check; the decision itself comes from the loaded policy.

Two ways in: `plugin()` is the entry point sglang's `load_plugins()` runs in every process
(`pip install swapool` is all a user does), registering REPLACE hooks with sglang's own
`HookRegistry`; `install()`/`uninstall()` patch the classes directly for programs that do
not run `load_plugins()`. Importing this module does not import sglang; using it without
sglang raises `SGLangUnavailable`.
"""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable, Iterable

from ...table.decider import PolicyError
from ..facts import POOL_DERIVED, POOL_FACTS, RUNNER_DERIVED
from ..policy import Policy, load_policy

log = logging.getLogger("swapool")

#: Set to 0/off/false/no to keep the plugin from hooking anything (sglang's own
#: SGLANG_PLUGINS allow-list works too).
ENV_PLUGIN = "SWAPOOL_SGLANG_PLUGIN"
#: `warn`: a start-up guard that finds code and table disagreeing logs instead of refusing.
ENV_GUARD = "SWAPOOL_SGLANG_GUARD"
#: The table describing what each sglang place decides today (the guards' reference).
ENV_PLACES = "SWAPOOL_PLACES_POLICY"

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
        raise SGLangUnavailable(f"swapool.swa.integrations.sglang needs sglang: cannot import {module}.{name} "
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


def _backend_runner(args: tuple, kwargs: dict) -> Any:
    return args[0] if args else kwargs["model_runner"]


def _flag_decision(backend: Any, runner: Any) -> tuple[str, str]:
    flag = backend.use_sliding_window_kv_pool
    return ("active" if flag else "none"), f"use_sliding_window_kv_pool={flag!r}"


def _translator_runner(args: tuple, kwargs: dict) -> Any:
    """The translator is built from keyword arguments, not from a model runner."""
    return SimpleNamespace(token_to_kv_pool=kwargs["token_to_kv_pool"],
                           token_to_kv_pool_allocator=kwargs["token_to_kv_pool_allocator"],
                           is_draft_worker=kwargs.get("is_draft_worker", False))


def _translator_decision(translator: Any, runner: Any) -> tuple[str, str]:
    """Whose tables the SWA write space goes through: its key names the owner's id (the
    runner's pool, or the allocator), whichever function writes (NPU DCP wraps it)."""
    kind = _import(f"{_POOLS}.kv_loc_plan", "IdSpaceKind")
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
    runner: Callable[[tuple, dict], Any] = _backend_runner
    decided: Callable[[Any, Any], tuple[str, str]] = _flag_decision


_ATTENTION = "sglang.srt.layers.attention"
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
                                   _translator_runner, _translator_decision),
}


def places_policy() -> Policy:
    """The table of what each place decides today: $SWAPOOL_PLACES_POLICY or the shipped
    policies/swa_backends.yaml."""
    from ...table.shipped import shipped

    return load_policy(os.environ.get(ENV_PLACES) or shipped("policies/swa_backends.yaml"))


def guard_check(place: str, built: Any, model_runner: Any, *, policy: Policy | None = None) -> None:
    """Compare what `built`'s constructor decided with the table's answer for the same
    model runner; on disagreement raise `PolicyError` naming the place, the facts, the
    table's rule and line, and the code's decision (or log it, with SWAPOOL_SGLANG_GUARD=warn)."""
    g = GUARDED[place]
    types = (_import(g.pool_module, g.pool_cls),)
    policy = policy or places_policy()
    if "backend" in policy.table.input_names:
        policy = policy.restrict(backend=place)
    facts = _facts(model_runner, types, policy.table.input_names)
    explained = policy.explain(**facts)
    code, shown_code = g.decided(built, model_runner)
    if code == explained.decision.output:
        return
    shown = ", ".join(f"{k}={getattr(facts[k], 'name', facts[k])}" for k in explained.read)
    message = (f"swapool start-up guard: sglang's {place} ({g.module}.{g.cls}) decided '{code}' ({shown_code}) "
               f"for {shown}, but {policy.path} says '{explained.decision.output}' by rule "
               f"'{explained.rule.id}' ({explained.rule.span}); the code has drifted from the table (or the "
               "table from the code)")
    if os.environ.get(ENV_GUARD, "").strip().lower() == "warn":
        log.warning("%s", message)
        return
    raise PolicyError(message)


def _facts(model_runner: Any, types: tuple[type, ...], names: Iterable[str]) -> dict[str, Any]:
    """The facts `names` of a model runner, read as the generated resolver reads them
    (`swa/facts.py` says how each derived one is computed), with the place's pool check.
    A fact the runner does not carry (the translator is given no algorithm) is left out;
    the table asks for it only if a rule reads it."""
    pools: dict[str, Any] = {}

    def pool(fact: str) -> Any:
        if fact not in pools:
            pools[fact] = (model_runner.token_to_kv_pool if fact == "active_pool"
                           else model_runner.token_to_kv_pool_allocator.get_kvcache())
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


def _guard_hook(place: str, policy: Policy) -> Callable[..., Any]:
    if "backend" in policy.table.input_names:
        policy = policy.restrict(backend=place)  # once, not per object built
    runner = GUARDED[place].runner

    def after_init(result: Any, built: Any, *args: Any, **kwargs: Any) -> Any:
        guard_check(place, built, runner(args, kwargs), policy=policy)
        return result
    after_init.__qualname__ = f"swapool.guard[{place}].__init__"
    return after_init


def _refusing(error: PolicyError, backend: str) -> Callable[[Any], Any]:
    def _resolve_swa_kv_pool(model_runner: Any) -> Any:
        raise PolicyError(f"swapool refuses to build sglang's {backend}: the SWA pool policy "
                          f"did not load ({error.args[0].splitlines()[0]})", error.diagnostics)
    _resolve_swa_kv_pool.__qualname__ = f"swapool[{backend}]._resolve_swa_kv_pool (policy failed to load)"
    return _resolve_swa_kv_pool


def plugin() -> list[str]:
    """Entry point of group `sglang.srt.plugins`: register a REPLACE hook on the resolver of
    every backend whose module imports here. sglang logs and swallows a plugin's exception,
    so a table that does not load never raises here: each hook then raises `PolicyError`
    (with every diagnostic) when the backend is built, and the server does not start. No
    fallback to sglang's own code. Places whose decision is inline (`GUARDED`) get an AFTER
    hook on their constructor instead (the start-up guard). Returns the backends hooked,
    then `guard:<place>` for each guarded place."""
    if os.environ.get(ENV_PLUGIN, "").strip().lower() in ("0", "off", "false", "no"):
        log.info("swapool: sglang plugin disabled by %s", ENV_PLUGIN)
        return []
    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

    try:
        policy: Policy | None = load_policy()
        failure: PolicyError | None = None
    except PolicyError as exc:
        policy, failure = None, exc
    hooked = []
    for name, b in BACKENDS.items():
        try:
            importlib.import_module(b.module)
        except Exception:  # aiter needs ROCm, and so on: only backends that import are hooked
            continue
        if failure is not None:
            hook = _refusing(failure, name)
        else:
            try:
                hook = make_resolver(name, policy=policy)
            except (PolicyError, SGLangUnavailable) as exc:
                hook = _refusing(exc if isinstance(exc, PolicyError) else PolicyError(str(exc)), name)
        HookRegistry.register(f"{b.module}.{b.cls}.{_ATTR}", hook, HookType.REPLACE)
        hooked.append(name)
    guarded = []
    try:
        places: Policy | None = places_policy() if failure is None else None
    except PolicyError as exc:
        places, failure = None, exc
    for name, g in GUARDED.items():
        try:
            importlib.import_module(g.module)
        except Exception:
            continue
        if places is not None:
            HookRegistry.register(f"{g.module}.{g.cls}.__init__", _guard_hook(name, places), HookType.AFTER)
        else:
            assert failure is not None
            refuse = _refusing(failure, name)
            HookRegistry.register(f"{g.module}.{g.cls}.__init__",
                                  lambda result, built, *a, _r=refuse, _g=g, **k: _r(_g.runner(a, k)),
                                  HookType.AFTER)
        guarded.append(name)
    if failure is not None:
        log.error("swapool: the SWA pool policy did not load; %s will refuse to start:\n%s",
                  ", ".join(hooked + guarded) or "no backend", failure)
    else:
        assert policy is not None
        log.info("swapool: sglang plugin: policy %s (sha256:%s, %d rules) replaces _resolve_swa_kv_pool of %s; "
                 "start-up guard on %s", policy.path, policy.digest[:12], len(policy.table.rules),
                 ", ".join(hooked) or "no backend", ", ".join(guarded) or "no place")
    return hooked + [f"guard:{name}" for name in guarded]
