"""The one spelling of a fact: how a value handed to a decision becomes a table value.

A bool input takes exactly `True` or `False` (not 1, 1.0 or "yes"); a values input takes
a `str`, an enum member (by its name) or an object whose `name` is a `str` (an engine's plugin
algorithms). Anything else is no value of the input. The rule is written once, as source
(`spelling_lines` and `holds_test`): `Decider.decide` runs it compiled per input, and
generated resolvers inline the same lines, so the two can never disagree.
"""

from __future__ import annotations

import enum
from typing import Any, Callable, Iterable

from .model import Input


class _NoFact:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOFACT"


NOFACT: Any = _NoFact()

#: The names the spelling lines use; a namespace that executes them must hold these.
SPELLING_GLOBALS: dict[str, Any] = {"_EnumType": type(enum.Enum), "_NOFACT": NOFACT}


def spelling_lines(inp: Input, var: str = "v") -> list[str]:
    """Statements that rebind `var` to its table spelling (a bool needs none: `holds_test`
    compares it by identity)."""
    if inp.is_bool:
        return []
    # An enum member is spelled by its name. Its metaclass says it is one: type(type(v))
    # costs ~20 ns where isinstance costs ~60 and any attribute of an enum class more. A
    # member of an enum with a metaclass of its own takes the `name` line: the same str.
    # `type(v)`, not `v.__class__`: an object can fake the latter and pass as a str.
    return [f"if type(type({var})) is _EnumType:",
            f"    {var} = {var}._name_",
            f"elif type({var}) is not str:",
            f"    {var} = getattr({var}, 'name', _NOFACT)",
            f"    if type({var}) is not str:",
            f"        {var} = _NOFACT"]


def holds_test(inp: Input, values: Iterable[Any], const: Callable[[frozenset], str], var: str = "v") -> str:
    """An expression, true when the spelled `var` is one of `values`; `const` names a
    constant of the generated code's namespace holding its argument."""
    if inp.is_bool:
        return " or ".join(f"{var} is {v!r}" for v in sorted(values))
    return f"{var} in {const(frozenset(values))}"


def speller(inp: Input) -> Callable[[Any], Any]:
    """The spelling lines and the domain test as a function of one fact: its table value,
    or `NOFACT` when the input does not hold it."""
    namespace = dict(SPELLING_GLOBALS)

    def const(value: frozenset) -> str:
        namespace["_DOMAIN"] = value
        return "_DOMAIN"
    lines = spelling_lines(inp) + [f"if {holds_test(inp, inp.values, const)}:", "    return v", "return _NOFACT"]
    body = "\n".join("    " + line for line in lines)
    exec(f"def spell(v):\n{body}\n", namespace)  # fixed source; table values enter only as constants
    return namespace["spell"]
