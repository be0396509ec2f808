"""The commands: validate, explain, diff, show, plan, mutate, schema, codes. Rendering happens
here and in the renderers beside it, nowhere else."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any, Sequence, TextIO

from .. import swa  # noqa: F401  the SWA decision's finding codes, for `codes`, SARIF and findings
from .._version import __version__
from ..table.diagnostics import Diagnostic, Severity, visible
from ..table.partition import BudgetExceeded
from .render import render_json, render_text, summary_line, to_json
from .snippets import Sources

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
DEFAULT_TABLE = "policies/swa.yaml"

FORMATS = ("text", "json", "sarif", "github")


def _default_table() -> str:
    """policies/swa.yaml of the current directory (a checkout), else the shipped one."""
    from ..swa.policy import default_policy_path

    return DEFAULT_TABLE if os.path.isfile(DEFAULT_TABLE) else str(default_policy_path())


def _path(value: str | None) -> str:
    """A table path argument; only a missing one means the default ('' is an error)."""
    return _default_table() if value is None else value


def _check(args: argparse.Namespace, path: str) -> Any:
    """Check one table as every command does: the enum policy of the flags and the
    contracts of the decisions swapool knows (swa_kv_pool). What an enum binding's import
    prints goes to stderr, never into this command's output."""
    with contextlib.redirect_stdout(sys.stderr):
        return _check_quietly(args, path)


def _check_quietly(args: argparse.Namespace, path: str) -> Any:
    from ..swa.contract import CONTRACTS
    from ..table.check import check_path
    from ..swa.facts import ENUM_MODULES
    from ..table.enums import EnumPolicy, enum_modules_from_env

    allowed = tuple(args.enum_module) if getattr(args, "enum_module", None) else enum_modules_from_env(ENUM_MODULES)
    enums = EnumPolicy(do_import=not getattr(args, "no_enum_import", True), allowed=allowed)
    if path == "-":  # standard input, named for locations by --stdin-filename
        from ..table.check import Checked, check_bytes
        from ..table.diagnostics import Span, error
        from ..table.source import MAX_BYTES

        name = getattr(args, "stdin_filename", None) or "<stdin>"
        if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
            return Checked(name, None, (error("io", Span(name, 1, 1), problem="closed", file=name),))
        raw = sys.stdin.buffer.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            return Checked(name, None, (error("io", Span(name, 1, 1), problem="too-large", file=name, limit=MAX_BYTES),))
        folder = os.path.dirname(args.stdin_filename) or "." if getattr(args, "stdin_filename", None) else None
        return check_bytes(raw, name, enums=enums, contracts=CONTRACTS, folder=folder)
    return check_path(path, display=path, enums=enums, contracts=CONTRACTS)


def _table_files(paths: Sequence[str]) -> list[str]:
    """The paths as given, with each directory replaced by its *.yaml and *.yml files
    (sorted, recursively; hidden directories skipped). A directory without one stays, so
    that checking it reports the problem."""
    out: list[str] = []
    for p in paths:
        if p not in ("-", "") and os.path.isdir(p):
            from pathlib import Path

            found = sorted(str(f) for f in Path(p).rglob("*") if f.suffix in (".yaml", ".yml") and f.is_file()
                           and not any(part.startswith(".") for part in f.relative_to(p).parts[:-1]))
            out.extend(found or [p])
        else:
            out.append(p)
    return out


def _say(line: str, stream: TextIO | None = None) -> None:
    """Print one line of text output, every control character from a table made visible."""
    print(visible(line), file=stream or sys.stdout)


def _use_color(choice: str, stream: TextIO) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _render(fmt: str, files: Sequence[str], diagnostics: Sequence[Diagnostic], color: bool,
            summary: str | None = None, stdin_name: str | None = None) -> str:
    # the files' text, for the source lines and the spans' ends (not standard input's name)
    sources = Sources(frozenset([stdin_name] if stdin_name and "-" in files else []))
    if fmt == "json":
        return render_json(files, diagnostics, sources)
    if fmt == "sarif":
        from .sarif import render_sarif
        return render_sarif(diagnostics, sources)
    if fmt == "github":
        from .sarif import render_github
        return render_github(diagnostics, sources)
    body = [render_text(d, color=color, sources=sources) for d in diagnostics]
    return "\n".join(body + ([summary] if summary else []))


