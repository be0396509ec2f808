"""Load the SWA table once at server start; answer per call by walking its diagram."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any, Callable, Sequence

from ..table.check import Checked, check_bytes, check_path
from ..table.decider import Decider, PolicyError
from ..table.diagnostics import Diagnostic, error
from .codes import DecisionKindLoads
from ..table.diagram import Diagram
from ..table.enums import EnumPolicy, enum_modules_from_env
from ..table.model import Table
from ..table.files import digest_of, read_bytes
from . import distributed
from .contract import CONTRACTS
from .facts import DECISION, DEFAULT_SWA_POOL_TYPES, ENUM_MODULES, SAFE_WHEN, RunnerFacts, unsupported
from .paths import table_path

log = logging.getLogger("swapool")

class Policy(Decider):
    """A validated SWA table: a `Decider` that also resolves a model runner's pool.
    Build with `load_policy`."""

    def __init__(self, table: Table, path: str, diagnostics: tuple[Diagnostic, ...] = (),
                 diagram: Diagram | None = None):
        super().__init__(table, path, diagnostics, diagram)
        self._why_not = unsupported(table)

    def resolve(self, model_runner: Any, swa_pool_types: tuple[type, ...] = DEFAULT_SWA_POOL_TYPES) -> Any:
        """The pool whose full -> swa mapping the backend translates through, or None: the
        table's decision diagram walked over the runner's facts, read as the walk needs them
        (in table order) with the place's SWA pool check `swa_pool_types`. An answered pool is
        one that passed the check on the walk's path (the contract makes every table so at
        load); a diagram that answered another would be refused here rather than translate
        through it."""
        if self._why_not is not None:
            raise PolicyError(self._why_not)
        facts = RunnerFacts(model_runner, swa_pool_types)
        decision = self.answer(facts.read)
        if decision is None:
            raise PolicyError(f"{self.path}: no rule decides this model runner; the table has a gap")
        if decision.output == "none":
            return None
        try:
            return facts.passed[SAFE_WHEN[decision.output]]
        except KeyError:
            raise PolicyError(f"{self.path}: rule '{decision.rule_id}' answered '{decision.output}', a pool "
                              "that did not pass the SWA check") from None

    def resolver(self, swa_pool_types: tuple[type, ...]) -> Callable[[Any], Any]:
        """`resolve` with a backend's own pool check built in, shaped as sglang's
        `_resolve_swa_kv_pool(model_runner)`."""
        def resolve_swa_kv_pool(model_runner: Any) -> Any:
            return self.resolve(model_runner, swa_pool_types)
        return resolve_swa_kv_pool


#: (path, digest of its bytes, enum policy) -> the policy and the (path, digest) of each table it imports
_cache: dict[tuple[str, str, EnumPolicy], tuple[Policy, tuple[tuple[str, str], ...]]] = {}
_lock = threading.Lock()
_default: Policy | None = None


def load_policy(path: str | bytes | os.PathLike | None = None, *, import_enums: bool = True,
                enum_modules: Sequence[str] | None = None, group: Any = None,
                agree: bool = True, timeout_s: float = 60.0) -> Policy:
    """Parse, validate, analyse and compile a table, once per path, content and options.

    `path=None` reads $SWAPOOL_POLICY if set, else the shipped policies/swa.yaml. Any
    error raises `PolicyError` listing every diagnostic; nothing is half-loaded and no
    fallback table is used. The table must decide `swa_kv_pool` and meet its contract
    (`swa.contract`). `enum_modules` are the module prefixes an `enum:` binding may be
    imported from (default: $SWAPOOL_ENUM_MODULES, else `sglang`).

    Under an initialised `torch.distributed` (and `agree=True`) the call is collective:
    every rank of `group` (default: the default group) gathers the others' table digests,
    and all ranks raise `PolicyError`, naming ranks and digests, when one differs or failed
    to load; a rank that never joins makes the others fail after `timeout_s`.
    """
    try:
        allowed = tuple(enum_modules) if enum_modules is not None else enum_modules_from_env(ENUM_MODULES)
        policy: Policy | None = _load_local(path, EnumPolicy(import_enums, allowed))
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


def _load_local(path: str | bytes | os.PathLike | None, enums: EnumPolicy) -> Policy:
    path = os.fsdecode(table_path("policy") if path is None else path)  # str, bytes or PathLike alike
    shown = path
    raw, found = read_bytes(path, shown)
    if raw is None:
        raise PolicyError(f"cannot read policy {shown or '(empty path)'}", found)
    digest = digest_of(raw)
    key = (os.path.realpath(path), digest, enums)  # by real path: the process's folder may change
    with _lock:
        hit = _cache.get(key)
    if hit is not None and all(_digest_now(p) == d for p, d in hit[1]):
        return hit[0]
    # Checked outside the lock: checking may import a bound enum's module, and that
    # module may itself load a policy.
    checked = check_bytes(raw, shown, digest=digest, enums=enums, contracts=CONTRACTS, folder=Path(path).parent)
    findings = checked.diagnostics
    if checked.table is not None and checked.table.decision != DECISION:
        findings += (error(DecisionKindLoads(expected=DECISION, got=checked.table.decision),
                           checked.table.decision_span),)
    errors = [d for d in findings if d.is_error]
    if checked.table is None or errors:
        raise PolicyError(f"policy {shown} is invalid ({len(errors)} error(s)); the server must not "
                          "start with it", sorted(findings, key=Diagnostic.sort_key))
    policy = Policy(checked.table, shown, checked.diagnostics, checked.diagram)
    with _lock:
        current = _cache.get(key)
        if current is not None and current[0].digest == policy.digest:
            return current[0]  # another thread loaded the same table meanwhile
        _cache[key] = policy, checked.imports
    log.info("swapool: loaded policy %s (sha256:%s, %d rules, decision %s)", shown, policy.digest[:12],
             len(policy.table.rules), policy.table.decision)
    return policy


def _digest_now(path: str) -> str | None:
    raw, _ = read_bytes(path)
    return None if raw is None else digest_of(raw)


def check_file(path: str | bytes | os.PathLike, *, import_enums: bool = True,
               enum_modules: Sequence[str] | None = None) -> Checked:
    """Check one table file as `swapool validate` does, without raising: the findings come
    back as values (`Checked.diagnostics`, sorted; `Checked.ok` is the verdict). The
    decision kinds swapool knows (swa_kv_pool) are held to their contract."""
    allowed = tuple(enum_modules) if enum_modules is not None else enum_modules_from_env(ENUM_MODULES)
    return check_path(path, enums=EnumPolicy(import_enums, allowed), contracts=CONTRACTS)


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
    """
    return (policy or default_policy()).resolve(model_runner, swa_pool_types or DEFAULT_SWA_POOL_TYPES)
