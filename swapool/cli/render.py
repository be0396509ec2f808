"""Findings rendered for people (text, optionally coloured) and for tools (JSON)."""

from __future__ import annotations

import math
from typing import Any, Sequence

from ..table.diagnostics import Diagnostic, Severity

_TINT = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.NOTE: "\x1b[1;36m"}


def render_text(diagnostic: Diagnostic, *, color: bool = False) -> str:
    """The diagnostic's own text form; with `color`, its `severity[code]` label tinted."""
    text = str(diagnostic)
    if not color:
        return text
    label = f"{diagnostic.severity.value}[{diagnostic.code}]"
    return text.replace(label, f"{_TINT[diagnostic.severity]}{label}\x1b[0m", 1)


def summary_line(diagnostics: Sequence[Diagnostic], files: int, *, strict: bool = False) -> str:
    """The verdict over every finding (also those -q does not print), matching the exit code."""
    errors = sum(d.is_error for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    noun = "file" if files == 1 else "files"
    verdict = "invalid" if errors else "failed (--strict: warnings count)" if strict and warnings else "valid"
    return f"{files} {noun} checked: {verdict} ({errors} error(s), {warnings} warning(s))"


def to_json_obj(diagnostic: Diagnostic) -> dict[str, Any]:
    span = diagnostic.span
    return {
        "code": diagnostic.code,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "file": span.file if span else None,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "rules": list(diagnostic.rules),
        "witness": dict(diagnostic.witness) if diagnostic.witness else None,
        "help": diagnostic.help,
        "keyword": diagnostic.keyword,
        "expected": diagnostic.expected,
        "got": diagnostic.got,
        "related": [{"message": what, "file": at.file, "line": at.line, "column": at.column}
                    for what, at in diagnostic.related],
    }


def to_json(obj: Any, **options: Any) -> str:
    """JSON that every parser reads: a table may hold `.nan` or `.inf`, which `json.dumps`
    would print as bare NaN / Infinity; those become strings. Every command's JSON goes here."""
    import json

    return json.dumps(_finite(obj), allow_nan=False, **{"default": str, **options})


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def render_json(files: Sequence[str], diagnostics: Sequence[Diagnostic]) -> str:
    return to_json({"files": list(files), "diagnostics": [to_json_obj(d) for d in diagnostics]},
                      indent=2, default=str)
