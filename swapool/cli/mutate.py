"""`swapool mutate`: every single-point edit of a table, and which ones validate misses."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..table.codes import yaml_flow
from .jsonout import to_json
from .reading import DEFAULT_TABLE, check, default_table, table_files
from .render import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, refuse, say

#: The run stopped at its work budget before judging every mutant.
EXIT_STOPPED = 3


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "mutate", parents=[reading], help="apply every single-point edit to a table and count how many validate rejects",
        description="Mutation testing: change each rule's output, add/remove/replace each cell value, "
                    "narrow each '-', remove each rule and change each case's expectation; a mutant "
                    "that still validates is an edit the cases and invariants cannot catch.",
        epilog=f"Exit codes: 0 every mutant of every table killed, 1 some survived, 2 a table itself is invalid "
               f"or has too many mutants, {EXIT_STOPPED} the run stopped at its work budget (about a minute of "
               "analysis a table) before judging every mutant.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help=f"table files, directories (each *.yaml and *.yml in them) or - (default: {DEFAULT_TABLE})")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Each table in turn; the worst verdict is the exit code."""
    return max(_one(args, path) for path in table_files(args.paths or [default_table()]))


def _one(args: argparse.Namespace, path: str) -> int:
    from ..swa.contract import CONTRACTS
    from ..table.mutate import TooManyMutants, run_mutations

    checked = check(args, path)
    if checked.table is None or not checked.ok:
        return refuse("mutate", checked.diagnostics, f"{path} must validate before its mutants mean anything")
    try:
        report = run_mutations(checked.table, CONTRACTS.get(checked.table.decision))
    except TooManyMutants as exc:
        say(f"swapool mutate: {path}: {exc}", sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        print(to_json({"file": path, "mutants": report.planned, "judged": report.total, "stopped": report.stopped,
                       "killed": report.killed,
                       "kill_rate": report.kill_rate,
                       "survivors": [{"mutant": s.description, "rule": s.rule, "case": s.case,
                                      "at": str(s.span) if s.span else path} for s in report.survivors]}, indent=2))
    else:
        for s in report.survivors:
            say(f"{s.span or path}: survived: {s.description}")
            if s.equivalent:
                say("  = note: equivalent: it decides every input as the table does; no case can tell them apart")
            elif s.case is not None:  # a mutant that is not equivalent has the case that tells them apart
                say("  = help: add this case, which the table passes and the edit fails:")
                say(f"      - {yaml_flow(s.case)}")
        if report.stopped:
            say(f"{path}: stopped after {report.total:,} of {report.planned:,} mutants: the work budget of a run "
                "is spent; split the table, or mutate a part of it")
        say(f"{path}: {report.total} mutants, {report.killed} killed, kill rate {_rate(report.killed, report.total)}")
    if report.survivors:
        return EXIT_FINDINGS
    return EXIT_STOPPED if report.stopped else EXIT_OK


def _rate(killed: int, total: int) -> str:
    """The kill rate to one decimal, rounded down: one survivor in 3,000 is 99.9%, never 100.0%."""
    return "100.0%" if killed == total else f"{killed * 1000 // max(total, 1) / 10:.1f}%"
