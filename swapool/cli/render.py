"""What commands print: findings for people (text, optionally coloured) and for tools
(JSON, SARIF, GitHub), a line of text, and the exit codes."""

from __future__ import annotations

import os
import sys

from ..table.diagnostics import Diagnostic, Severity, visible
from .jsonout import to_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence, TextIO

    from .snippets import Sources  # read only when a finding is shown

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

#: Facts a JSON finding carries at its top level, as it always has.
_TOP_LEVEL = frozenset({"expected", "got", "keyword"})
_TINT = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.NOTE: "\x1b[1;36m"}


def render_text(diagnostic: Diagnostic, *, color: bool = False, sources: Sources | None = None) -> str:
    """The diagnostic as a person reads it: its `file:line:col: severity[code]: message`
    line, the source line with a caret under the span (when `sources` has the file), the
    `= ...` lines, and where to read more. `color` tints the label and the caret."""
    from .snippets import snippet

    tint = _TINT[diagnostic.severity] if color else ""
    head = diagnostic.header(f"{tint}{diagnostic.label}\x1b[0m" if color else None)
    shown = snippet(diagnostic.span, sources, tint) if sources is not None and diagnostic.span else []
    return "\n".join([head, *shown, *diagnostic.notes(), f"  = see: swapool codes {diagnostic.code}"])


def summary_line(diagnostics: Sequence[Diagnostic], files: int, *, strict: bool = False, unshown_notes: int = 0) -> str:
    """The verdict over every finding (also those -q does not print), matching the exit code."""
    errors = sum(d.is_error for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    noun = "file" if files == 1 else "files"
    verdict = "invalid" if errors else "failed (--strict: warnings count)" if strict and warnings else "valid"
    notes = f"; {unshown_notes} note(s) not shown, --verbose shows them" if unshown_notes else ""
    return f"{files} {noun} checked: {verdict} ({errors} error(s), {warnings} warning(s){notes})"


def to_json_obj(diagnostic: Diagnostic, sources: Sources | None = None) -> dict[str, Any]:
    span = diagnostic.span
    end = sources.extent(span) if sources is not None and span else None
    return {
        "code": diagnostic.code,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "file": span.file if span else None,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "end_line": end.line if end else None,
        "end_column": end.column if end else None,  # just past the span, as LSP and SARIF count
        "rules": list(diagnostic.rules),
        "witness": dict(diagnostic.witness) if diagnostic.witness else None,
        "help": diagnostic.help,
        "keyword": diagnostic.keyword,
        "expected": diagnostic.expected,
        "got": diagnostic.got,
        "related": [{"message": other.label, "what": other.what, "name": other.name, "file": other.span.file,
                     "line": other.span.line, "column": other.span.column} for other in diagnostic.related],
        "facts": {k: v for k, v in diagnostic.fact_values().items() if k not in _TOP_LEVEL},
    }


def render_json(files: Sequence[str], diagnostics: Sequence[Diagnostic], sources: Sources | None = None) -> str:
    return to_json({"files": list(files), "diagnostics": [to_json_obj(d, sources) for d in diagnostics]},
                      indent=2, default=str)


def render(fmt: str, files: Sequence[str], diagnostics: Sequence[Diagnostic], color: bool,
           summary: str | None = None, stdin_name: str | None = None) -> str:
    """The findings in one of `validate`'s formats; each file's text is read for the source
    lines and the spans' ends (standard input, already read, is not)."""
    if fmt == "text" and not diagnostics:  # a clean check: nothing to quote
        return summary or ""
    from .snippets import Sources

    sources = Sources(frozenset([stdin_name] if stdin_name and "-" in files else []))
    if fmt == "json":
        return render_json(files, diagnostics, sources)
    if fmt in ("sarif", "github"):
        from .sarif import render_github, render_sarif

        return (render_sarif if fmt == "sarif" else render_github)(diagnostics, sources)
    body = [render_text(d, color=color, sources=sources) for d in diagnostics]
    return "\n".join(body + ([summary] if summary else []))


def use_color(choice: str, stream: TextIO) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def say(line: str, stream: TextIO | None = None) -> None:
    """Print one line of text output, every control character from a table made visible."""
    print(visible(line), file=stream or sys.stdout)


def say_partial(command: str, tables: Sequence[Any]) -> bool:
    """Say on stderr which tables have errors, so an answer given mid-edit is read as such."""
    for c in tables:
        errors = [d for d in c.diagnostics if d.is_error]
        codes = ", ".join(sorted({d.code for d in errors}))
        left_out = "; the rules, cases or invariants that failed to build are left out" if c.table is None else ""
        say(f"swapool {command}: note: {c.file} has {len(errors)} error(s) ({codes}){left_out}; the answer covers "
            "what it decides as written and may change when they are fixed (exit 1)", sys.stderr)
    return bool(tables)


def refuse(command: str, diagnostics: Sequence[Diagnostic], why: str) -> int:
    """Print a table's errors and why the command cannot go on; exit code 2."""
    for d in diagnostics:
        if d.is_error:
            print(render_text(d), file=sys.stderr)
    say(f"swapool {command}: {why}", sys.stderr)
    return EXIT_USAGE
