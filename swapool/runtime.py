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

from . import distributed
from .compiled import CompiledDecision, Decision, MissingFact, UnknownValue
from .diagnostics import Diagnostic, format_value, render_text
from .resolver import build_resolver, unsupported
from .resources import default_policy_path
from .source import parse_document, read_bytes
from .table import Rule, Table
from .validate import check_document

log = logging.getLogger("swapool")

ENV_POLICY = "SWAPOOL_POLICY"


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

    def __init__(self, table: Table, path: str, diagnostics: tuple[Diagnostic, ...] = (),
                 compiled: CompiledDecision | None = None):
        self.table = table
        self.path = path
        self.digest = table.digest
        self.diagnostics = diagnostics  # warnings and notes that did not stop the load
        self.compiled = compiled or CompiledDecision(table)
        self._rules = {r.id: r for r in table.rules}
        self._names = frozenset(table.input_names)
        self._why_not = unsupported(table)
        self.resolve = self.resolver(DEFAULT_SWA_POOL_TYPES)

    def __repr__(self) -> str:
        return f"<Policy {self.table.decision} from {self.path} sha256:{self.digest[:12]}>"

    def resolver(self, swa_pool_types: tuple[type, ...]) -> Any:
        """The generated resolver `resolve(model_runner, types=swa_pool_types)` with these
        pool types as its default: a backend that binds it pays no wrapper call at all."""
        why_not = self._why_not
        if why_not is not None:
            def refuse(model_runner: Any, swa_pool_types: Any = None) -> Any:
                raise PolicyError(why_not)
            return refuse
        return build_resolver(self.compiled, swa_pool_types, self._unknown)

    def rule(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def restrict(self, **fixed: Any) -> "Policy":
        """This policy with some inputs fixed (e.g. `backend="flashinfer"`) and removed, so
        that the rest is what one backend decides. Restricting a valid table keeps it valid."""
        table = self.table
        for name, value in fixed.items():
            try:
                table = table.restricted(name, _plain(value))
            except ValueError as exc:
                raise PolicyError(f"{self.path}: cannot restrict: {exc}") from None
        return Policy(table, table.file, self.diagnostics)

    def decide(self, **facts: Any) -> Decision:
        """The decision for these facts (enum members count by name). Only facts the
        decision reads are required; unknown names and out-of-domain values are errors."""
        unknown = facts.keys() - self._names
        if unknown:
            raise PolicyError(f"{self.path}: unknown fact(s) {', '.join(sorted(unknown))}; "
                              f"the table's inputs are {', '.join(self.table.input_names)}")
        try:
            decision = self.compiled.decide({k: _plain(v) for k, v in facts.items()})
        except MissingFact as exc:
            raise PolicyError(f"{self.path}: the decision needs the fact '{exc.name}' "
                              f"(one of {self._domain(exc.name)})") from None
        except UnknownValue as exc:
            raise self._unknown(exc.name, exc.value) from None
        assert decision is not None, "a loaded policy has no gaps"
        return decision

    def _domain(self, name: str) -> str:
        inp = self.table.inputs[self.table.input_names.index(name)]
        return ", ".join(format_value(v) for v in inp.values)

    def _unknown(self, name: str, value: Any) -> PolicyError:
        return PolicyError(f"{name}={value!r} is not in the domain of policy {self.path} "
                           f"(sha256:{self.digest[:12]}); expected one of {self._domain(name)}. "
                           "Add the value to the table and decide it with a rule.")


def _plain(value: Any) -> Any:
    """A fact as the table spells it: enum members (and objects with a string `name`,
    like sglang's plugin algorithms) by name."""
    if isinstance(value, enum.Enum):
        return value.name
    name = getattr(value, "name", None) if not isinstance(value, (str, bool)) else None
    return name if isinstance(name, str) else value


_cache: dict[tuple[str, str], Policy] = {}
_lock = threading.Lock()
_default: Policy | None = None


def load_policy(path: str | os.PathLike | None = None, *, import_enums: bool = True, group: Any = None,
                agree: bool = True, timeout_s: float = 60.0) -> Policy:
    """Parse, validate, analyse and compile a table, once per path and content.

    `path=None` reads $SWAPOOL_POLICY if set, else the shipped policies/swa.yaml. Any
    error raises `PolicyError` listing every diagnostic; nothing is half-loaded and no
    fallback table is used.

    Under an initialised `torch.distributed` (and `agree=True`) the call is collective:
    every rank of `group` (default: the default group) gathers the others' table digests,
    and all ranks raise `PolicyError`, naming ranks and digests, when one differs or failed
    to load; a rank that never joins makes the others fail after `timeout_s`.
    """
    try:
        policy: Policy | None = _load_local(path, import_enums)
        failure: PolicyError | None = None
    except PolicyError as exc:
        policy, failure = None, exc
    if agree and distributed.is_initialized():
        try:
            entries = distributed.gather_digests(policy.digest if policy else None, group=group,
                                                 timeout_s=timeout_s)
        except TimeoutError as exc:
            raise PolicyError(f"ranks did not agree on the SWA pool policy: {exc}") from failure
        why = distributed.disagreement(entries)
        if failure is not None:
            raise failure
        if why is not None:
            raise PolicyError(f"{why}; every rank refuses to start")
    if failure is not None:
        raise failure
    assert policy is not None
    return policy


def _load_local(path: str | os.PathLike | None, import_enums: bool) -> Policy:
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
        if checked is None or checked.table is None or not checked.ok:
            diags = checked.diagnostics if checked is not None else tuple(found)
            errors = [d for d in diags if d.is_error]
            raise PolicyError(f"policy {shown} is invalid ({len(errors)} error(s)); the server must not "
                              "start with it", diags)
        policy = Policy(checked.table, shown, checked.diagnostics, checked.compiled)
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
    `swa_pool_types` is the backend's SWA pool check (default: `SWAKVPoolLike`).
    A backend that resolves often can bind `policy.resolve` once instead.
    """
    if policy is None:
        policy = default_policy()
    if swa_pool_types is None:
        return policy.resolve(model_runner)
    return policy.resolve(model_runner, swa_pool_types)
