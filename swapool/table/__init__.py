"""Generic decision tables, as a pipeline of stages, one module (or two) each:

1 source (YAML with positions) -> 2 schema (generated/schema_check.py is generated from the JSON
Schema) -> 3 imports -> 4 model (model.py; build.py makes it) -> 5 partition + analysis ->
6 diagram -> 7 decider. `check` is the one entrance from bytes to a checked table; codes,
diagnostics, diff, mutate and emit work on its results. Knows nothing of KV pools or any
engine; imports no torch. The names below are its public face (imported on first use).
"""

from __future__ import annotations

from .lazy import lazy_exports

TYPE_CHECKING = False

_EXPORTS = {
    "check_bytes": "check", "check_path": "check", "check_document": "check", "Checked": "check",
    "Decider": "decider", "PolicyError": "decider", "Explanation": "decider",
    "Diagnostic": "diagnostics", "Severity": "diagnostics", "Span": "diagnostics",
    "Code": "codes", "CODES": "codes.every",
    "Decision": "diagram", "Diagram": "diagram",
    "EnumPolicy": "enums", "Table": "model", "Input": "model", "Rule": "model",
    "Budget": "partition", "BudgetExceeded": "partition",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from .check import Checked, check_bytes, check_document, check_path
    from .codes import Code
    from .codes.every import CODES
    from .decider import Decider, Explanation, PolicyError
    from .diagnostics import Diagnostic, Severity, Span
    from .diagram import Decision, Diagram
    from .enums import EnumPolicy
    from .model import Input, Rule, Table
    from .partition import Budget, BudgetExceeded


__getattr__, __dir__ = lazy_exports(__name__, {name: f".{module}" for name, module in _EXPORTS.items()}, globals())