def _partial(command: str, tables: Sequence[Any]) -> bool:
    """Say on stderr which tables have errors, so an answer given mid-edit is read as such."""
    for c in tables:
        errors = [d for d in c.diagnostics if d.is_error]
        codes = ", ".join(sorted({d.code for d in errors}))
        _say(f"swapool {command}: note: {c.file} has {len(errors)} error(s) ({codes}); the answer covers what "
             "it decides as written and may change when they are fixed (exit 1)", sys.stderr)
    return bool(tables)


def _refuse(command: str, diagnostics: Sequence[Diagnostic], why: str) -> int:
    """Print a table's errors and why the command cannot go on; exit code 2."""
    for d in diagnostics:
        if d.is_error:
            print(render_text(d), file=sys.stderr)
    _say(f"swapool {command}: {why}", sys.stderr)
    return EXIT_USAGE


def cmd_validate(args: argparse.Namespace) -> int:
    paths = _table_files(args.paths or [_default_table()])
    results = [_check(args, p) for p in paths]
    diagnostics = [d for r in results for d in r.diagnostics]  # each file's are sorted already
    if any(d.code == "io" for d in diagnostics):
        code = EXIT_USAGE
    elif any(not r.ok for r in results):
        code = EXIT_FINDINGS
    elif args.strict and any(d.severity is Severity.WARNING for d in diagnostics):
        code = EXIT_FINDINGS
    else:
        code = EXIT_OK
    fails = (lambda d: d.is_error or d.severity is Severity.WARNING) if args.strict else (lambda d: d.is_error)
    shown = [d for d in diagnostics if fails(d)] if args.quiet else diagnostics  # -q: what fails the check
    summary = None if args.quiet and code == EXIT_OK else summary_line(diagnostics, len(paths), strict=args.strict)
    text = _render(args.format, paths, shown, _use_color(args.color, sys.stdout), summary,
                   getattr(args, "stdin_filename", None) or "<stdin>")
    if text:
        print(text)
    return code


def _parse_fact(table, text: str) -> tuple[str, object]:
    name, sep, raw = text.partition("=")
    if not sep:
        raise ValueError(f"--set takes name=value, got '{text}'")
    names = table.input_names
    if name not in names:
        raise ValueError(f"'{name}' is not an input; inputs: {', '.join(names)}")
    inp = table.inputs[names.index(name)]
    if inp.is_bool:
        lowered = raw.lower()
        if lowered not in ("true", "false"):
            raise ValueError(f"{name} is a bool input: write {name}=true or {name}=false")
        return name, lowered == "true"
    return name, raw


