"""`Record`: the class syntax of `typing.NamedTuple` (typed fields, defaults, methods): a tuple
subclass with a field per annotation, without importing typing or dataclasses. `swapool
validate` runs in a pre-commit hook, where every import and class definition is paid on each
commit: dataclasses imports inspect (~8 ms), a frozen dataclass takes ~1.5 ms to define, and
`collections.namedtuple` compiles a constructor per class (a Record defined on it took ~130 us;
this one, one class creation). Type checkers read a Record as the `typing.NamedTuple` it behaves as."""

from __future__ import annotations

import collections

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    class _RecordType(type):
        """Makes each subclass of Record a tuple of its annotated fields, a field's default
        being the value the class body gives it (defaults last); a class that defines `__eq__`
        gets the `!=` that negates it."""

        def __new__(mcs, name: str, bases: tuple, namespace: dict):
            if bases == (tuple,):  # Record itself
                return super().__new__(mcs, name, bases, namespace)
            fields = tuple(namespace.get("__annotations__", {}))
            first = next((i for i, f in enumerate(fields) if f in namespace), len(fields))
            if any(f not in namespace for f in fields[first:]):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            namespace.update({f: _getter(i, f"field {f}") for i, f in enumerate(fields)},
                             _fields=fields, _defaults=tuple(namespace[f] for f in fields[first:]))
            if "__eq__" in namespace:  # not tuple's own !=, which compares every field
                namespace.setdefault("__ne__", object.__ne__)
            return super().__new__(mcs, name, (Record,), namespace)

    class Record(tuple, metaclass=_RecordType):
        """Subclass it as typing.NamedTuple: `class Span(Record): file: str; line: int`."""

        _fields: tuple[str, ...] = ()
        _defaults: tuple = ()

        def __new__(cls, *args, **named):
            missing = len(cls._fields) - len(args)
            if not named and 0 < missing <= len(cls._defaults):
                args += cls._defaults[-missing:]
            elif missing or named:
                args = _bind(cls, args, named)
            return tuple.__new__(cls, args)

        def _replace(self, **changes):
            new = tuple.__new__(type(self), map(changes.pop, self._fields, self))
            if changes:
                raise ValueError(f"{type(self).__name__} has no field(s) {sorted(changes)}")
            return new

        def __getnewargs__(self):  # copy and pickle rebuild it from its fields
            return tuple(self)

        def __repr__(self) -> str:
            return f"{type(self).__name__}({', '.join(f'{f}={v!r}' for f, v in zip(self._fields, self))})"

    #: The field reader namedtuple uses (C where the interpreter has it, a property otherwise).
    _getter = collections._tuplegetter

    def _bind(cls: type, args: tuple, named: dict) -> tuple:
        """The fields of a call that names some, or gives too many or too few: bound as a
        function's parameters are, with the same errors."""
        fields = cls._fields
        given = dict(zip(fields, args))
        wrong = sorted(named.keys() & given.keys() | named.keys() - set(fields))
        if len(args) > len(fields) or wrong:
            raise TypeError(f"{cls.__name__}() takes the fields {', '.join(fields)}: got {len(args)} by position"
                            + (f", and {', '.join(wrong)} by name" if wrong else ""))
        given.update(named)
        defaults = dict(zip(fields[len(fields) - len(cls._defaults):], cls._defaults))
        missing = [f for f in fields if f not in given and f not in defaults]
        if missing:
            raise TypeError(f"{cls.__name__}() is missing the field(s) {', '.join(missing)}")
        return tuple(given[f] if f in given else defaults[f] for f in fields)


__all__ = ["Record"]
