"""Pictures for review: Mermaid and DOT of the decision diagram, a Markdown diff.

No Mermaid renderer installs offline here (mermaid-cli needs a downloaded browser), so the
Mermaid output is checked against the grammar of the subset it uses; DOT is parsed by
pydot, a real DOT parser."""

from __future__ import annotations

import re

import pydot
import pytest

from swapool.cli import main
from swapool.table.diagram import Ask, Diagram
from swapool.table.partition import Budget

from ..helpers import SHIPPED, algorithm_sets, check, dump, shipped_data

# pydot 4 calls pyparsing names that pyparsing 3.3 deprecates
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

NODE = re.compile(r'^    (n\d+)(?:\{"([^"\n]*)"\}|\["([^"\n]*)"\])$')
EDGE = re.compile(r'^    (n\d+) -->\|"([^"\n]*)"\| (n\d+)$')


def parse_mermaid(text: str) -> tuple[dict, list]:
    lines = text.splitlines()
    assert lines[0] == "flowchart TD"
    nodes, edges = {}, []
    for line in lines[1:]:
        node, edge = NODE.match(line), EDGE.match(line)
        assert node or edge, f"not in the flowchart grammar: {line!r}"
        if node:
            nodes[node.group(1)] = ("ask", node.group(2)) if node.group(2) is not None else ("leaf", node.group(3))
        else:
            edges.append(edge.groups())
    assert {e[0] for e in edges} | {e[2] for e in edges} <= set(nodes)
    return nodes, edges


def test_mermaid_draws_each_input_read_and_each_leaf_with_its_rule(capsys):
    assert main(["show", "--format", "mermaid", str(SHIPPED)]) == 0
    nodes, edges = parse_mermaid(capsys.readouterr().out)
    table = check(SHIPPED.read_text()).table
    diagram = Diagram(table, Budget())
    asks = [v for v in nodes.values() if v[0] == "ask"]
    assert {label for _, label in asks} <= set(table.input_names) and len(asks) >= 4
    leaves = {label for kind, label in nodes.values() if kind == "leaf"}
    assert {f"{r.then}<br/>{r.id}" for r in table.rules} == leaves
    assert ("n0", "swa", "n1") in edges and nodes["n0"] == ("ask", "active_pool")
    assert len(nodes) == count_nodes(diagram)


def count_nodes(diagram: Diagram) -> int:
    seen, stack = set(), [diagram.root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            if isinstance(node, Ask):
                stack.extend(node.children.values())
    return len(seen)


def test_dot_parses_with_a_real_parser_and_matches_the_mermaid(capsys):
    main(["show", "--format", "mermaid", str(SHIPPED)])
    nodes, edges = parse_mermaid(capsys.readouterr().out)
    assert main(["show", "--format", "dot", str(SHIPPED)]) == 0
    (graph,) = pydot.graph_from_dot_data(capsys.readouterr().out)
    assert {n.get_name() for n in graph.get_nodes() if re.fullmatch(r"n\d+", n.get_name())} == set(nodes)
    assert len(graph.get_edges()) == len(edges)


def test_hostile_labels_cannot_break_out_of_the_pictures(write, capsys):
    text = ('format: 1\ndecision: demo\nhit_policy: unique\ninputs:\n'
            '  a: {values: ["x\\"] --> evil[\\"", "y|\\e[2J"]}\noutput: {values: [p, q]}\nrules:\n'
            '  - {id: rx, when: {a: "x\\"] --> evil[\\""}, then: p}\n  - {id: ry, when: {a: "y|\\e[2J"}, then: q}\n')
    path = str(write(text))
    assert main(["show", "--format", "mermaid", path]) == 0
    out = capsys.readouterr().out
    nodes, edges = parse_mermaid(out)  # the grammar check: a quote cannot end a label early
    assert "\x1b" not in out and len(edges) == 2 and '#quot;] --#gt; evil[#quot;' in out
    assert main(["show", "--format", "dot", path]) == 0
    (graph,) = pydot.graph_from_dot_data(capsys.readouterr().out)
    assert len(graph.get_edges()) == 2


def test_markdown_diff_is_a_table_of_changed_regions_with_rule_ids(write, capsys):
    data = shipped_data()
    sets = algorithm_sets(data)  # one algorithm becomes a frozen-KV reader: one value moves between lists
    moved = sets["owns_its_kv"].pop()
    sets["reads_target_kv"].append(moved)
    new = str(write(dump(data), "new.yaml"))
    assert main(["diff", "--format", "markdown", str(SHIPPED), new]) == 1
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert rows[0] == "| region | old | new |"
    assert rows[1:] == [f"| `active_pool=other, is_draft_worker=true, spec_algorithm={moved}, allocator_kvcache=swa` "
                        "| `none (draft-owns-its-kv)` | `allocator (frozen-kv-draft-reads-target-swa)` |"]
    assert main(["diff", "--format", "markdown", str(SHIPPED), str(SHIPPED)]) == 0
    assert "Equivalent" in capsys.readouterr().out


def test_markdown_diff_passes_no_html_or_markup_from_a_table_into_the_comment(write, capsys):
    """A value is the table author's text: in a pull-request comment it must stay text, so
    every cell is one code span (GitHub renders no HTML, emphasis, link, autolink or mention
    inside one) and its pipes are escaped (the row holds)."""
    forged = "<!--x--><b>VALID</b>[ok](http://e)|`_x_ @org/team https://x.io ``"
    data = shipped_data()
    algorithm_sets(data)["owns_its_kv"].append(forged)
    new = str(write(dump(data), "new.yaml"))
    main(["diff", "--format", "markdown", "--no-enum-import", str(SHIPPED), new])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| `")]
    assert rows and any("@org/team" in row for row in rows)
    for row in rows:
        cells = re.split(r"(?<!\\)\|", row)[1:-1]
        assert len(cells) == 3, row
        for cell in cells:
            m = re.fullmatch(r" (`+) ?(.*?) ?\1 ", cell)
            assert m and not re.search(rf"(?<!`){m.group(1)}(?!`)", m.group(2)), cell  # one span, never closed early
