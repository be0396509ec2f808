"""`swapool explain`: the decision, its rule and its why for some facts."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .jsonout import to_json
from .reading import DEFAULT_TABLE, check, parse_facts, path_or_default
from .render import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, refuse, say, say_partial


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "explain", parents=[reading], help="show the decision, rule and reason for some facts",
        description="Decide for the given facts and print the output, the deciding rule and its why. "
                    "Facts the decision does not need may be left out.",
        epilog="Example: swapool explain --set active_pool=other --set is_draft_worker=true "
               "--set spec_algorithm=EAGLE --set allocator_kvcache=swa")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", help="a fact (repeatable)")
    p.add_argument("path", nargs="?", metavar="PATH", help=f"table file, or - (default: {DEFAULT_TABLE})")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..table.decider import Decider, NoRuleDecides, PolicyError

    path = path_or_default(args.path)
    checked = check(args, path)
    table = checked.table or checked.partial  # mid-edit: without the rules that failed to build
    if table is None:
        return refuse("explain", checked.diagnostics, f"{path} could not be read as a table")
    partial = say_partial("explain", [] if checked.ok else [checked])
    decider = Decider(table, path, checked.diagnostics, checked.diagram)
    try:
        facts = parse_facts(decider.table, args.set)
        explained = decider.explain(**facts)
    except (PolicyError, ValueError) as exc:
        first, *rest = str(exc).splitlines() or [""]
        say(f"swapool explain: {first}", sys.stderr)
        for line in rest:
            say(line, sys.stderr)
        # a gap of a table mid-edit is one of its findings; anything else is the facts given
        return EXIT_FINDINGS if partial and isinstance(exc, NoRuleDecides) else EXIT_USAGE
    decision, rule = explained.decision, explained.rule
    verdict = EXIT_FINDINGS if partial else EXIT_OK
    if args.format == "json":
        print(to_json({"file": path, "facts": facts, "output": decision.output, "rule": rule.id,
                       "at": str(rule.span), "why": rule.why, "partial": partial}, indent=2))
        return verdict
    for line in str(explained).splitlines():
        say(line)
    unused = [n for n in decider.table.input_names if n in facts and n not in explained.read]
    if unused:
        say(f"not read: {', '.join(unused)} (the decision did not depend on them)")
    return verdict
