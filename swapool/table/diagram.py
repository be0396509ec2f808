"""Stage 6, diagram: a table compiled once into the decision diagram a call walks.

One dict lookup per input read; inputs are read in table order and only while the
answer still depends on them.
"""

from __future__ import annotations


from .record import Record
from .model import Table
from .partition import Branch, Budget, Leaf, Node, postorder, split
from .refine import bits

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


class Decision(Record):
    """What the table decided and which rule decided it."""

    output: str
    rule_id: str

    def __str__(self) -> str:
        return f"{self.output} by rule '{self.rule_id}'"


class Ask:
    """Read input `index` (named `name`), then follow `children[value]`."""

    __slots__ = ("index", "name", "children")

    def __init__(self, index: int, name: str, children: dict[Any, "Ask | Decision | None"]):
        self.index = index
        self.name = name
        self.children = children


class Diagram:
    """The first-hit decision diagram of a table (over its rules in `Table.ranked` order, so
    `priority` is first-hit too). A gap (only in invalid tables) answers None."""

    def __init__(self, table: Table, budget: Budget, root: Node | None = None):
        """`root`: the table's first-hit DAG when the analysis built it already."""
        self.table = table
        root = root or split(table.ranked_cubes, table.full_region, budget)
        self.root = self._convert(root)

    def _convert(self, root: Node) -> "Ask | Decision | None":
        """The DAG as Ask/Decision nodes, children first, without recursion (a valid table
        may be deeper than Python's recursion limit)."""
        made: dict[int, Ask | Decision | None] = {}
        for node in postorder(root):
            out: Ask | Decision | None = None
            if isinstance(node, Leaf):
                if node.matched:
                    rule = self.table.rules[self.table.ranked[node.matched[0]]]
                    out = Decision(rule.then, rule.id)
            else:
                assert isinstance(node, Branch)
                inp = self.table.inputs[node.level]
                children = {}
                for mask, child in node.arms:
                    for i in bits(mask):
                        children[inp.values[i]] = made[id(child)]
                out = Ask(node.level, inp.name, children)
            made[id(node)] = out
        return made[id(root)]

    def walk(self, read: Callable[[Ask], Any]) -> Decision | None:
        """Decide, calling `read(ask)` for each input the answer needs, in table order.
        `read` returns one of the input's values (the diagram has a child for each)."""
        node: Any = self.root
        while node.__class__ is Ask:
            node = node.children[read(node)]
        return node
