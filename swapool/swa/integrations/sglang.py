"""sglang integration: the table decides in each place of sglang that picks a SWA pool.

Where the decision has a method (`_resolve_swa_kv_pool` of trtllm_mha, flashinfer, aiter)
the table's resolver replaces it, with that backend's own pool check built in; where
it is inline in a constructor (`sglang_places.GUARDED`) a start-up guard compares what the
code decided with the table of places. Every place built logs one line saying what it
decided and by which rule.

Two ways in: sglang's `load_plugins()` runs `sglang_plugin.plugin` in every process, which
calls `patch` here as sglang imports each place's module; `install()`/`uninstall()` replace
the resolvers directly for programs that do not run `load_plugins()`. Importing this module
does not import sglang; using it without sglang raises `SGLangUnavailable`.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ...table.decider import Explanation, PolicyError
from ...table.source import parsed_once
from ..facts import runner_facts
from ..paths import TABLES, table_path
from ..policy import Policy, load_policy
from .sglang_places import (ABSENT, BACKENDS, BASE_POOL, ENV_PLUGIN, GUARDED, PER_CALL, PLACES, READERS, RESOLVER,
                            TRANSLATOR, Place, RefusedPlace, expected_kind, has_swa_pool, shape_differs, sglang_release)

__all__ = ["BACKENDS", "GUARDED", "Place", "SGLangUnavailable", "Tables", "guard_check", "how_it_decides", "install",
           "installed", "load_tables", "make_resolver", "patch", "places_policy", "pool_types", "uninstall"]

log = logging.getLogger("swapool")

#: The table describing what each sglang place decides today (the guards' reference).
ENV_PLACES = TABLES["places"][0]
#: `warn`: a start-up guard that finds code and table disagreeing logs instead of refusing.
ENV_GUARD = "SWAPOOL_SGLANG_GUARD"

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


def _backend(name: str) -> Place:
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
    resolve = policy.resolver(types)
    resolve.__qualname__ = f"swapool[{backend}]._resolve_swa_kv_pool"
    resolve.swapool_policy = policy  # type: ignore[attr-defined]
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


def places_policy() -> Policy:
    """The table of what each place decides today: $SWAPOOL_PLACES_POLICY or the shipped
    policies/swa_backends.yaml."""
    return load_policy(table_path("places"))


def _place_view(policy: Policy, place: str) -> Policy:
    return policy.restrict(backend=place) if "backend" in policy.table.input_names else policy


def _explain(model_runner: Any, policy: Policy, types: tuple[type, ...]) -> tuple[Explanation, dict[str, Any]]:
    facts = runner_facts(model_runner, types, policy.table.input_names)
    return policy.explain(**facts), facts


def _shown(facts: dict[str, Any], read: Iterable[str]) -> str:
    return ", ".join(f"{k}={getattr(facts[k], 'name', facts[k])}" for k in read)


def guard_check(place: str, built: Any, model_runner: Any, *, policy: Policy | None = None,
                intended: Policy | None = None) -> Explanation:
    """Compare what `built`'s constructor decided with the table of places' answer for the
    same model runner, and (given `intended`, the SWA pool policy) with what the policy
    intends; on disagreement raise `PolicyError` naming the place, the facts, both
    decisions and their rules' lines (or log it, with SWAPOOL_SGLANG_GUARD=warn). Returns
    the table of places' explanation."""
    view = _place_view(policy or places_policy(), place)
    return _guard(place, built, model_runner, view, _place_view(intended, place) if intended else None)[0]


