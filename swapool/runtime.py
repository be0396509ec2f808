"""Load the table once at server start; answer per call from the compiled diagram."""

from __future__ import annotations

import abc
import enum
import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import Any, Iterable

from .compiled import Ask, CompiledDecision, Decision, MissingFact, UnknownValue
from .diagnostics import Diagnostic, format_value, render_text
from .resources import default_policy_path
from .source import parse_document, read_bytes
from .table import Rule, Table
from .validate import check_document

log = logging.getLogger("swapool")

ENV_POLICY = "SWAPOOL_POLICY"

#: The facts `resolve_swa_kv_pool` knows how to read from a model runner, and the outputs
#: it knows how to turn into a pool. A table for that decision may order or omit facts.
SWA_FACTS = ("active_pool", "is_draft_worker", "spec_algorithm", "allocator_kvcache")
SWA_OUTPUTS = ("active", "allocator", "none")


class PolicyError(Exception):
    """A table that cannot be used, or a fact it cannot decide; lists every diagnostic."""

    def __init__(self, message: str, diagnostics: Iterable[Diagnostic] = ()):
        self.diagnostics = tuple(diagnostics)
        lines = [message] + ["  " + render_text(d).replace("\n", "\n  ") for d in self.diagnostics]
        super().__init__("\n".join(lines))


class SWAKVPoolLike(abc.ABC):
    """Any class with `translate_loc_from_full_to_swa` counts as a SWA pool (sglang's
    SWAKVPool and swapool.kv's both have it). ABC caching keeps the check cheap; backends
    that know their concrete class should pass it as `swa_pool_types` instead."""

    @classmethod
    def __subclasshook__(cls, other: type) -> Any:
        if cls is SWAKVPoolLike:
            return any("translate_loc_from_full_to_swa" in vars(base) for base in other.__mro__) or NotImplemented
        return NotImplemented


DEFAULT_SWA_POOL_TYPES: tuple[type, ...] = (SWAKVPoolLike,)


