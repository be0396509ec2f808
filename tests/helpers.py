"""Shared helpers: tiny tables, the shipped table, pool classes for mocks."""

from __future__ import annotations

import shutil
import textwrap

import yaml

from swapool.table.shipped import shipped
from swapool.table.check import Checked, check_bytes
from swapool.table.enums import EnumPolicy

SHIPPED = shipped("policies/swa.yaml")

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


def check(text: str, folder=None) -> Checked:
    """Check a table's text; `folder` is where the tables it imports are."""
    return check_bytes(text, "t.yaml", enums=EnumPolicy(do_import=False), folder=folder)


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


def reverted_eagle_fix(data: dict) -> dict:
    """The shipped table as the PR that reverted the fix left it: every worker whose own
    pool is not SWA reads through the allocator, EAGLE-style drafts included."""
    data = dict(data)
    data["rules"] = [
        data["rules"][0],
        {"id": "allocator-if-swa", "when": {"active_pool": "other", "allocator_kvcache": "swa"},
         "then": "allocator", "why": "reverted: drafts are not told apart"},
        {"id": "no-swa", "when": {"active_pool": "other", "allocator_kvcache": "other"}, "then": "none"},
    ]
    return data


def without_frozen_fallback(data: dict) -> dict:
    """The shipped table with the FROZEN_KV_MTP allocator fallback removed: every draft
    decides none (the Gemma-4 MTP crash: full-pool indices into the small SWA cache)."""
    data = dict(data)
    rules = [dict(r) for r in data["rules"] if not r["id"].startswith("frozen-kv-draft")]
    for r in rules:
        if r["id"] == "draft-owns-its-kv":
            r["when"] = {"active_pool": "other", "is_draft_worker": True}
    data["rules"] = rules
    return data


#: A value no table will ever hold (not an identifier, so never an enum member's name).
NO_SUCH_VALUE = "<no such algorithm>"


def algorithm_sets(data: dict | None = None) -> dict[str, list[str]]:
    """The shipped table's named lists of speculative algorithms (read, never restated)."""
    return (data or shipped_data())["inputs"]["spec_algorithm"]["sets"]


def algorithms() -> list[str]:
    """Every speculative algorithm the shipped table knows, in its order."""
    return list(dict.fromkeys(a for names in algorithm_sets().values() for a in names))


def written_in_places_rules(folder=None) -> set[str]:
    """The algorithms the places table's rules name (sglang's code asks is_frozen_kv_mtp()),
    read from the table, never restated."""
    from swapool.table.cells import read_cell

    data = yaml.safe_load(((folder or SHIPPED.parent) / "swa_backends.yaml").read_text())
    named: set[str] = set()
    for rule in data["rules"]:
        cell = rule.get("when", {}).get("spec_algorithm", "-")
        if not (isinstance(cell, dict) and "in" in cell):  # a set of swa.yaml's names nothing new
            named.update(read_cell(cell)[1])
    return named


def diverging_algorithms(diff_output: str) -> set[str]:
    """The spec_algorithm values in the regions a `swapool diff` reports as decided differently."""
    import re

    found: set[str] = set()
    for line in diff_output.splitlines():
        m = re.search(r"spec_algorithm(?:=(\w+)| in \[([^\]]*)\])", line)
        if m and "->" in line:
            found.update([m.group(1)] if m.group(1) else m.group(2).split(", "))
    return found


def with_names(text: str, names: dict[str, list[str]]) -> str:
    """swa.yaml's text after the one edit: each name appended to the list it is keyed by,
    unless that list holds it already (as in a clone where that edit was made)."""
    import re

    for list_name, added in names.items():
        for name in added:
            if name not in algorithm_sets(yaml.safe_load(text))[list_name]:
                text, n = re.subn(rf"^(\s+{list_name}: \[[^\]]*)\]", rf"\1, {name}]", text, flags=re.M)
                assert n == 1, list_name
    return text


