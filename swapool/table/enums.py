"""Drift between an input's values and the engine enum it is bound to (`enum: module:Class`)."""

from __future__ import annotations

import enum
import functools
import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

from .diagnostics import Diagnostic, error, format_value, note, warning
from .model import Input, Table


@dataclass(frozen=True)
class EnumPolicy:
    """Whether bound enums are imported to check drift (part of a load's cache key)."""

    do_import: bool = True


def import_enum(binding: str) -> Any:
    """Import `module:Class` (dots after the colon walk attributes)."""
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
        return member_names(import_enum(binding))
    except Exception as exc:  # any import-time failure of a third-party module
        return f"{type(exc).__name__}: {exc}"


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
        top = inp.enum.split(":")[0].split(".")[0]
        if importlib.util.find_spec(top) is None:
            found.append(note("enum-import", f"input '{inp.name}' is bound to {inp.enum}, but '{top}' is "
                                 "not installed here; drift from its members is not checked", inp.span,
                                 help="install the engine in this environment to check the binding"))
            continue
        members = bound_members(inp.enum)
        if isinstance(members, str):
            found.append(note("enum-import", f"input '{inp.name}': cannot import {inp.enum} "
                              f"({members}); drift is not checked", inp.span))
            continue
        found += drift(inp, members)
    return found


def drift(inp: Input, members: tuple[str, ...]) -> list[Diagnostic]:
    """Members missing from the values are gaps; values that are not members are stale."""
    found = []
    for name in members:
        if name not in inp.values:
            found.append(error("enum-missing-member",
                               f"{inp.enum} has member {name}, which is not a value of input '{inp.name}': "
                               "no rule decides it", inp.span,
                               help=f"add {name} to the values and name it in the rule that should decide it"))
    for v in inp.values:
        if v not in members:
            found.append(warning("enum-extra-value", f"value {format_value(v)} of input '{inp.name}' is not a "
                                 f"member of {inp.enum}", inp.span,
                                 help="remove the value, or check the binding names the right enum"))
    return found