class Policy:
    """A validated, compiled table. Build with `load_policy`."""

    def __init__(self, table: Table, path: str, diagnostics: tuple[Diagnostic, ...] = ()):
        self.table = table
        self.path = path
        self.digest = table.digest
        self.diagnostics = diagnostics  # warnings and notes that did not stop the load
        self.compiled = CompiledDecision(table)
        self._rules = {r.id: r for r in table.rules}
        self._swa_error: str | None = _swa_mismatch(table)

    def __repr__(self) -> str:
        return f"<Policy {self.table.decision} from {self.path} sha256:{self.digest[:12]}>"

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.table.input_names

    def rule(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def decide(self, **facts: Any) -> Decision:
        """The decision for these facts (enum members count by name). Only facts the
        decision reads are required; unknown names and out-of-domain values are errors."""
        unknown = facts.keys() - set(self.table.input_names)
        if unknown:
            raise PolicyError(f"{self.path}: unknown fact(s) {', '.join(sorted(unknown))}; "
                              f"the table's inputs are {', '.join(self.table.input_names)}")
        try:
            decision = self.compiled.decide({k: _plain(v) for k, v in facts.items()})
        except MissingFact as exc:
            raise PolicyError(f"{self.path}: the decision needs the fact '{exc.name}' "
                              f"(one of {self._domain(exc.name)})") from None
        except UnknownValue as exc:
            raise self._unknown(exc) from None
        assert decision is not None, "a loaded policy has no gaps"
        return decision

    def _domain(self, name: str) -> str:
        inp = self.table.inputs[self.table.input_names.index(name)]
        return ", ".join(format_value(v) for v in inp.values)

    def _unknown(self, exc: UnknownValue) -> PolicyError:
        return PolicyError(f"{exc.name}={exc.value!r} is not in the domain of policy {self.path} "
                           f"(sha256:{self.digest[:12]}); expected one of {self._domain(exc.name)}. "
                           "Add the value to the table and decide it with a rule.")


def _plain(value: Any) -> Any:
    return value.name if isinstance(value, enum.Enum) else value


def _swa_mismatch(table: Table) -> str | None:
    extra_in = [n for n in table.input_names if n not in SWA_FACTS]
    extra_out = [v for v in table.output.values if v not in SWA_OUTPUTS]
    if table.decision != "swa_kv_pool" or extra_in or extra_out:
        return (f"policy {table.file} decides '{table.decision}' with inputs {list(table.input_names)} and "
                f"outputs {list(table.output.values)}; resolve_swa_kv_pool reads only {list(SWA_FACTS)} "
                f"and returns only {list(SWA_OUTPUTS)}")
    return None


_cache: dict[tuple[str, str], Policy] = {}
_lock = threading.Lock()
_default: Policy | None = None


def load_policy(path: str | os.PathLike | None = None, *, import_enums: bool = True) -> Policy:
    """Parse, validate, analyse and compile a table, once per path and content.

    `path=None` reads $SWAPOOL_POLICY if set, else the shipped policies/swa.yaml. Any
    error raises `PolicyError` listing every diagnostic; nothing is half-loaded.
    """
    if path is None:
        path = os.environ.get(ENV_POLICY) or default_policy_path()
    shown = str(path)
    raw, found = read_bytes(path, shown)
    if raw is None:
        raise PolicyError(f"cannot read policy {shown}", found)
    key = (str(Path(path).resolve()), hashlib.sha256(raw).hexdigest())
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            return hit
        doc, found = parse_document(raw, shown)
        checked = check_document(doc, import_enums=import_enums) if doc is not None else None
        if checked is None or not checked.ok:
            diags = checked.diagnostics if checked is not None else tuple(found)
            errors = [d for d in diags if d.is_error]
            raise PolicyError(f"policy {shown} is invalid ({len(errors)} error(s)); the server must not "
                              "start with it", diags)
        policy = Policy(checked.table, shown, checked.diagnostics)
        _cache[key] = policy
    log.info("swapool: loaded policy %s (sha256:%s, %d rules, decision %s)", shown, policy.digest[:12],
             len(policy.table.rules), policy.table.decision)
    return policy


def default_policy() -> Policy:
    """The process-wide policy `resolve_swa_kv_pool` uses when given none (loaded on first use)."""
    global _default
    if _default is None:
        _default = load_policy()
    return _default


def clear_cache() -> None:
    """Forget loaded policies (tests; a server that reloads its table on purpose)."""
    global _default
    with _lock:
        _cache.clear()
        _default = None


def resolve_swa_kv_pool(model_runner: Any, *, policy: Policy | None = None,
                        swa_pool_types: tuple[type, ...] | None = None) -> Any:
    """The pool whose full -> swa mapping the backend translates through, or None.

    Facts are read from `model_runner` lazily, in the table's input order: the
    allocator's `get_kvcache()` is called only when the answer depends on it.
    """
    if policy is None:
        policy = default_policy()
    if policy._swa_error:
        raise PolicyError(policy._swa_error)
    types = swa_pool_types or DEFAULT_SWA_POOL_TYPES
    node: Any = policy.compiled.root
    kvcache: Any = _UNREAD
    while node.__class__ is Ask:
        name = node.name
        if name == "active_pool":
            value = "swa" if isinstance(model_runner.token_to_kv_pool, types) else "other"
        elif name == "is_draft_worker":
            value = model_runner.is_draft_worker
        elif name == "spec_algorithm":
            algorithm = model_runner.spec_algorithm
            value = algorithm.name if isinstance(algorithm, enum.Enum) else algorithm
        else:
            kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
            value = "swa" if isinstance(kvcache, types) else "other"
        try:
            node = node.children[value]
        except (KeyError, TypeError):
            raise policy._unknown(UnknownValue(name, value)) from None
    output = node.output
    if output == "none":
        return None
    if output == "active":
        return model_runner.token_to_kv_pool
    if kvcache is _UNREAD:
        kvcache = model_runner.token_to_kv_pool_allocator.get_kvcache()
    return kvcache


_UNREAD = object()
