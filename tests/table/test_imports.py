"""Inputs written `from: FILE`: values and sets from the table beside this one, and every way an import can fail."""

from __future__ import annotations
import textwrap
import pytest
from swapool import load_policy
from swapool.cli import main
from swapool.swa.policy import clear_cache
from swapool.table.check import check_path
from ..helpers import line_of, only


SETS = """\
format: 1
decision: demo
hit_policy: unique
inputs:
  a:
    sets:
      low: [x, y]
      high: [z]
  b: {type: bool}
output: {values: [p, q]}
"""



def sets_table(rules: str, extra: str = "") -> str:
    return SETS + "rules:\n" + textwrap.indent(textwrap.dedent(rules), "  ") + extra



IMPORTER = """\
format: 1
decision: demo
hit_policy: unique
inputs:
  place: {values: [one, two]}
  a: {from: base.yaml, wildcard: true}
output: {values: [p, q]}
rules:
  - {id: one, when: {place: one, a: {in: low}}, then: p}
  - {id: one-high, when: {place: one, a: {not: [x, y]}}, then: q}
  - {id: two, when: {place: two}, then: q}
"""



@pytest.fixture
def folder(tmp_path):
    (tmp_path / "base.yaml").write_text(sets_table("- {id: lo, when: {a: {in: low}}, then: p}\n"
                                                   "- {id: hi, when: {a: {in: high}}, then: q}\n"))
    (tmp_path / "importer.yaml").write_text(IMPORTER)
    return tmp_path



def test_an_imported_input_takes_values_and_sets_from_the_table_beside_it(folder):
    c = check_path(folder / "importer.yaml")
    assert c.ok, [str(d) for d in c.diagnostics]
    a = c.table.inputs[1]
    assert a.values == ("x", "y", "z") and a.set_masks == {"low": 0b011, "high": 0b100}
    assert a.wildcard and a.imported_from == "base.yaml"



def test_one_edit_of_the_imported_table_reaches_the_importer(folder):
    base = folder / "base.yaml"
    before = check_path(folder / "importer.yaml").digest
    base.write_text(base.read_text().replace("high: [z]", "high: [z, w]"))
    after = check_path(folder / "importer.yaml")
    assert after.ok and after.table.inputs[1].values == ("x", "y", "z", "w")
    assert after.digest != before  # a change to the import is a change to the table



def test_load_policy_reloads_when_only_the_imported_table_changed(tmp_path):
    """A cached policy is reused only while every table it imports is unchanged."""
    import re

    from ..helpers import SHIPPED

    shipped = SHIPPED.read_text()
    (tmp_path / "base.yaml").write_text(shipped)
    block = re.search(r"^  spec_algorithm:\n(    .*\n)+", shipped, re.M)
    (tmp_path / "importer.yaml").write_text(shipped.replace(block.group(0), "  spec_algorithm: {from: base.yaml}\n"))
    clear_cache()
    try:
        first = load_policy(tmp_path / "importer.yaml", import_enums=False)
        assert load_policy(tmp_path / "importer.yaml", import_enums=False) is first  # cached
        assert first.table.inputs[2].imported_from == "base.yaml" and "PARD" not in first.table.inputs[2].values
        base = tmp_path / "base.yaml"
        base.write_text(re.sub(r"^(\s+owns_its_kv: \[[^\]]*)\]", r"\1, PARD]", shipped, flags=re.M))
        again = load_policy(tmp_path / "importer.yaml", import_enums=False)
        assert again is not first and again.digest != first.digest
        assert again.decide(active_pool="other", is_draft_worker=True, spec_algorithm="PARD").output == "none"
    finally:
        clear_cache()



@pytest.mark.parametrize("edit, expected", [
    (lambda t: t.replace("from: base.yaml", "from: missing.yaml"), {"problem": "unreadable", "file": "missing.yaml"}),
    (lambda t: t.replace("from: base.yaml", "from: importer.yaml"), {"problem": "itself", "file": "importer.yaml"}),
    (lambda t: t.replace("a: {from: base.yaml", "aa: {from: base.yaml").replace("a: {in", "aa: {in")
     .replace("a: {not", "aa: {not"), {"problem": "no-input", "got": "aa", "expected": ["a", "b"]}),
])
def test_a_bad_import_is_one_error_at_the_from_key(folder, edit, expected):
    path = folder / "importer.yaml"
    path.write_text(edit(IMPORTER))
    c = check_path(path)
    d = only(c, "import")
    assert {k: getattr(d.facts, k) for k in expected} == expected and d.span.file == str(path)
    assert d.span.line == line_of(path.read_text(), "from:")



