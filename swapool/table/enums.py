"""Drift between an input's values and the engine enum it is bound to (`enum: module:Class`).

A table is data, so a binding may name only a module under a prefix the caller allows
(never the table; the engine allows none by default, an application names its engine's
package). A module that would
be found in the working directory is not imported; any exception an import raises
(`SystemExit` included) becomes a finding. Nothing here touches process-wide state
(`sys.path`, the standard streams): a server may check tables in several threads at once.
A caller that owns the process and needs clean output (the CLI) keeps an import's prints
off its own stdout.
"""

from __future__ import annotations

import enum
import functools
import os
import sys

from .record import Record
from .codes.bindings import (EnumExtraValue, EnumImport, EnumImportFailed, EnumMissingMember, EnumNotAllowed)
from .diagnostics import Diagnostic, error, note, warning
from .model import Input, Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Comma-separated prefixes that replace an application's default (for the CLI and load_policy).
ENV_ENUM_MODULES = "SWAPOOL_ENUM_MODULES"


class EnumPolicy(Record):
    """Whether bound enums are imported to check drift, and from which module prefixes
    (part of a load's cache key)."""

    do_import: bool = True
    allowed: tuple[str, ...] = ()

    def allows(self, module: str) -> bool:
        return module != "__main__" and any(module == p or module.startswith(p + ".") for p in self.allowed)


def enum_modules_from_env(default: tuple[str, ...]) -> tuple[str, ...]:
    """The allowed prefixes: $SWAPOOL_ENUM_MODULES when set, else the application's default."""
    raw = os.environ.get(ENV_ENUM_MODULES)
    if raw is None:
        return default
    return tuple(p.strip() for p in raw.split(",") if p.strip())


def _from_working_directory(top: str) -> bool:
    """Whether importing `top` now would load it from the working directory (a sys.path
    entry of '' or '.' or the cwd itself, as `python -m` and interactive use add)."""
    if top in sys.modules:
        return False  # already imported by the program itself: importing again runs nothing
    import importlib.util

    spec = importlib.util.find_spec(top)
    if spec is None:
        return False
    where = spec.submodule_search_locations and list(spec.submodule_search_locations)[0] or spec.origin
    if not where or where in ("built-in", "frozen"):
        return False
    return os.path.dirname(os.path.abspath(where)) == os.getcwd()


def import_enum(binding: str) -> Any:
    """Import `module:Class` (dots after the colon walk attributes)."""
    import importlib  # only where the engine is installed: a clean check elsewhere never needs it

    module_name, _, attr = binding.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@functools.lru_cache(maxsize=None)
def bound_members(binding: str) -> tuple[str, ...] | str:
    """The member names of `binding`, or why they cannot be had (imported once per process:
    a failed third-party import can leave half-initialised modules behind)."""
    try:
        top = binding.split(":")[0].split(".")[0]
        if _from_working_directory(top):
            return (f"'{top}' would be imported from the working directory ({os.getcwd()}), which a table "
                    "may not make swapool run")
        return member_names(import_enum(binding))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # any import-time failure, SystemExit included
        return f"{type(exc).__name__}: {exc}"


def _installed(top: str) -> bool:
    """Whether the top-level module `top` can be imported, asked of the import system's
    finders without importing it: `importlib.util.find_spec`'s question for a top-level name,
    without importlib.util's own imports (~1 ms of every pre-commit run where the engine
    an input is bound to is not installed)."""
    if top in sys.modules:
        return sys.modules[top] is not None
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        try:
            if find is not None and find(top, None) is not None:
                return True
        except (ImportError, ValueError):
            return False
    return False


def member_names(enum_class: Any) -> tuple[str, ...]:
    if not (isinstance(enum_class, type) and issubclass(enum_class, enum.Enum)):
        raise TypeError(f"{enum_class!r} is not an Enum class")
    return tuple(enum_class.__members__)


def check_enum_bindings(table: Table, policy: EnumPolicy = EnumPolicy()) -> list[Diagnostic]:
    """Compare each bound input's values with its enum's members, where the enum imports."""
    found: list[Diagnostic] = []
    for inp in table.inputs:
        if not inp.enum or not policy.do_import:
            continue
        module = inp.enum.split(":")[0]
        top = module.split(".")[0]
        if not policy.allows(module):
            found.append(warning(EnumNotAllowed(input=inp.name, enum=inp.enum, allowed=list(policy.allowed),
                                                setting=ENV_ENUM_MODULES), inp.span))
            continue
        if not _installed(top):
            found.append(note(EnumImport(input=inp.name, enum=inp.enum, module=top), inp.span))
            continue
        members = bound_members(inp.enum)
        if isinstance(members, str):
            found.append(warning(EnumImportFailed(input=inp.name, enum=inp.enum, module=top, reason=members), inp.span))
            continue
        found += drift(inp, members)
    return found


def drift(inp: Input, members: tuple[str, ...]) -> list[Diagnostic]:
    """Members missing from the values are gaps; values that are not members are stale."""
    found = []
    for name in members:
        if name not in inp.values:
            sets = [n for n, _ in inp.sets]
            found.append(error(EnumMissingMember(input=inp.name, enum=inp.enum, got=name, sets=sets), inp.span))
    for i, v in enumerate(inp.values):
        if v not in members:
            found.append(warning(EnumExtraValue(input=inp.name, enum=inp.enum, got=v, expected=members),
                                 inp.value_spans[i] if i < len(inp.value_spans) else inp.span))
    return found
