"""The compiled diagram: a valid table deeper than the recursion limit is decided and drawn."""

from __future__ import annotations
import sys
from swapool.cli import main
from .. import hostile_families as families


def test_a_valid_table_deeper_than_the_recursion_limit_is_explained_and_drawn(write, capsys):
    """990 inputs read one after another: the diagram is built and drawn without recursion."""
    assert sys.getrecursionlimit() < 990 + 100
    path = str(write(families.chain(990)))
    facts = [f"--set=x{i}=false" for i in range(990)]
    assert main(["explain", path, *facts]) == 0
    assert "rule:     rest" in capsys.readouterr().out
    assert main(["show", "--format", "dot", path]) == 0
    assert capsys.readouterr().out.startswith("digraph")