def test_an_import_is_not_imported_again(folder):
    (folder / "middle.yaml").write_text(IMPORTER)
    (folder / "importer.yaml").write_text(IMPORTER.replace("base.yaml", "middle.yaml"))
    d = only(check_path(folder / "importer.yaml"), "import")
    assert (d.facts.problem, d.facts.again) == ("imported-again", "base.yaml") and d.related



def test_an_invalid_imported_table_is_named(folder):
    (folder / "base.yaml").write_text(SETS.replace("format: 1", "format: 2") + "rules: []\n")
    d = only(check_path(folder / "importer.yaml"), "import")
    assert (d.facts.problem, d.facts.shown, d.facts.first) == ("invalid", str(folder / "base.yaml"), "schema")



def test_a_table_from_standard_input_imports_only_with_a_file_name(folder, monkeypatch, capsys):
    import io
    import sys

    for name, expected in ((None, 1), (str(folder / "importer.yaml"), 0)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(IMPORTER.encode())))
        argv = ["validate", "-"] + (["--stdin-filename", name] if name else [])
        assert main(argv) == expected
        out = capsys.readouterr().out
        assert ("no folder to find it in" in out) == (name is None)



def test_the_shipped_places_table_lists_no_algorithm(folder):
    """One edit: the places table takes the algorithms from policies/swa.yaml."""
    from ..helpers import SHIPPED, algorithms

    import yaml

    places = yaml.safe_load((SHIPPED.parent / "swa_backends.yaml").read_text())
    assert places["inputs"]["spec_algorithm"] == {"from": "swa.yaml", "wildcard": True}
    named = set()
    for row in places["rules"] + places.get("cases", []) + places.get("invariants", []):
        for condition in (row.get("when"), row.get("given"), row.get("if"), row.get("then")):
            cell = condition.get("spec_algorithm") if isinstance(condition, dict) else None
            if cell is not None:
                named |= set(cell.get("not", []) if isinstance(cell, dict) else [cell] if isinstance(cell, str) else cell)
    assert named == {"FROZEN_KV_MTP"} and set(algorithms()) > named  # sglang's code asks is_frozen_kv_mtp()



@pytest.mark.parametrize("target", ["../base.yaml", "/etc/base.yaml", "sub/base.yaml", "base.json", "base.yaml\n"])
def test_an_import_names_a_table_file_beside_this_one_and_nothing_else(folder, target):
    path = folder / "importer.yaml"
    path.write_text(IMPORTER.replace("from: base.yaml", f"from: {target!r}".replace("'", '"').replace("\\n", "\\n")))
    c = check_path(path)
    assert [(d.code, d.keyword) for d in c.diagnostics] == [("schema", "pattern")]



def test_an_import_through_a_link_out_of_the_folder_is_refused_and_never_quoted(folder, tmp_path_factory):
    """git commits symlinks: `from: base.yaml` may be a link to any file on the machine."""
    secret = tmp_path_factory.mktemp("elsewhere") / "secret.yaml"
    secret.write_text("TOKEN-8f2e: [not a table\n")
    (folder / "base.yaml").unlink()
    (folder / "base.yaml").symlink_to(secret)
    c = check_path(folder / "importer.yaml")
    d = only(c, "import")
    assert d.facts.problem == "outside"
    assert not any("TOKEN-8f2e" in str(x) for x in c.diagnostics)



def test_an_imported_file_that_is_not_a_table_is_named_by_code_and_place_not_quoted(folder):
    (folder / "base.yaml").write_text("TOKEN-8f2e: [not a table\n")
    c = check_path(folder / "importer.yaml")
    d = only(c, "import")
    assert (d.facts.count, d.facts.first, d.facts.first_line) == (1, "yaml-syntax", 2)
    assert "TOKEN-8f2e" not in str(d)



def test_a_file_reached_by_several_names_is_read_once(folder, monkeypatch):
    from swapool.table import imports

    (folder / "alias.yaml").symlink_to(folder / "base.yaml")
    (folder / "importer.yaml").write_text(IMPORTER.replace("  a: {from: base.yaml, wildcard: true}\n",
                                                           "  a: {from: base.yaml, wildcard: true}\n"
                                                           "  b: {from: alias.yaml}\n"))
    reads = []
    real_read = imports.read_bytes
    monkeypatch.setattr(imports, "read_bytes", lambda path, shown=None: reads.append(path) or real_read(path, shown))
    check_path(folder / "importer.yaml")
    assert len(reads) == 1, reads