def without_names(text: str, names: list[str]) -> str:
    """swa.yaml's text with the names taken out of its lists: the table before they were added."""
    import re

    for name in names:
        text = re.sub(rf",\s*{name}(?=\s*[,\]])", "", text)
    assert not set(names) & {a for listed in algorithm_sets(yaml.safe_load(text)).values() for a in listed}
    return text


def add_algorithms(folder, *, owner: str | None = None, reader: str | None = None):
    """A copy of policies/ in `folder` after the one edit the README describes (see
    `with_names`). Returns the folder."""
    for table in SHIPPED.parent.glob("*.yaml"):
        shutil.copy(table, folder / table.name)
    path = folder / SHIPPED.name
    path.write_text(with_names(path.read_text(), {"owns_its_kv": [owner] if owner else [],
                                                  "reads_target_kv": [reader] if reader else []}))
    return folder


def dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def drifted_places(tmp_path, place: str = "triton") -> str:
    """The places table, but misdescribing one place: what the table would say had sglang's
    code there changed. triton: reads the allocator like flashinfer; torch_native: ignores
    swa_layer_nums like triton; kv_index_translator: writes through the runner's pool even
    where a unified allocator owns it; kv_index_translator/request_window: ignores a
    request window; kv_index_translator/own_pool: opens no SWA space for its own SWA pool (what
    a real start with a SWA model meets first); aiter: keeps a target's allocator pool without
    SWA layers."""
    original = (SHIPPED.parent / "swa_backends.yaml").read_text()
    text = original

    def edit(was: str, now: str) -> None:
        nonlocal text
        assert was in text, was  # the table changed under the test: the drift would not apply
        text = text.replace(was, now)

    if place == "triton":
        edit("{backend: [triton, flash_attention, torch_native, intel_amx, xpu], active_pool: other}",
             "{backend: [flash_attention, torch_native, intel_amx, xpu], active_pool: other}")
        edit("backend: [trtllm_mha, flashinfer, aiter]\n", "backend: [trtllm_mha, flashinfer, aiter, triton]\n")
        for listed in ("[trtllm_mha, flashinfer, aiter]", "[trtllm_mha, flashinfer]"):
            edit(f"{{backend: {listed}, active_pool", f"{{backend: {listed[:-1]}, triton], active_pool")
    elif place == "torch_native":
        edit("backend: [trtllm_mha, flashinfer, triton], active_pool: swa}",
             "backend: [trtllm_mha, flashinfer, triton, torch_native], active_pool: swa}")
        edit("{backend: [aiter, flash_attention, torch_native, intel_amx, xpu], active_pool: swa",
             "{backend: [aiter, flash_attention, intel_amx, xpu], active_pool: swa")
    else:
        rule, answer = {"kv_index_translator": ("translator-through-the-unified-allocator", "active"),
                        "kv_index_translator/request_window": ("translator-request-window", "active"),
                        "kv_index_translator/own_pool": ("translator-writes-through-its-pool", "none"),
                        "aiter": ("aiter-target-allocator-without-swa-layers", "allocator")}[place]
        head, tail = text.split(f"  - id: {rule}\n")
        when, rest = tail.split("    then: ", 1)
        text = head + f"  - id: {rule}\n" + when + f"    then: {answer}" + rest[rest.index("\n"):]
    backend = place.split("/")[0]  # its cases describe the code, so they go with the drift
    text = "\n".join(line for line in text.splitlines() if f"{{given: {{backend: {backend}," not in line) + "\n"
    assert text != original
    path = tmp_path / "places.yaml"
    path.write_text(text)
    shutil.copy(SHIPPED, tmp_path / SHIPPED.name)  # the table it imports the algorithms from
    return str(path)


def decide_facts(diagram, facts):
    """What `diagram` decides for spelled facts, or None for a gap."""
    return diagram.walk(lambda ask: facts[ask.name])


def decide_point(diagram, point):
    """What `diagram` decides at a point given as value indices (witness replay)."""
    inputs = diagram.table.inputs
    return diagram.walk(lambda ask: inputs[ask.index].values[point[ask.index]])