def cmd_explain(args: argparse.Namespace) -> int:
    from ..table.decider import Decider, PolicyError

    path = _path(args.path)
    checked = _check(args, path)
    if checked.table is None:
        return _refuse("explain", checked.diagnostics, f"{path} could not be read as a table")
    partial = _partial("explain", [] if checked.ok else [checked])
    decider = Decider(checked.table, path, checked.diagnostics, checked.diagram)
    try:
        facts: dict[str, object] = {}
        for name, value in (_parse_fact(decider.table, s) for s in args.set or []):
            if name in facts and facts[name] != value:
                raise ValueError(f"--set gives {name} twice, as {facts[name]!r} and {value!r}; give each fact once")
            facts[name] = value
        explained = decider.explain(**facts)
    except (PolicyError, ValueError) as exc:
        first, *rest = str(exc).splitlines() or [""]
        _say(f"swapool explain: {first}", sys.stderr)
        for line in rest:
            _say(line, sys.stderr)
        return EXIT_FINDINGS if partial and "gap" in first else EXIT_USAGE
    decision, rule = explained.decision, explained.rule
    if args.format == "json":
        print(to_json({"file": path, "facts": facts, "output": decision.output, "rule": rule.id,
                          "line": rule.span.line, "why": rule.why, "partial": partial}, indent=2))
        return EXIT_FINDINGS if partial else EXIT_OK
    _say(f"decision: {decision.output}")
    _say(f"rule:     {rule.id} ({rule.span})")
    if rule.why:
        _say(f"why:      {' '.join(rule.why.split())}")
    unused = [n for n in decider.table.input_names if n in facts and n not in explained.read]
    if unused:
        _say(f"not read: {', '.join(unused)} (the decision did not depend on them)")
    return EXIT_FINDINGS if partial else EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:

    from ..table.diff import IncomparableTables, diff_tables

    checked = [_check(args, p) for p in (args.old, args.new)]
    unreadable = [c for c in checked if c.table is None]
    if unreadable:
        return _refuse("diff", [d for c in unreadable for d in c.diagnostics],
                       f"{', '.join(c.file for c in unreadable)} could not be read as a table")
    partial = _partial("diff", [c for c in checked if not c.ok])
    try:
        tables = [c.table for c in checked if c.table is not None]
        for i, fixed in enumerate((args.old_set, args.new_set)):
            for text in fixed or []:
                tables[i] = tables[i].restricted(*_parse_fact(tables[i], text))
        result = diff_tables(*tables)
    except (IncomparableTables, ValueError) as exc:
        _say(f"swapool diff: {exc}", sys.stderr)
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
            _say(f"{result.describe(change)}: {change.old} -> {change.new}")
        _say(f"{args.old} -> {args.new}: " + (f"{len(result.changes)} region(s) decided differently"
                                              if result.changes else "equivalent"))
    return EXIT_FINDINGS if result.changes or partial else EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:

    from ..table.analysis import decided_regions
    from ..table.model import describe_region

    path = _path(args.path)
    checked = _check(args, path)
    if checked.table is None:
        _refuse("show", checked.diagnostics, f"{path} could not be read as a table")
        return EXIT_USAGE if any(d.code == "io" for d in checked.diagnostics) else EXIT_FINDINGS
    table = checked.table
    if args.format in ("mermaid", "dot"):
        from ..table.diagram import Diagram
        from ..table.partition import BudgetExceeded
        from .pictures import dot, mermaid

        try:
            diagram = checked.diagram or Diagram(table)
        except BudgetExceeded as exc:
            _say(f"swapool show: {path}: the diagram is too large to draw ({exc})", sys.stderr)
            return EXIT_FINDINGS
        print((mermaid if args.format == "mermaid" else dot)(diagram))
        return EXIT_OK if checked.ok else EXIT_FINDINGS
    rows: list[dict[str, Any]] = []
    decided = decided_regions(table)
    for ri, regions in decided:
        rule = table.rules[ri] if ri is not None else None
        for reg in regions:
            rows.append({"rule": rule.id if rule else None, "output": rule.then if rule else None,
                         "line": rule.span.line if rule else None,
                         "region": describe_region(table.inputs, reg)})
    deciding = {ri for ri, _ in decided}
    for rule in table.rules:  # a rule that decides nothing is still shown, and why
        if rule.index not in deciding:
            rows.append({"rule": rule.id, "output": rule.then, "line": rule.span.line,
                         "region": "(nowhere: earlier rules decide every input it matches, or it matches none)"})
    if args.format == "json":
        print(to_json({"file": path, "inputs": list(table.input_names), "decisions": rows}, indent=2))
    else:
        width = max(len(r["rule"] or "(no rule)") for r in rows)
        for r in rows:
            out = r["output"] or "(gap)"
            _say(f"{(r['rule'] or '(no rule)'):<{width}}  {out:<10}  {r['region']}")
    return EXIT_OK if checked.ok else EXIT_FINDINGS


def cmd_plan(args: argparse.Namespace) -> int:
    from ..table.decider import Decider
    from .plan import plan, render_json, render_text

    paths = {"policy": args.policy or os.environ.get("SWAPOOL_POLICY") or _default_table(),
             "places": args.places or os.environ.get("SWAPOOL_PLACES_POLICY") or
             os.path.join(os.path.dirname(_default_table()), "swa_backends.yaml")}
    deciders = {}
    for role, path in paths.items():
        checked = _check(args, path)
        if not checked.ok or checked.table is None:
            return _refuse("plan", checked.diagnostics, f"{path} does not validate: a server would refuse to start "
                                                        "with it ('swapool validate' says why)")
        deciders[role] = Decider(checked.table, path, checked.diagnostics, checked.diagram)
    draft = args.draft_backend or args.attention_backend
    try:
        plans = plan(deciders["policy"], deciders["places"], args.attention_backend, draft,
                     args.speculative_algorithm)
    except ValueError as exc:
        _say(f"swapool plan: {exc}", sys.stderr)
        return EXIT_USAGE
    print(render_json(plans, args) if args.format == "json" else render_text(plans, args.speculative_algorithm))
    return EXIT_OK


