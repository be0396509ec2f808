"""`swapool codes` and `swapool schema`: the finding codes and the table format, for
people and for editors."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .jsonout import to_json
from .render import EXIT_OK, EXIT_USAGE, say


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser("codes", help="list every finding code, or explain one",
                            description="List every diagnostic code swapool emits, or print one code's "
                                        "meaning, severity, an example and the fix.",
                            epilog="Example: swapool codes unsafe-pool")
    p.add_argument("code", nargs="?", metavar="CODE", help="the code to explain")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run_codes)
    s = commands.add_parser("schema", help="print the table format's JSON Schema (for editors and CI)",
                            description="Print schemas/decision-table.schema.json to standard output.")
    s.set_defaults(func=run_schema)


def run_codes(args: argparse.Namespace) -> int:
    import difflib
    import textwrap

    from ..swa.codes import CATALOGUE
    from ..table.codes import examples

    if args.code is not None and args.code not in CATALOGUE:
        near = difflib.get_close_matches(args.code, CATALOGUE, n=1)
        say(f"swapool codes: no code '{args.code}'" + (f"; did you mean '{near[0]}'?" if near else "")
            + " ('swapool codes' lists them)", sys.stderr)
        return EXIT_USAGE
    chosen = [CATALOGUE[args.code]] if args.code else list(CATALOGUE.values())
    tables = examples() if args.code or args.format == "json" else {}
    if args.format == "json":
        print(to_json([{"name": c.name, "severity": c.severity_text, "summary": c.summary, "why": c.why,
                        "example": c.example, "fix": c.fix, "variants": c.variants,
                        "example_table": tables.get(c.name, {}).get("example"),
                        "fixed_table": tables.get(c.name, {}).get("fixed")} for c in chosen], indent=2))
    elif args.code:
        c = chosen[0]
        print(f"{c.name} ({c.severity_text})\n")
        for label, text in (("what", c.summary), ("why", c.why), ("example", c.example), ("fix", c.fix)):
            print(textwrap.fill(text, 88, initial_indent=f"  {label + ':':<9}", subsequent_indent=" " * 11))
        for label, key in (("a table with it", "example"), ("use instead", "fixed")):
            if c.name in tables:
                print(f"\n  {label}:\n" + textwrap.indent(tables[c.name][key].rstrip(), " " * 6))
    else:
        width = max(map(len, CATALOGUE))
        for c in chosen:
            print(f"{c.name:<{width}}  {c.summary}")
    return EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    from ..table.shipped import schema_path

    sys.stdout.write(schema_path().read_text(encoding="utf-8"))
    return EXIT_OK
