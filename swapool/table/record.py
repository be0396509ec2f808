"""`Record`: the class syntax of `typing.NamedTuple` (typed fields, defaults, methods), built on
`collections.namedtuple` without importing typing or dataclasses. `swapool validate` runs in a
pre-commit hook, where every import and class definition is paid on each commit: dataclasses
imports inspect (~8 ms), and a frozen dataclass takes ~1.5 ms to define against ~0.1 ms for a
named tuple. Type checkers read a Record as the `typing.NamedTuple` it behaves as."""

from __future__ import annotations

import collections

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    class _RecordType(type):
        """Makes each subclass of Record a subclass of a named tuple of its annotated fields,
        a field's default being the value the class body gives it (defaults last); a class
        that defines `__eq__` gets the `!=` that negates it."""

        def __new__(mcs, name: str, bases: tuple, namespace: dict):
            if not bases:
                return super().__new__(mcs, name, bases, namespace)
            fields = list(namespace.get("__annotations__", {}))
            first = next((i for i, f in enumerate(fields) if f in namespace), len(fields))
            if any(f not in namespace for f in fields[first:]):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            defaults = [namespace.pop(f) for f in fields[first:]]
            tuple_type = collections.namedtuple(name, fields, defaults=defaults, module=namespace.get("__module__"))
            if "__eq__" in namespace:  # not tuple's own !=, which compares every field
                namespace.setdefault("__ne__", object.__ne__)
            return type(name, (tuple_type,), namespace)

    class Record(metaclass=_RecordType):
        """Subclass it as typing.NamedTuple: `class Span(Record): file: str; line: int`."""

__all__ = ["Record"]
