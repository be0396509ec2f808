"""Shared helpers: tiny tables, the shipped table, pool classes for mocks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml

from swapool.resources import default_policy_path
from swapool.validate import Checked, check_text

SHIPPED = default_policy_path()

MINI_HEAD = """\
format: 1
decision: demo
hit_policy: {hit_policy}
inputs:
  a: {{values: [x, y, z]}}
  b: {{type: bool}}
output: {{values: [p, q]}}
"""


def mini(rules: str, hit_policy: str = "unique", extra: str = "") -> str:
    """A two-input table (a in x/y/z, b bool) with the given rules block (YAML list items)."""
    return MINI_HEAD.format(hit_policy=hit_policy) + "rules:\n" + textwrap.indent(textwrap.dedent(rules), "  ") + extra


def check(text: str) -> Checked:
    return check_text(text, "t.yaml", import_enums=False)


def codes(checked: Checked) -> list[str]:
    return [d.code for d in checked.diagnostics]


def only(checked: Checked, code: str):
    found = [d for d in checked.diagnostics if d.code == code]
    assert len(found) == 1, [str(d) for d in checked.diagnostics]
    return found[0]


def shipped_data() -> dict:
    return yaml.safe_load(SHIPPED.read_text())


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in text")


# Pool classes shaped like sglang's: only the SWA pool has the translation method.
class SWAKVPool:
    def translate_loc_from_full_to_swa(self, loc):
        raise NotImplementedError


class MHATokenToKVPool:
    pass
