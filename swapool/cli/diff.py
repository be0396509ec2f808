"""`swapool diff`: every region of the input space two tables decide differently; and
`swapool git-diff`, the same comparison as git's external diff driver."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .jsonout import to_json
from .reading import check, parse_facts
from .render import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, refuse, say, say_partial

#: What git passes for the side of an added or deleted file.
_NO_FILE = "/dev/null"


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "diff", parents=[reading], help="every input whose decision differs between two tables",
        description="Compare two tables semantically: print each region of the input space whose "
                    "decision changed, as 'region: old (rule) -> new (rule)'. Renamed or reordered "
                    "rules with the same decisions are equivalent. OLD may be - (standard input, named by "
                    "--stdin-filename) or a pipe, for the table as git has it: "
                    "git show HEAD:policies/swa.yaml | swapool diff - policies/swa.yaml --stdin-filename "
                    "HEAD:policies/swa.yaml",
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
    g = commands.add_parser(
        "git-diff", parents=[reading], help="git's diff driver for tables: git diff prints the semantic diff",
        description="Called by git with the seven arguments of an external diff (GIT_EXTERNAL_DIFF) for each "
                    "changed file whose diff attribute names this driver. Set it up once: "
                    "git config diff.swapool.command 'swapool git-diff', and in .gitattributes: "
                    "policies/*.yaml diff=swapool. Prints the semantic diff; where a side is not a valid "
                    "table, its findings and the text diff. git diff --no-ext-diff shows the text.",
        epilog="Exit code: 0 whatever the tables say (git stops at a driver that fails); 2 on bad arguments.")
    for name in ("path", "old_file", "old_hex", "old_mode", "new_file", "new_hex", "new_mode"):
        g.add_argument(name, metavar=name.upper().replace("_", "-"))
    g.set_defaults(func=run_git)


def _folder_for(path: str, other: str, stdin_name: str | None) -> str | None:
    """Where a table read from standard input or a pipe finds its imports: the folder of its
    --stdin-filename where that is one, else beside the table it is compared with (the old
    version of a file imports what sits beside the new one)."""
    if path == "-" and stdin_name and os.path.isdir(os.path.dirname(stdin_name) or "."):
        return os.path.dirname(stdin_name) or "."
    if not os.path.isfile(path) and os.path.isfile(other):  # standard input, or a pipe such as <(git show ...)
        return os.path.dirname(other) or "."
    return None


def run(args: argparse.Namespace) -> int:
    from ..table.diff import IncomparableTables, diff_tables

    stdin_name = getattr(args, "stdin_filename", None)
    names = [stdin_name or "<stdin>" if p == "-" else p for p in (args.old, args.new)]
    checked = [check(args, p, name=n, folder=_folder_for(p, o, stdin_name))
               for p, n, o in ((args.old, names[0], args.new), (args.new, names[1], args.old))]
    unreadable = [c for c in checked if (c.table or c.partial) is None]
    if unreadable:
        return refuse("diff", [d for c in unreadable for d in c.diagnostics],
                      f"{', '.join(c.file for c in unreadable)} could not be read as a table")
    partial = say_partial("diff", [c for c in checked if not c.ok])
    try:
        result = diff_tables(*(_restricted(c.table or c.partial, texts, flag)  # mid-edit: without what failed to build
                               for c, flag, texts in zip(checked, ("--old-set", "--new-set"), (args.old_set, args.new_set))))
    except (IncomparableTables, ValueError) as exc:
        say(f"swapool diff: {exc}", sys.stderr)
        return EXIT_USAGE
    _say_diff(args.format, result, *names)
    return EXIT_FINDINGS if result.changes or partial else EXIT_OK


def _restricted(table: Any, texts: list[str] | None, flag: str) -> Any:
    """`table` with each fact of `flag` (`--old-set a=b`) fixed."""
    for fact in parse_facts(table, texts, flag).items():
        table = table.restricted(*fact)
    return table


def _say_diff(fmt: str, result: Any, old: str, new: str) -> None:
    if fmt == "markdown":
        from .pictures import markdown_diff

        print(markdown_diff(result, old, new))
    elif fmt == "json":
        print(to_json({"old": old, "new": new, "equivalent": not result.changes, "changes": [
            {"region": result.describe(c), "witness": result.witness(c),
             "old": {"output": c.old.output, "rule": c.old.rule_id},
             "new": {"output": c.new.output, "rule": c.new.rule_id}} for c in result.changes]}, indent=2))
    else:
        say_changes(result, old, new)


def say_changes(result: Any, old: str, new: str) -> None:
    for change in result.changes:
        say(f"{result.describe(change)}: {change.old} -> {change.new}")
    say(f"{old} -> {new}: " + (f"{len(result.changes)} region(s) decided differently"
                               if result.changes else "equivalent"))


def run_git(args: argparse.Namespace) -> int:
    """One file of `git diff`: the semantic diff of its two versions, read as the file at
    `path` (imports from its folder); a side that is not a valid table gets its findings
    and the text diff instead. Never fails the diff: git stops at a driver that does."""
    from ..table.diff import IncomparableTables, diff_tables

    old_name, new_name = f"a/{args.path}", f"b/{args.path}"
    folder = os.path.dirname(args.path) or "."
    say(f"swapool git-diff {old_name} {new_name}")
    if _NO_FILE in (args.old_file, args.new_file):
        say(f"{args.path}: {'new table' if args.old_file == _NO_FILE else 'table deleted'}")
        return EXIT_OK
    checked = [check(args, f, name=n, folder=folder) for f, n in ((args.old_file, old_name), (args.new_file, new_name))]
    if all(c.ok for c in checked):
        try:
            say_changes(diff_tables(*(c.table for c in checked)), old_name, new_name)
            return EXIT_OK
        except IncomparableTables as exc:
            say(f"{args.path}: the versions cannot be compared semantically ({exc}); the text diff:")
    else:
        for c in checked:
            errors = [d for d in c.diagnostics if d.is_error]
            if errors:
                say(f"{c.file}: {len(errors)} error(s) ({', '.join(sorted({d.code for d in errors}))}); "
                    f"'swapool validate {args.path}' shows them. The text diff:")
    _text_diff(args.old_file, args.new_file, old_name, new_name)
    return EXIT_OK


def _text_diff(old: str, new: str, old_name: str, new_name: str) -> None:
    import difflib

    from ..table.files import read_bytes

    before, after = ((read_bytes(f)[0] or b"").decode("utf-8", "replace").splitlines(keepends=True) for f in (old, new))
    sys.stdout.writelines(difflib.unified_diff(before, after, old_name, new_name))