def cmd_mutate(args: argparse.Namespace) -> int:

    from ..swa.contract import CONTRACTS
    from ..table.mutate import TooManyMutants, run_mutations

    path = _path(args.path)
    checked = _check(args, path)
    if checked.table is None or not checked.ok:
        return _refuse("mutate", checked.diagnostics, f"{path} must validate before its mutants mean anything")
    try:
        report = run_mutations(checked.table, CONTRACTS.get(checked.table.decision))
    except TooManyMutants as exc:
        _say(f"swapool mutate: {exc}", sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        print(to_json({"file": path, "mutants": report.total, "killed": report.killed,
                          "kill_rate": report.kill_rate,
                          "survivors": [{"mutant": s.description, "rule": s.rule, "case": s.case,
                                         "file": s.span.file if s.span else path,
                                         "line": s.span.line if s.span else None,
                                         "column": s.span.column if s.span else None}
                                        for s in report.survivors]},
                         indent=2, default=str))
    else:
        for s in report.survivors:
            _say(f"{s.span or path}: survived: {s.description}")
            if s.equivalent:
                _say("  = note: equivalent: it decides every input as the table does; no case can tell them apart")
            else:
                _say("  = help: add this case, which the table passes and the edit fails:")
                _say(f"      - {_flow(s.case)}")
        _say(f"{path}: {report.total} mutants, {report.killed} killed, kill rate {report.kill_rate:.1%}")
    return EXIT_OK if not report.survivors else EXIT_FINDINGS


def _flow(data: Any) -> str:
    """`data` as one line of YAML flow style, ready to paste under `cases:`."""
    import yaml

    return visible(yaml.safe_dump(data, default_flow_style=True, sort_keys=False, width=1 << 16).strip())


def cmd_schema(args: argparse.Namespace) -> int:
    from ..table.shipped import schema_path

    sys.stdout.write(schema_path().read_text(encoding="utf-8"))
    return EXIT_OK


def cmd_codes(args: argparse.Namespace) -> int:
    import dataclasses
    import difflib

    from ..table.codes import CATALOGUE

    if args.code is not None and args.code not in CATALOGUE:
        near = difflib.get_close_matches(args.code, CATALOGUE, n=1)
        _say(f"swapool codes: no code '{args.code}'" + (f"; did you mean '{near[0]}'?" if near else "")
             + " ('swapool codes' lists them)", sys.stderr)
        return EXIT_USAGE
    chosen = [CATALOGUE[args.code]] if args.code else list(CATALOGUE.values())
    if args.format == "json":
        print(to_json([dataclasses.asdict(c) for c in chosen], indent=2))
    elif args.code:
        import textwrap

        c = chosen[0]
        print(f"{c.name} ({c.severity})\n")
        for label, text in (("what", c.summary), ("why", c.why), ("example", c.example), ("fix", c.fix)):
            print(textwrap.fill(text, 88, initial_indent=f"  {label + ':':<9}", subsequent_indent=" " * 11))
    else:
        width = max(map(len, CATALOGUE))
        for c in chosen:
            print(f"{c.name:<{width}}  {c.summary}")
    return EXIT_OK


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, sized without importing shutil: argparse builds one for every
    argument it adds, so `swapool validate` would pay shutil's import (a few ms of a
    pre-commit hook) only to learn the terminal width. Same rule: $COLUMNS, the terminal, 80."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None):
        if width is None:
            width = _columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _columns() -> int:
    try:
        return int(os.environ["COLUMNS"]) or 80
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="swapool",
        description="Check and query the SWA KV pool decision table (policies/swa.yaml).",
        epilog="Exit codes: 0 valid, 1 the table has findings, 2 usage or I/O error. "
               "Run 'swapool COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version", version=f"swapool {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, prog=parser.prog)

    reading = _Parser(add_help=False)  # how every command reads a table
    reading.add_argument("--stdin-filename", metavar="NAME", help="the name locations use for - (default: <stdin>)")
    reading.add_argument("--no-enum-import", action="store_true",
                         help="do not import the enums inputs are bound to (no drift check)")
    reading.add_argument("--enum-module", action="append", metavar="PREFIX",
                         help="a module prefix enum bindings may be imported from (repeatable; default: "
                              "$SWAPOOL_ENUM_MODULES, else sglang). Importing a module runs its code.")

    v = sub.add_parser(
        "validate", parents=[reading], help="check tables: schema, gaps, overlaps, dead rules, invariants, cases",
        description="Check one or more decision tables and print every finding as "
                    "file:line:col: severity[code]: message.",
        epilog="Exit codes: 0 valid (warnings allowed), 1 findings, 2 a file could not be read. "
               "'swapool codes' lists every finding code.")
    v.add_argument("paths", nargs="*", metavar="PATH",
                   help=f"table files, directories (searched for *.yaml and *.yml) or - for standard input "
                        f"(default: {DEFAULT_TABLE})")
    v.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    v.add_argument("--strict", action="store_true", help="warnings fail the check too")
    v.add_argument("-q", "--quiet", action="store_true",
                   help="print only what fails the check (errors; with --strict, warnings too); silent on success")
    v.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour text output (auto: on a terminal unless NO_COLOR is set)")
    v.set_defaults(func=cmd_validate)

    e = sub.add_parser(
        "explain", parents=[reading], help="show the decision, rule and reason for some facts",
        description="Decide for the given facts and print the output, the deciding rule and its why. "
                    "Facts the decision does not need may be left out.",
        epilog="Example: swapool explain --set active_pool=other --set is_draft_worker=true "
               "--set spec_algorithm=EAGLE --set allocator_kvcache=swa")
    e.add_argument("--set", action="append", metavar="NAME=VALUE", help="a fact (repeatable)")
    e.add_argument("path", nargs="?", metavar="PATH", help=f"table file, or - (default: {DEFAULT_TABLE})")
    e.add_argument("--format", choices=("text", "json"), default="text")
    e.set_defaults(func=cmd_explain)

    d = sub.add_parser(
        "diff", parents=[reading], help="every input whose decision differs between two tables",
        description="Compare two tables semantically: print each region of the input space whose "
                    "decision changed, as 'region: old (rule) -> new (rule)'. Renamed or reordered "
                    "rules with the same decisions are equivalent.",
        epilog="Exit codes: 0 equivalent, 1 decisions differ, 2 a table is unreadable or invalid. "
               "Example: swapool diff policies/swa_backends.yaml policies/swa_backends.yaml "
               "--old-set backend=triton --new-set backend=flashinfer")
    d.add_argument("old", metavar="OLD")
    d.add_argument("new", metavar="NEW")
    d.add_argument("--old-set", action="append", metavar="NAME=VALUE",
                   help="compare OLD with this input fixed (and removed), e.g. backend=triton")
    d.add_argument("--new-set", action="append", metavar="NAME=VALUE",
                   help="compare NEW with this input fixed (and removed)")
    d.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                   help="markdown: a table of changed regions for a pull-request comment")
    d.set_defaults(func=cmd_diff)

    sh = sub.add_parser(
        "show", parents=[reading], help="what each rule decides, as merged regions of the input space",
        description="Print, for each rule, the regions of the input space it actually decides "
                    "(after hit-policy resolution), merged; gaps are listed last. A review aid.",
        epilog="Exit codes: 0 valid table, 1 the table has findings (still shown), 2 unreadable.")
    sh.add_argument("path", nargs="?", metavar="PATH", help=f"table file, or - (default: {DEFAULT_TABLE})")
    sh.add_argument("--format", choices=("text", "json", "mermaid", "dot"), default="text",
                    help="text/json: the regions each rule decides; mermaid/dot: the decision diagram "
                         "(a node per input read, a leaf per output with its rule id)")
    sh.set_defaults(func=cmd_show)

    pl = sub.add_parser(
        "plan", parents=[reading], help="what every sglang place will decide for a deployment's flags, and why",
        description="For sglang's flags, print what the target runner (and the draft runner, with a "
                    "speculative algorithm) will decide in each place that picks a SWA pool: its "
                    "attention backend and its KV index translator, for every value of the facts only "
                    "the running server knows (the pools' kinds), each with its rule and file:line:col. "
                    "Backends whose resolver swapool replaces (trtllm_mha, flashinfer, aiter) follow the "
                    "SWA pool policy; the others are checked at start against the table of places.",
        epilog="Exit codes: 0 planned, 1 -, 2 a table does not validate or a flag is unknown. Example: "
               "swapool plan --attention-backend triton --speculative-algorithm EAGLE")
    pl.add_argument("--attention-backend", required=True, metavar="NAME",
                    help="sglang's --attention-backend (e.g. triton, flashinfer, trtllm_mha, torch_native)")
    pl.add_argument("--speculative-algorithm", default="NONE", metavar="NAME",
                    help="sglang's --speculative-algorithm (default: NONE, no draft runner)")
    pl.add_argument("--speculative-draft-attention-backend", dest="draft_backend", metavar="NAME",
                    help="the draft runner's backend (default: the --attention-backend)")
    pl.add_argument("--policy", metavar="PATH", help="the SWA pool policy (default: $SWAPOOL_POLICY, else "
                                                      f"{DEFAULT_TABLE} here or the shipped one)")
    pl.add_argument("--places", metavar="PATH", help="the table of places (default: $SWAPOOL_PLACES_POLICY, else "
                                                      "swa_backends.yaml beside the default policy)")
    pl.add_argument("--format", choices=("text", "json"), default="text")
    pl.set_defaults(func=cmd_plan)

    m = sub.add_parser(
        "mutate", parents=[reading], help="apply every single-point edit to a table and count how many validate rejects",
        description="Mutation testing: change each rule's output, add/remove/replace each cell value, "
                    "narrow each '-', remove each rule and change each case's expectation; a mutant "
                    "that still validates is an edit the cases and invariants cannot catch.",
        epilog="Exit codes: 0 every mutant killed, 1 some survived, 2 the table itself is invalid.")
    m.add_argument("path", nargs="?", metavar="PATH", help=f"table file, or - (default: {DEFAULT_TABLE})")
    m.add_argument("--format", choices=("text", "json"), default="text")
    m.set_defaults(func=cmd_mutate)

    s = sub.add_parser("schema", help="print the table format's JSON Schema (for editors and CI)",
                       description="Print schemas/decision-table.schema.json to standard output.")
    s.set_defaults(func=cmd_schema)

    c = sub.add_parser("codes", help="list every finding code, or explain one",
                       description="List every diagnostic code swapool emits, or print one code's "
                                   "meaning, severity, an example and the fix.",
                       epilog="Example: swapool codes unsafe-pool")
    c.add_argument("code", nargs="?", metavar="CODE", help="the code to explain")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.set_defaults(func=cmd_codes)
    return parser


class _ClosedPipeTolerant:
    """Standard output that a reader may close early (`swapool validate dir/ | head`): the
    rest of the output is dropped, the command runs to its end, and the exit code is still
    the verdict."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        self.closed_early = False

    def write(self, text: str) -> int:
        if not self.closed_early:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self.closed_early:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._drop()

    def _drop(self) -> None:
        self.closed_early = True
        try:  # the interpreter flushes stdout once more at exit: point it at nothing
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    stdout = sys.stdout
    sys.stdout = _ClosedPipeTolerant(stdout)  # type: ignore[assignment]
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BudgetExceeded as exc:  # a table past the analysis budget: a finding, never a traceback
        _say(f"swapool {args.command}: the table is too irregular to analyse exactly ({exc}); 'swapool validate' "
             "reports it as analysis-budget", sys.stderr)
        return EXIT_FINDINGS
    finally:
        try:
            sys.stdout.flush()
        finally:
            sys.stdout = stdout


if __name__ == "__main__":
    raise SystemExit(main())
