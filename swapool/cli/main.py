"""The `swapool` command: its parser, and what every command shares at the edge (a
reader may close the output early; a table past the analysis budget is a finding)."""

from __future__ import annotations

import argparse
import os
import sys

from .._version import __version__
from ..table.partition import BudgetExceeded
from ..table.source import parsed_once
from .reading import add_reading_flags
from .render import EXIT_FINDINGS, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence, TextIO

#: Each command, by the module that adds it (some add two), in the order --help lists them.
COMMANDS = {"validate": "validate", "explain": "explain", "diff": "diff", "git-diff": "diff", "show": "show",
            "plan": "plan", "doctor": "doctor", "mutate": "mutate", "codes": "codes", "schema": "codes"}


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


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of `argv`'s command only, when argv names one (each command module is
    imported only to run it: a pre-commit hook pays for validate, not for plan's imports);
    of every command otherwise (--help, a usage error)."""
    named = next((a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")), None)
    modules = [COMMANDS[named]] if named in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    parser = _Parser(
        prog="swapool",
        description="Check and query the SWA KV pool decision table (policies/swa.yaml).",
        epilog="Exit codes: 0 valid, 1 the table has findings, 2 usage or I/O error. "
               "Run 'swapool COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version", version=f"swapool {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, prog=parser.prog)
    reading = _Parser(add_help=False)  # how every command reads a table
    add_reading_flags(reading)
    for module in modules:
        # the builtin, not importlib: importing importlib is one more import on every commit
        __import__(f"{__package__}.{module}", fromlist=["add"]).add(commands, reading)
    return parser


#: The output could not be written (a full disk, /dev/full): sysexits' EX_IOERR.
EXIT_WRITE = 74


class _Output:
    """Standard output that a reader may close early (`swapool validate dir/ | head`): the
    rest of the output is dropped, the command runs to its end, and the exit code is still
    the verdict. Any other write error (a full disk) drops the rest too and is kept, for
    `main` to report in one line."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        self.closed_early = False
        self.failed: OSError | None = None

    def write(self, text: str) -> int:
        if not self.closed_early:
            try:
                return self._stream.write(text)
            except OSError as exc:
                self._drop(exc)
        return len(text)

    def flush(self) -> None:
        if not self.closed_early:
            try:
                self._stream.flush()
            except OSError as exc:
                self._drop(exc)

    def _drop(self, exc: OSError) -> None:
        self.closed_early = True
        if not isinstance(exc, BrokenPipeError):
            self.failed = exc
        try:  # the interpreter flushes stdout once more at exit: point it at nothing
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    for name in ("stdout", "stderr"):  # started with it closed: what goes there goes nowhere, never elsewhere
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w"))
    args = build_parser(argv).parse_args(argv)
    stdout = sys.stdout
    out = _Output(stdout)
    sys.stdout = out  # type: ignore[assignment]
    try:
        with parsed_once():  # a table read again (as another's import) is not parsed again
            code = args.func(args)
    except KeyboardInterrupt:
        code = 130
    except BudgetExceeded as exc:  # a table past the analysis budget: a finding, never a traceback
        say(f"swapool {args.command}: the table is too irregular to analyse exactly ({exc}); 'swapool validate' "
             "reports it as analysis-budget", sys.stderr)
        code = EXIT_FINDINGS
    finally:
        try:
            sys.stdout.flush()
        finally:
            sys.stdout = stdout
    if out.failed is not None:
        say(f"swapool {args.command}: cannot write the output ({out.failed.strerror or out.failed}); exit "
            f"{EXIT_WRITE}", sys.stderr)
        return EXIT_WRITE
    return code


if __name__ == "__main__":
    raise SystemExit(main())
