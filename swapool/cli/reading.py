"""How every command reads a table: which file (a path, a directory, standard input or
the checkout's own), the enum policy of the flags, the contracts swapool knows, and the
facts `--set` gives."""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

DEFAULT_TABLE = "$SWAPOOL_POLICY, else policies/swa.yaml here or in the nearest folder above, else the installed one"


def add_reading_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdin-filename", metavar="NAME", help="the name locations use for - (default: <stdin>)")
    parser.add_argument("--no-enum-import", action="store_true",
                        help="do not import the enums inputs are bound to (no drift check)")
    parser.add_argument("--enum-module", action="append", metavar="PREFIX",
                        help="a module prefix enum bindings may be imported from (repeatable; default: "
                             "$SWAPOOL_ENUM_MODULES, else sglang). Importing a module runs its code.")


def add_server_tables(parser: argparse.ArgumentParser) -> None:
    """The flags of a command that describes a server (plan, doctor): the two tables it loads,
    found as a server finds them unless named, and the output format."""
    parser.add_argument("--policy", metavar="PATH", help="the SWA pool policy (default: $SWAPOOL_POLICY, else the "
                                                         "installed policies/swa.yaml, as the server)")
    parser.add_argument("--places", metavar="PATH", help="the table of places (default: $SWAPOOL_PLACES_POLICY, "
                                                         "else the installed policies/swa_backends.yaml, as the server)")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def default_table() -> str:
    """The table a command reads when no PATH is given (swa/paths.py's rule: $SWAPOOL_POLICY,
    then policies/swa.yaml here or in the nearest folder above, then the installed one),
    said on stderr so that the output is never read as another file's."""
    from ..swa.paths import find_table
    from ..table.decider import PolicyError

    try:
        path, source = find_table("policy", here=True)
    except PolicyError as exc:
        print(f"swapool: {exc}", file=sys.stderr)
        raise SystemExit(2) from None  # a usage error, as argparse's
    print(f"swapool: reading {path} ({source})", file=sys.stderr)
    return path


def path_or_default(value: str | None) -> str:
    """A table path argument; only a missing one means the default ('' is an error)."""
    return default_table() if value is None else value


def table_files(paths: Sequence[str]) -> list[str]:
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


def importers(paths: Sequence[str]) -> dict[str, str]:
    """The tables beside `paths` that take inputs `from:` one of them and are not among them,
    each with the file it imports: renaming a set in swa.yaml breaks swa_backends.yaml, so a
    check of the one (a pre-commit hook passes only what changed) checks the other too.
    Each candidate is read through the bounded reader, never run."""
    from ..table.files import read_bytes
    from ..table.source import parse_document

    given = {os.path.realpath(p) for p in paths if p not in ("-", "")}
    found: dict[str, str] = {}
    for folder in sorted({os.path.dirname(p) for p in given}):
        names = {os.path.basename(p) for p in given if os.path.dirname(p) == folder}
        try:
            entries = sorted(os.listdir(folder))
        except OSError:  # the given path's folder is missing: checking it says so
            continue
        for entry in entries:
            candidate = os.path.join(folder, entry)
            if not entry.endswith((".yaml", ".yml")) or candidate in given:
                continue
            raw, _ = read_bytes(candidate)
            if raw is None or not any(n.encode() in raw for n in names):
                continue
            shown = os.path.relpath(candidate) if not os.path.isabs(paths[0]) else candidate
            doc, _ = parse_document(raw, shown)  # by the name its check reads it under: parsed once
            takes = _imported(doc.data if doc is not None else None, names)
            if takes:
                found[shown] = takes[0]
    return found


def _imported(data: Any, names: set[str]) -> list[str]:
    """Which of the files `names` a table's data takes inputs `from:` (none when it is not a
    table that parses)."""
    inputs = data.get("inputs") if isinstance(data, dict) else None
    if not isinstance(inputs, dict):
        return []
    return sorted({spec["from"] for spec in inputs.values() if isinstance(spec, dict) and spec.get("from") in names})


def check(args: argparse.Namespace, path: str, *, name: str | None = None, folder: str | None = None) -> Any:
    """Check one table as every command does: `path` a file, or - for standard input
    (named by --stdin-filename). `name` is what locations say, `folder` where its imports
    are (default: the file's own; standard input's is its --stdin-filename's). What an
    enum binding's import prints goes to stderr, never into the command's output."""
    stdout, sys.stdout = sys.stdout, sys.stderr  # (contextlib.redirect_stdout, without its import)
    try:
        return _check_quietly(args, path, name, folder)
    finally:
        sys.stdout = stdout


def enum_policy(args: argparse.Namespace) -> Any:
    from ..swa.facts import ENUM_MODULES
    from ..table.enums import EnumPolicy, enum_modules_from_env

    allowed = tuple(args.enum_module) if getattr(args, "enum_module", None) else enum_modules_from_env(ENUM_MODULES)
    return EnumPolicy(do_import=not getattr(args, "no_enum_import", True), allowed=allowed)


def _check_quietly(args: argparse.Namespace, path: str, name: str | None, folder: str | None) -> Any:
    from ..swa.contract import CONTRACTS
    from ..table.check import Checked, check_bytes, check_path
    from ..table.files import MAX_BYTES

    if path != "-":
        return check_path(path, display=name or path, enums=enum_policy(args), contracts=CONTRACTS, folder=folder)
    from ..table.codes.reading import IoClosed, IoTooLarge
    from ..table.diagnostics import Span, error

    stdin_name = getattr(args, "stdin_filename", None)
    name = name or stdin_name or "<stdin>"
    if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
        return Checked(name, None, (error(IoClosed(file=name), Span(name, 1, 1)),))
    raw = sys.stdin.buffer.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        return Checked(name, None, (error(IoTooLarge(file=name, limit=MAX_BYTES), Span(name, 1, 1)),))
    if folder is None and stdin_name:
        folder = os.path.dirname(stdin_name) or "."
    return check_bytes(raw, name, enums=enum_policy(args), contracts=CONTRACTS, folder=folder)


def parse_fact(table: Any, text: str, flag: str = "--set") -> tuple[str, object]:
    """`name=value` of `--set`, typed as the table's input (a bool input takes true/false)."""
    name, sep, raw = text.partition("=")
    if not sep:
        raise ValueError(f"{flag} takes name=value, got '{text}'")
    names = table.input_names
    if name not in names:
        raise ValueError(f"'{name}' is not an input; inputs: {', '.join(names)}")
    if table.inputs[names.index(name)].is_bool:
        lowered = raw.lower()
        if lowered not in ("true", "false"):
            raise ValueError(f"{name} is a bool input: write {name}=true or {name}=false")
        return name, lowered == "true"
    return name, raw


def parse_facts(table: Any, texts: Sequence[str] | None, flag: str = "--set") -> dict[str, object]:
    """Every `--set`, each fact once (giving one twice alike is harmless)."""
    facts: dict[str, object] = {}
    for name, value in (parse_fact(table, s, flag) for s in texts or []):
        if name in facts and facts[name] != value:
            raise ValueError(f"{flag} gives {name} twice, as {facts[name]!r} and {value!r}; give each fact once")
        facts[name] = value
    return facts