def _guard(place: str, built: Any, model_runner: Any, view: Policy | None, intended: Policy | None = None,
           kind: str | None = None, release: str | None = None) -> tuple[Explanation, dict[str, Any], str]:
    """`guard_check` on policies already restricted to the place (`view` None: not held to the
    table of places, which describes another release's code); also the facts read and what the
    code decided, in words. `kind`: how the place decides (the verified release's by default).
    The explanation returned is the table of places', else the policy's."""
    g = PLACES[place]
    types = (_import(g.pool_module, g.pool_cls),)
    code, shown_code = READERS[kind or g.kind](built, model_runner)
    where = f"sglang {release}'s {place} ({g.module}.{g.cls})" if release else f"sglang's {place} ({g.module}.{g.cls})"
    described: tuple[Explanation, dict[str, Any]] | None = None
    if view is not None:
        explained, facts = described = _explain(model_runner, view, types)
        if code != explained.decision.output:
            return explained, facts, _refuse_or_warn(
                f"swapool start-up guard: {where} decided '{code}' ({shown_code}) for {_shown(facts, explained.read)}, "
                f"but {view.path} says '{explained.decision.output}' by rule '{explained.rule.id}' "
                f"({explained.rule.span}); the code has drifted from the table (or the table from the code).",
                f"sglang's code decided '{code}' ({shown_code})")
    if intended is not None:
        meant, meant_facts = _explain(model_runner, intended, types)
        if meant.decision.output != code:
            as_described, read = "", {k: meant_facts[k] for k in meant.read}
            if described is not None and view is not None:
                explained, facts = described
                as_described = f"as {view.path} describes it (rule '{explained.rule.id}' at {explained.rule.span}), "
                read = {**{k: facts[k] for k in explained.read}, **read}
            return (described or (meant, meant_facts)) + (_refuse_or_warn(
                f"swapool start-up guard: {where} decides '{code}' ({shown_code}) for {_shown(read, read)}, "
                f"{as_described}but {intended.path} intends '{meant.decision.output}' there (rule '{meant.rule.id}' "
                f"at {meant.rule.span}): the place would translate through another pool than the policy says.",
                f"sglang's code decided '{code}' ({shown_code}), not the policy's '{meant.decision.output}'"),)
        described = described or (meant, meant_facts)
    assert described is not None, "a guard holds the place to the table of places, the policy, or both"
    return described + (f"sglang's code agrees ({shown_code})",)


def _refuse_or_warn(message: str, decided: str) -> str:
    """Refuse the place with `message`, or (SWAPOOL_SGLANG_GUARD=warn) log it and say, for the
    place's log line, what started anyway."""
    if os.environ.get(ENV_GUARD, "").strip().lower() != "warn":
        raise PolicyError(f"{message} {ENV_GUARD}=warn logs this instead of refusing.")
    log.warning("%s %s=warn logs this instead of refusing.", message, ENV_GUARD)
    return f"{decided}: {ENV_GUARD}=warn let it start"


# --- the plugin's side: what sglang_plugin.py calls when sglang imports a place's module ---

_OUTPUT_WORDS = {"active": "its own pool's SWA mapping", "allocator": "the allocator's SWA pool",
                 "none": "no SWA pool (untranslated)"}


@dataclass(frozen=True)
class Tables:
    """Both tables, loaded and checked once per process before any place is patched."""

    policy: Policy
    places: Policy

    def start_line(self, release: str | None) -> str:
        """What the plugin does in this sglang release, place by place."""
        kinds = {place: expected_kind(place, release)[0] for place in PLACES}
        decides = [p for p, k in kinds.items() if k == RESOLVER]
        checks = [p for p, k in kinds.items() if k not in (RESOLVER, PER_CALL, ABSENT)]
        unchecked = [p for p, k in kinds.items() if k == PER_CALL]
        line = (f"swapool: sglang plugin active: {self.policy.path} (sha256:{self.policy.digest[:12]}, "
                f"{len(self.policy.table.rules)} rules) decides {', '.join(decides) or 'no place'}; the start-up guard "
                f"checks {', '.join(checks) or 'no place'} against {self.places.path} "
                f"(sha256:{self.places.digest[:12]})")
        if unchecked:
            line += (f"; in sglang {release} swapool cannot check {', '.join(unchecked)}: each refuses a runner "
                     "with a SWA pool")
        return line


def load_tables(policy: str | None = None, places: str | None = None, **options: Any) -> Tables:
    """Both tables, as a server loads them (`policy`/`places`: paths given as flags, else
    swa/paths.py's rule), or `PolicyError` saying which of them did not load and why.
    `swapool plan` calls this too, so that a plan and a start never differ on the tables.
    The policy is parsed once: the table of places imports its inputs."""
    with parsed_once():
        try:
            loaded = load_policy(table_path("policy", policy), **options)
        except PolicyError as exc:
            raise PolicyError(f"the SWA pool policy did not load: {exc.headline}", exc.diagnostics) from None
        try:
            described = load_policy(table_path("places", places), **options)
        except PolicyError as exc:
            raise PolicyError(f"the table of places (what each sglang place decides today, ${ENV_PLACES} or the "
                              f"shipped policies/swa_backends.yaml) did not load: {exc.headline}",
                              exc.diagnostics) from None
    return Tables(loaded, described)


_said: set[str] = set()
_said_lock = threading.Lock()


def _say_once(line: str, start: str) -> None:
    """Log at construction time (sglang has configured logging by then; at plugin time it
    has not) the plugin's start line and `line`, each distinct line once per process (a
    multi-step draft builds one backend per step)."""
    with _said_lock:
        fresh = [text for text in (start, line) if text not in _said]
        _said.update(fresh)
    for text in fresh:
        log.info("%s", text)


