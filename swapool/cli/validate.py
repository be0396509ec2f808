"""`swapool validate`: check tables and print every finding."""

from __future__ import annotations

import argparse
import sys

from ..table.codes import IO
from ..table.diagnostics import Severity
from ..table.text import shown_list
from .reading import DEFAULT_TABLE, check, default_table, importers, table_files
from .render import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, render, summary_line, use_color

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("text", "json", "sarif", "github")


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "validate", parents=[reading], help="check tables: schema, gaps, overlaps, dead rules, invariants, cases",
        description="Check one or more decision tables and print every finding as "
                    "file:line:col: severity[code]: message.",
        epilog="Exit codes: 0 valid (warnings allowed), 1 findings, 2 a file could not be read. "
               "'swapool codes' lists every finding code.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help=f"table files, directories (searched for *.yaml and *.yml) or - for standard input "
                        f"(default: {DEFAULT_TABLE})")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--strict", action="store_true", help="warnings fail the check too")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also show the notes of valid tables (text output counts them otherwise; they need no action)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only what fails the check (errors; with --strict, warnings too); silent on success")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour text output (auto: on a terminal unless NO_COLOR is set)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    paths = table_files(args.paths or [default_table()])
    also = importers(paths)  # a table that imports a checked one is checked with it
    paths += list(also)
    results = [check(args, p) for p in paths]
    diagnostics = [d for r in results for d in r.diagnostics]  # each file's are sorted already
    if any(d.entry is IO for d in diagnostics):  # a file that cannot be read: usage, not a finding
        code = EXIT_USAGE
    elif any(not r.ok for r in results):
        code = EXIT_FINDINGS
    elif args.strict and any(d.severity is Severity.WARNING for d in diagnostics):
        code = EXIT_FINDINGS
    else:
        code = EXIT_OK
    fails = (lambda d: d.is_error or d.severity is Severity.WARNING) if args.strict else (lambda d: d.is_error)
    shown: list = []
    held: list = []  # text output: what the analysis found with part of a table left out
    unshown = 0  # text output: notes of valid tables
    grouped: list[str] = []  # text output: findings past the first few of a code, counted
    for r in results:
        ds = [d for d in r.diagnostics if fails(d)] if args.quiet else list(r.diagnostics)  # -q: what fails
        if args.format == "text":
            # the cause first: what follows from an error that left part of the table out comes after
            # it, or is counted (--verbose shows it), as rustc holds back errors that follow from an earlier one
            following = [d for d in ds if _follows(d)]
            ds = [d for d in ds if not _follows(d)]
            if not args.verbose:  # and a valid table's notes need no action: counted, not shown
                unshown += sum(r.ok and d.severity is Severity.NOTE for d in ds)
                ds = [d for d in ds if not (r.ok and d.severity is Severity.NOTE)]
                held, following = held + following, []
            ds += following
            ds, more = _grouped(ds)
            grouped += [f"{r.file}: {line}" for line in more]
        shown += ds
    if args.format == "text" and len(shown) > MAX_SHOWN:  # and in all: output stays bounded by the input
        left = shown[MAX_SHOWN:]
        shown = shown[:MAX_SHOWN]
        grouped.append(f"{len(left)} more finding(s) not shown ({', '.join(sorted({d.code for d in left}))}): "
                       "--format json lists every one")
    summary = None if args.quiet and code == EXIT_OK else "\n".join(
        [f"{path}: checked too: it takes inputs from {file}" for path, file in also.items()]
        + grouped
        + ([f"{len(held)} more finding(s) ({', '.join(sorted({d.code for d in held}))}) were found with the parts "
            "that failed to build left out; they may go once the errors above are fixed (--verbose shows them)"]
           if held else [])
        + [summary_line(diagnostics, len(paths), strict=args.strict, unshown_notes=unshown)])
    text = render(args.format, paths, shown, use_color(args.color, sys.stdout), summary,
                  getattr(args, "stdin_filename", None) or "<stdin>")
    if text:
        print(text)
    return code


def _follows(d: Any) -> bool:
    """Found with the rules, cases or invariants that failed to build left out (or the note
    that says so): a finding that may go once the error that left them out is fixed."""
    return bool(d.facts.get("partial")) or d.code == "analysis-partial"


#: Text output shows the first few findings of a code in each file in full, and counts the rest
#: (3,000 rules hidden by one would print a megabyte); at most MAX_SHOWN findings in all.
SHOWN_PER_CODE, MAX_SHOWN = 5, 100


def _grouped(ds: list[Any]) -> tuple[list[Any], list[str]]:
    """The findings to show in full, and a line for each code past SHOWN_PER_CODE of them."""
    kept: list[Any] = []
    rest: dict[str, list[Any]] = {}
    shown: dict[str, int] = {}
    for d in ds:
        if shown.get(d.code, 0) < SHOWN_PER_CODE:
            shown[d.code] = shown.get(d.code, 0) + 1
            kept.append(d)
        else:
            rest.setdefault(d.code, []).append(d)
    lines = []
    for code, more in rest.items():
        ids = [d.rules[0] for d in more if d.rules]
        which = f" (rule(s) {shown_list(ids, 5)})" if ids else ""
        lines.append(f"{len(more)} more {code} finding(s) like those above{which}: --format json lists every one")
    return kept, lines
