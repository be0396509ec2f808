"""The SWA pool resolver, generated once per policy from its decision diagram.

At load the diagram becomes the nested `if`s a person would write by hand (reading
facts from the model runner in table order, only while the answer depends on them),
so a call costs what the hand-written code costs. The diagram itself stays the
reference: tests require the generated code to agree with it on every input.
"""

from __future__ import annotations

from typing import Any, Callable

from ..table.diagram import Ask, Decision, Diagram
from ..table.spelling import SPELLING_GLOBALS, holds_test, spelling_lines
from .facts import POOL_DERIVED, POOL_FACTS, POOL_VALUES, RUNNER_DERIVED, SAFE_WHEN, pool_expression

#: The local the generated code keeps each pool fact's pool in.
POOL_VARIABLE = {"active_pool": "pool", "allocator_kvcache": "kv"}


class UnsafeDiagram(ValueError):
    """A diagram whose answer would be a pool that did not pass the SWA check."""


Resolver = Any  # a generated function resolve(model_runner, types=...); attributes may be set on it


def generate_source(diagram: Diagram) -> tuple[str, dict[str, Any]]:
    """Python source of `resolve(mr, types)` for this diagram, and the constants it uses."""
    consts: dict[str, Any] = {}
    lines = ["def resolve(mr, types=_DEFAULT_TYPES):"]

    def const(value: Any) -> str:
        name = f"_C{len(consts)}"
        consts[name] = value
        return name

    def groups(ask: Ask) -> list[tuple[frozenset, Any]]:
        out: dict[int, tuple[set, Any]] = {}
        for value, child in ask.children.items():
            out.setdefault(id(child), (set(), child))[0].add(value)
        return [(frozenset(vals), child) for vals, child in out.values()]

    def emit(node: Any, depth: int, passed: frozenset[str], read: frozenset[str] = frozenset()) -> None:
        """`passed`: the pool facts that passed the SWA check on the path to here; `read`:
        the pool facts whose pool is already in its local."""
        pad = "    " * depth
        if isinstance(node, Decision):
            if node.output == "none":
                lines.append(f"{pad}return None")
                return
            fact = SAFE_WHEN[node.output]
            if fact not in passed:  # the contract refuses such tables; this never emits them
                raise UnsafeDiagram(f"rule '{node.rule_id}' would return a pool that did not pass the SWA check")
            lines.append(f"{pad}return {POOL_VARIABLE[fact]}")
            return
        assert isinstance(node, Ask)
        name = node.name
        if name in POOL_FACTS:
            var = POOL_VARIABLE[name]
            lines.append(f"{pad}{var} = {pool_expression(name)}")
            lines.append(f"{pad}if isinstance({var}, types):")
            for i, value in enumerate(POOL_VALUES):
                if i:
                    lines.append(f"{pad}else:")
                if value in node.children:
                    emit(node.children[value], depth + 1, passed | {name} if value == "swa" else passed, read | {name})
                else:
                    lines.append(f"{pad}    raise _unknown({name!r}, {value!r})")
            return
        inp = diagram.table.inputs[node.index]
        if name in POOL_DERIVED:
            source, derive = POOL_DERIVED[name]
            if source not in read:
                lines.append(f"{pad}{POOL_VARIABLE[source]} = {pool_expression(source)}")
                read = read | {source}
            lines.append(f"{pad}v = {const(derive)}({POOL_VARIABLE[source]})")
        elif name in RUNNER_DERIVED:
            lines.append(f"{pad}v = {const(RUNNER_DERIVED[name])}(mr)")
        else:
            lines.append(f"{pad}v = mr.{name}")
        lines.extend(pad + line for line in spelling_lines(inp))
        for i, (vals, child) in enumerate(groups(node)):
            lines.append(f"{pad}{'el' if i else ''}if {holds_test(inp, vals, const)}:")
            emit(child, depth + 1, passed, read)
        lines.append(f"{pad}else:")
        derived = name in POOL_DERIVED or name in RUNNER_DERIVED
        lines.append(f"{pad}    raise _unknown({name!r}, {'v' if derived else f'mr.{name}'})")

    emit(diagram.root, 1, frozenset())
    return "\n".join(lines) + "\n", consts


def build_resolver(diagram: Diagram, generated: tuple[str, dict[str, Any]], default_types: tuple[type, ...],
                   unknown: Callable[[str, Any], Exception]) -> Resolver:
    """Compile `generate_source(diagram)` (made, and so checked, once at load) into a
    function `resolve(model_runner, types=default_types)`."""
    source, consts = generated
    namespace: dict[str, Any] = {"_DEFAULT_TYPES": default_types, "_unknown": unknown, **SPELLING_GLOBALS, **consts}
    code = compile(source, f"<swapool resolver for {diagram.table.file}>", "exec")
    exec(code, namespace)  # generated above from the validated diagram; table values enter only as constants
    fn: Resolver = namespace["resolve"]
    fn.__doc__ = f"SWA pool resolver generated from {diagram.table.file}:\n\n{source}"
    return fn
