"""Pictures for review: the decision diagram as Mermaid or Graphviz DOT, a diff as Markdown."""

from __future__ import annotations

import re
from typing import Any, Iterator

from ..table.diagnostics import format_value, visible
from ..table.diagram import Ask, Decision, Diagram
from ..table.diff import Diff


def _nodes(diagram: Diagram) -> Iterator[tuple[str, Any, list[tuple[str, str]]]]:
    """(node id, node, [(edge label, child id)]) for every node once, root first. Values
    that lead to the same child share one edge."""
    ids: dict[int, str] = {}

    def name(node: Any) -> str:
        if id(node) not in ids:
            ids[id(node)] = f"n{len(ids)}"
        return ids[id(node)]

    seen: set[int] = set()
    stack = [diagram.root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        node_id = name(node)
        edges: list[tuple[str, str]] = []
        if isinstance(node, Ask):
            grouped: dict[int, list[Any]] = {}
            children: dict[int, Any] = {}
            for value, child in node.children.items():
                grouped.setdefault(id(child), []).append(value)
                children[id(child)] = child
            for key, values in grouped.items():
                edges.append((", ".join(format_value(v) for v in values), name(children[key])))
            stack.extend(reversed(list(children.values())))
        yield node_id, node, edges


def _leaf_text(node: Decision | None) -> tuple[str, str]:
    return ("(gap)", "no rule") if node is None else (node.output, node.rule_id)


def _mermaid_text(text: str) -> str:
    return visible(text).replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def mermaid(diagram: Diagram) -> str:
    """A Mermaid flowchart (GitHub renders it in pull requests): a rhombus per input read,
    a box per leaf with the output and the deciding rule's id."""
    lines = ["flowchart TD"]
    for node_id, node, edges in _nodes(diagram):
        if isinstance(node, Ask):
            lines.append(f'    {node_id}{{"{_mermaid_text(node.name)}"}}')
        else:
            output, rule = _leaf_text(node)
            lines.append(f'    {node_id}["{_mermaid_text(output)}<br/>{_mermaid_text(rule)}"]')
        for label, child in edges:
            lines.append(f'    {node_id} -->|"{_mermaid_text(label)}"| {child}')
    return "\n".join(lines)


def _dot_text(text: str) -> str:
    return visible(text).replace("\\", "\\\\").replace('"', '\\"')


def dot(diagram: Diagram) -> str:
    """A Graphviz digraph of the same diagram."""
    lines = ["digraph decision {", "    node [fontname=Helvetica];"]
    for node_id, node, edges in _nodes(diagram):
        if isinstance(node, Ask):
            lines.append(f'    {node_id} [shape=diamond, label="{_dot_text(node.name)}"];')
        else:
            output, rule = _leaf_text(node)
            lines.append(f'    {node_id} [shape=box, label="{_dot_text(output)}\\n{_dot_text(rule)}"];')
        for label, child in edges:
            lines.append(f'    {node_id} -> {child} [label="{_dot_text(label)}"];')
    lines.append("}")
    return "\n".join(lines)


def _cell(text: str) -> str:
    """Text from a table as a Markdown code span: inside one GitHub renders no HTML (a value
    like `<details>` or `<!--` could hide or forge the verdict in a pull-request comment), no
    emphasis, links, autolinks or @-mentions (a value would ping a team when a bot posts the
    comment); a pipe is escaped so the table row holds."""
    shown = visible(text).replace("|", "\\|")
    fence = "`" * (max(map(len, re.findall(r"`+", shown)), default=0) + 1)
    pad = " " if shown[:1] == "`" or shown[-1:] == "`" or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def markdown_diff(result: Diff, old: str, new: str) -> str:
    """A pull-request comment: one table row per region decided differently."""
    head = f"### swapool diff: {_cell(old)} -> {_cell(new)}\n\n"
    if not result.changes:
        return head + "Equivalent: every input is decided the same way."
    rows = ["| region | old | new |", "|---|---|---|"]
    for change in result.changes:
        rows.append(f"| {_cell(result.describe(change))} | {_cell(str(change.old))} | {_cell(str(change.new))} |")
    return head + f"{len(result.changes)} region(s) decided differently:\n\n" + "\n".join(rows)
