"""`swapool show`: what each rule decides, as merged regions, or the decision diagram."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..table.decided import Decided, decided
from .jsonout import to_json
from .reading import DEFAULT_TABLE, check, path_or_default
from .render import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, refuse, say

def decided_json(r: Decided) -> dict[str, Any]:
    """A decided region as `show` and `plan` write it in JSON."""
    return {"region": r.region, "output": r.output, "rule": r.rule.id if r.rule else None,
            "at": str(r.rule.span) if r.rule else None}


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "show", parents=[reading], help="what each rule decides, as merged regions of the input space",
        description="Print, for each rule, the regions of the input space it actually decides "
                    "(after hit-policy resolution), merged; gaps are listed last. A review aid.",
        epilog="Exit codes: 0 valid table, 1 the table has findings (still shown), 2 unreadable.")
    p.add_argument("path", nargs="?", metavar="PATH", help=f"table file, or - (default: {DEFAULT_TABLE})")
    p.add_argument("--format", choices=("text", "json", "mermaid", "dot"), default="text",
                   help="text/json: the regions each rule decides; mermaid/dot: the decision diagram "
                        "(a node per input read, a leaf per output with its rule id)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = path_or_default(args.path)
    checked = check(args, path)
    if checked.table is None:
        refuse("show", checked.diagnostics, f"{path} could not be read as a table")
        return EXIT_USAGE if checked.unreadable else EXIT_FINDINGS
    verdict = EXIT_OK if checked.ok else EXIT_FINDINGS
    if args.format in ("mermaid", "dot"):
        from ..table.diagram import Diagram
        from ..table.partition import Budget, BudgetExceeded
        from .pictures import dot, mermaid

        try:
            diagram = checked.diagram or Diagram(checked.table, Budget())
        except BudgetExceeded as exc:
            say(f"swapool show: {path}: the diagram is too large to draw ({exc})", sys.stderr)
            return EXIT_FINDINGS
        print((mermaid if args.format == "mermaid" else dot)(diagram))
        return verdict
    rows = decided(checked.table, idle_rules=True, first=checked.analysis.first if checked.analysis else None)
    if args.format == "json":
        print(to_json({"file": path, "inputs": list(checked.table.input_names),
                       "decisions": [decided_json(r) for r in rows]}, indent=2))
        return verdict
    width = max((len(r.rule.id if r.rule else "(no rule)") for r in rows), default=0)
    for r in rows:
        say(f"{(r.rule.id if r.rule else '(no rule)'):<{width}}  {r.output or '(gap)':<10}  {r.region}")
    return verdict
