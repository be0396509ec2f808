"""`swapool diff`: every region of the input space two tables decide differently."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .reading import check, parse_facts
from .render import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, refuse, say, say_partial, to_json


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "diff", parents=[reading], help="every input whose decision differs between two tables",
        description="Compare two tables semantically: print each region of the input space whose "
                    "decision changed, as 'region: old (rule) -> new (rule)'. Renamed or reordered "
                    "rules with the same decisions are equivalent.",
        epilog="Exit codes: 0 equivalent, 1 decisions differ, 2 a table is unreadable or invalid. "
               "Example: swapool diff policies/swa_backends.yaml policies/swa_backends.yaml "
               "--old-set backend=triton --new-set backend=flashinfer")
    p.add_argument("old", metavar="OLD")
    p.add_argument("new", metavar="NEW")
    p.add_argument("--old-set", action="append", metavar="NAME=VALUE",
                   help="compare OLD with this input fixed (and removed), e.g. backend=triton")
    p.add_argument("--new-set", action="append", metavar="NAME=VALUE",
                   help="compare NEW with this input fixed (and removed)")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                   help="markdown: a table of changed regions for a pull-request comment")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..table.diff import IncomparableTables, diff_tables

    checked = [check(args, p) for p in (args.old, args.new)]
    unreadable = [c for c in checked if c.table is None]
    if unreadable:
        return refuse("diff", [d for c in unreadable for d in c.diagnostics],
                      f"{', '.join(c.file for c in unreadable)} could not be read as a table")
    partial = say_partial("diff", [c for c in checked if not c.ok])
    try:
        tables = [c.table for c in checked]
        for i, (flag, texts) in enumerate((("--old-set", args.old_set), ("--new-set", args.new_set))):
            for fact in parse_facts(tables[i], texts, flag).items():
                tables[i] = tables[i].restricted(*fact)
        result = diff_tables(*tables)
    except (IncomparableTables, ValueError) as exc:
        say(f"swapool diff: {exc}", sys.stderr)
        return EXIT_USAGE
    if args.format == "markdown":
        from .pictures import markdown_diff

        print(markdown_diff(result, args.old, args.new))
    elif args.format == "json":
        print(to_json({"old": args.old, "new": args.new, "equivalent": not result.changes, "changes": [
            {"region": result.describe(c), "witness": result.witness(c),
             "old": {"output": c.old.output, "rule": c.old.rule_id},
             "new": {"output": c.new.output, "rule": c.new.rule_id}} for c in result.changes]}, indent=2))
    else:
        for change in result.changes:
            say(f"{result.describe(change)}: {change.old} -> {change.new}")
        say(f"{args.old} -> {args.new}: " + (f"{len(result.changes)} region(s) decided differently"
                                             if result.changes else "equivalent"))
    return EXIT_FINDINGS if result.changes or partial else EXIT_OK
