"""`swapool validate`: check tables and print every finding."""

from __future__ import annotations

import argparse
import sys

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
    code = _verdict(results, diagnostics, args.strict)
    if args.format != "text":
        shown = [d for r in results for d in r.diagnostics if _fails(d, args.strict)] if args.quiet else diagnostics
        summary = None
    else:
        shown, summary = _text(args, results, diagnostics, also, code)
    text = render(args.format, paths, shown, use_color(args.color, sys.stdout), summary,
                  getattr(args, "stdin_filename", None) or "<stdin>")
    if text:
        print(text)
    return code


def _verdict(results: list[Any], diagnostics: list[Any], strict: bool) -> int:
    if any(r.unreadable for r in results):  # a file that cannot be read: usage, not a finding
        return EXIT_USAGE
    if any(not r.ok for r in results) or strict and any(d.severity is Severity.WARNING for d in diagnostics):
        return EXIT_FINDINGS
    return EXIT_OK


def _fails(d: Any, strict: bool) -> bool:
    return d.is_error or strict and d.severity is Severity.WARNING


def _text(args: argparse.Namespace, results: list[Any], diagnostics: list[Any], also: dict[str, str],
          code: int) -> tuple[list[Any], str | None]:
    """What text output shows in full, and the lines that close it (counts, the verdict)."""
    shown: list = []
    held: list = []  # what the analysis found with part of a table left out
    unshown = 0  # notes of valid tables
    grouped: list[str] = []  # findings past the first few of a code, counted
    for r in results:
        ds, following, notes = _split(r, args)
        unshown += notes
        if not args.verbose:
            held, following = held + following, []
        ds, more = _grouped(ds + following)
        grouped += [f"{r.file}: {line}" for line in more]
        shown += ds
    if len(shown) > MAX_SHOWN:  # and in all: output stays bounded by the input
        left = shown[MAX_SHOWN:]
        shown = shown[:MAX_SHOWN]
        grouped.append(f"{len(left)} more finding(s) not shown ({', '.join(sorted({d.code for d in left}))}): "
                       "--format json lists every one")
    if args.quiet and code == EXIT_OK:
        return shown, None
    if held:
        grouped.append(f"{len(held)} more finding(s) ({', '.join(sorted({d.code for d in held}))}) were found with "
                       "the parts that failed to build left out; they may go once the errors above are fixed "
                       "(--verbose shows them)")
    return shown, "\n".join([f"{path}: checked too: it takes inputs from {file}" for path, file in also.items()]
                            + grouped + [summary_line(diagnostics, len(results), strict=args.strict,
                                                      unshown_notes=unshown)])


def _split(r: Any, args: argparse.Namespace) -> tuple[list[Any], list[Any], int]:
    """One table's findings for text output: those to show, those that follow from an error
    that left part of the table out (shown after it with --verbose, else counted, as rustc
    holds back errors that follow from an earlier one), and how many notes of a valid table
    are counted, not shown (they need no action; --verbose shows them)."""
    ds = [d for d in r.diagnostics if _fails(d, args.strict)] if args.quiet else list(r.diagnostics)
    following = [d for d in ds if _follows(d)]
    ds = [d for d in ds if not _follows(d)]
    if args.verbose:
        return ds, following, 0
    valid = r.ok  # read once: it looks at every finding
    kept = [d for d in ds if not (valid and d.severity is Severity.NOTE)]
    return kept, following, len(ds) - len(kept)


def _follows(d: Any) -> bool:
    """Found with the rules, cases or invariants that failed to build left out (or the note
    that says so): a finding that may go once the error that left them out is fixed."""
    return d.partial or d.code == "analysis-partial"


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
