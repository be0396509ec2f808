"""The SWA pool resolver, generated once per policy from its decision diagram.

At load the diagram becomes the nested `if`s a person would write by hand (reading
facts from the model runner in table order, only while the answer depends on them),
so a call costs what the hand-written code costs. The diagram itself stays the
reference: tests require the generated code to agree with it on every input.
"""

from __future__ import annotations

import enum
from typing import Any, Callable

from .compiled import Ask, CompiledDecision, Decision

#: Facts read from a model runner, and the outputs turned into a pool.
SWA_FACTS = ("active_pool", "is_draft_worker", "spec_algorithm", "allocator_kvcache")
SWA_OUTPUTS = ("active", "allocator", "none")
_POOL_VALUES = ("swa", "other")

Resolver = Callable[..., Any]


def unsupported(table) -> str | None:
    """Why a table cannot drive the SWA resolver, or None when it can."""
    extra_in = [n for n in table.input_names if n not in SWA_FACTS]
    extra_out = [v for v in table.output.values if v not in SWA_OUTPUTS]
    odd = [f"{i.name}: {list(i.values)}" for i in table.inputs
           if i.name in ("active_pool", "allocator_kvcache") and not set(i.values) <= set(_POOL_VALUES)]
    if table.decision != "swa_kv_pool" or extra_in or extra_out or odd:
        return (f"policy {table.file} decides '{table.decision}' with inputs {list(table.input_names)} and "
                f"outputs {list(table.output.values)}; resolve_swa_kv_pool reads only {list(SWA_FACTS)} "
                f"(pool facts valued swa/other) and returns only {list(SWA_OUTPUTS)}")
    return None


def generate_source(compiled: CompiledDecision) -> tuple[str, dict[str, Any]]:
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

    def emit(node: Any, depth: int, kv_read: bool, pool_read: bool) -> None:
        pad = "    " * depth
        if isinstance(node, Decision):
            if node.output == "none":
                lines.append(f"{pad}return None")
            elif node.output == "active":
                lines.append(f"{pad}return pool" if pool_read else f"{pad}return mr.token_to_kv_pool")
            else:
                lines.append(f"{pad}return kv" if kv_read else
                             f"{pad}return mr.token_to_kv_pool_allocator.get_kvcache()")
            return
        assert isinstance(node, Ask)
        name = node.name
        if name in ("active_pool", "allocator_kvcache"):
            if name == "active_pool":
                lines.append(f"{pad}pool = mr.token_to_kv_pool")
                lines.append(f"{pad}if isinstance(pool, types):")
            else:
                lines.append(f"{pad}kv = mr.token_to_kv_pool_allocator.get_kvcache()")
                lines.append(f"{pad}if isinstance(kv, types):")
                kv_read = True
            pool_read = pool_read or name == "active_pool"
            for i, value in enumerate(_POOL_VALUES):
                if i:
                    lines.append(f"{pad}else:")
                if value in node.children:
                    emit(node.children[value], depth + 1, kv_read, pool_read)
                else:
                    lines.append(f"{pad}    raise _unknown({name!r}, {value!r})")
            return
        if name == "is_draft_worker":
            lines.append(f"{pad}v = mr.is_draft_worker")
            test = lambda vals: " or ".join(f"v is {v!r}" for v in sorted(vals))  # noqa: E731
        else:
            lines.append(f"{pad}v = mr.spec_algorithm")
            lines.append(f"{pad}if isinstance(v, _Enum):")
            lines.append(f"{pad}    v = v._name_")
            lines.append(f"{pad}elif v.__class__ is not str:")  # e.g. sglang's plugin CustomSpecAlgo
            lines.append(f"{pad}    v = getattr(v, 'name', v)")
            test = lambda vals: f"v in {const(vals)}"  # noqa: E731
        for i, (vals, child) in enumerate(groups(node)):
            lines.append(f"{pad}{'el' if i else ''}if {test(vals)}:")
            emit(child, depth + 1, kv_read, pool_read)
        lines.append(f"{pad}else:")
        lines.append(f"{pad}    raise _unknown({name!r}, v)")

    emit(compiled.root, 1, False, False)
    return "\n".join(lines) + "\n", consts


def build_resolver(compiled: CompiledDecision, default_types: tuple[type, ...],
                   unknown: Callable[[str, Any], Exception]) -> Resolver:
    """Compile the generated source into a function `resolve(model_runner, types=default_types)`."""
    source, consts = generate_source(compiled)
    namespace: dict[str, Any] = {"_DEFAULT_TYPES": default_types, "_Enum": enum.Enum, "_unknown": unknown, **consts}
    code = compile(source, f"<swapool resolver for {compiled.table.file}>", "exec")
    exec(code, namespace)  # the source is generated above from the validated diagram, never from input text
    fn = namespace["resolve"]
    fn.__doc__ = f"SWA pool resolver generated from {compiled.table.file}:\n\n{source}"
    return fn
