"""swapool: which SWA KV pool an attention backend translates through, as a checked table.

The layout is the pipeline: `swapool.table` is a generic decision-table engine (YAML ->
schema -> model -> analysis -> diagram -> decider), `swapool.swa` is the SWA decision
built on it (facts, generated resolver, Policy, KV pools, backends, sglang), and
`swapool.cli` renders both. Names below are imported on first use, so `import swapool`
and the CLI pay only for what they touch.
"""

from __future__ import annotations

from .table.lazy import lazy_exports
from ._version import __version__

TYPE_CHECKING = False

_EXPORTS = {
    "Decision": "swapool.table.diagram",
    "Diagnostic": "swapool.table.diagnostics",
    "Severity": "swapool.table.diagnostics",
    "Span": "swapool.table.diagnostics",
    "Decider": "swapool.table.decider",
    "PolicyError": "swapool.table.decider",
    "DEFAULT_SWA_POOL_TYPES": "swapool.swa.facts",
    "SWAKVPoolLike": "swapool.swa.facts",
    "Policy": "swapool.swa.policy",
    "load_policy": "swapool.swa.policy",
    "check_file": "swapool.swa.policy",
    "Checked": "swapool.table.check",
    "resolve_swa_kv_pool": "swapool.swa.policy",
}

__all__ = sorted(_EXPORTS) + ["__version__"]

if TYPE_CHECKING:
    from .swa.facts import DEFAULT_SWA_POOL_TYPES, SWAKVPoolLike
    from .swa.policy import Policy, check_file, load_policy, resolve_swa_kv_pool
    from .table.check import Checked
    from .table.decider import Decider, PolicyError
    from .table.diagnostics import Diagnostic, Severity, Span
    from .table.diagram import Decision


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