def _who(model_runner: Any) -> str:
    role = "draft" if getattr(model_runner, "is_draft_worker", False) else "target"
    algorithm = getattr(getattr(model_runner, "spec_algorithm", None), "name", None)
    return f"{role}, {algorithm}" if algorithm else role


def decision_line(place: str, model_runner: Any, explained: Explanation, facts: dict[str, Any], how: str) -> str:
    """What an operator reads: the place, whose runner, the decision, its rule and where."""
    who = _who(model_runner)
    output = explained.decision.output
    return (f"swapool: {place} ({who}): {output}, {_OUTPUT_WORDS.get(output, output)}, by rule "
            f"'{explained.rule.id}' at {explained.rule.span} [{_shown(facts, explained.read)}]; {how}")


def _acts_here(built: Any, cls: type) -> bool:
    """A subclass of a place's class that is itself a place (trtllm_mha of flashinfer) is
    decided and logged by its own wrapper alone."""
    nearest = next((c for c in type(built).__mro__ if "_swapool_place" in vars(c)), None)
    return nearest is cls


def how_it_decides(place: str, cls: type, release: str | None) -> tuple[str, str]:
    """How `place` decides in `release` (`sglang_places.expected_kind`), where `cls`'s
    constructor is shaped so; else `PER_CALL` (nothing swapool can put in force), with why."""
    kind, why = expected_kind(place, release)
    if kind not in (PER_CALL, ABSENT):
        differs = shape_differs(kind, cls)
        if differs is not None:
            return PER_CALL, (f"its constructor is not shaped as swapool read it in that release ({differs}; "
                              f"expected a decision by {kind})")
    return kind, why


def patch(place: str, cls: type, tables: Tables, release: str | None = None) -> None:
    """Put the table in force on `cls` as `release` of sglang (this process's, by default)
    decides there, after checking its constructor is shaped that way: a replaced resolver
    (and a constructor that logs what it decided and refuses if the resolver in force is no
    longer the table's), a start-up guard on the constructor of an inline place, or, where
    swapool cannot check the decision, a constructor that refuses a runner with a SWA pool."""
    release = release or sglang_release()
    kind, why = how_it_decides(place, cls, release)
    start = tables.start_line(release)  # once per class, not per construction
    original_init = getattr(cls, "__init__")
    g = PLACES[place]
    where = f"sglang {release}'s {place} ({g.module}.{g.cls})"
    if kind in (PER_CALL, ABSENT):
        base = _import(*BASE_POOL)

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if not _acts_here(self, cls):
                return original_init(self, *args, **kwargs)
            runner = g.runner(args, kwargs)
            if has_swa_pool(runner, base):
                error = RefusedPlace(f"swapool refuses to build {where} for a runner with a SWA pool: {why}. Use a "
                                     f"release swapool knows, or opt out with {ENV_PLUGIN}=off")
                log.error("%s", error)
                raise error
            original_init(self, *args, **kwargs)
            _say_once(f"swapool: {place} ({_who(runner)}): no SWA pool to translate through; swapool does not check "
                      f"{where}: {why}", start)
    elif kind == RESOLVER:
        resolve = make_resolver(place, policy=tables.policy)
        view = resolve.swapool_policy  # type: ignore[attr-defined]
        setattr(cls, _ATTR, staticmethod(resolve))
        types = pool_types(place)

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            original_init(self, *args, **kwargs)
            if not _acts_here(self, cls):
                return
            if getattr(type(self), _ATTR) is not resolve:
                raise PolicyError(f"swapool refuses to build {where}: {type(self).__qualname__}."
                                  f"{_ATTR} is no longer the table's resolver (something replaced it after "
                                  "swapool did), so the table's decision is not in force")
            runner = g.runner(args, kwargs)
            explained, facts = _explain(runner, view, types)
            _say_once(decision_line(place, runner, explained, facts, "the table's resolver decides"), start)
    else:
        # the table of places describes the verified release's code; the translator (it decides where SWA
        # layers write, not what attention reads) is held to it alone, whatever its release
        described = kind == g.kind or place == TRANSLATOR
        places = _place_view(tables.places, place) if described else None
        intended = None if place == TRANSLATOR else _place_view(tables.policy, place)

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            original_init(self, *args, **kwargs)
            if not _acts_here(self, cls):
                return
            runner = g.runner(args, kwargs)
            explained, facts, code = _guard(place, self, runner, places, intended, kind, release)
            _say_once(decision_line(place, runner, explained, facts, code), start)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__ [swapool {place}]"
    __init__.__wrapped__ = original_init  # type: ignore[attr-defined]
    setattr(cls, "__init__", __init__)
    cls._swapool_place = place  # type: ignore[attr-defined]
