"""Hostile input: every file of tests/corpus/hostile gets its exit code, its finding code at
the right line, no traceback, and load_policy raises PolicyError (never a bare exception)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swapool import PolicyError, load_policy
from swapool.cli import main
from swapool.swa.policy import clear_cache
from swapool.table.files import MAX_BYTES
from swapool.table.check import check_bytes
from swapool.table.enums import EnumPolicy

from ..helpers import shipped_data

CORPUS = Path(__file__).parents[1] / "corpus" / "hostile"
EXPECTED = json.loads((CORPUS / "expected.json").read_text())


def test_corpus_is_large_and_fully_described():
    files = {p.name for p in CORPUS.glob("*.yaml")}
    assert len(files) >= 40
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_file(name, capsys):
    want = EXPECTED[name]
    path = CORPUS / name
    code = main(["validate", "--no-enum-import", "--format", "json", str(path)])
    diagnostics = json.loads(capsys.readouterr().out)["diagnostics"]
    assert code == want["exit"], diagnostics
    hits = [d for d in diagnostics if d["code"] == want["code"]]
    assert hits, diagnostics
    if "line" in want:
        assert hits[0]["line"] == want["line"], hits[0]
    assert all(d["file"] == str(path) for d in diagnostics)
    clear_cache()
    with pytest.raises(PolicyError):
        load_policy(path, import_enums=False)


def test_whole_corpus_in_one_process_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "swapool", "validate", *sorted(map(str, CORPUS.glob("*.yaml")))],
                          capture_output=True, text=True)
    assert proc.returncode == 2  # some files cannot be read at all
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout.count("error[") >= len(EXPECTED)


def test_directory_missing_and_oversized_paths_exit_2(tmp_path, capsys):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"# " + b"x" * MAX_BYTES + b"\n")
    for path in (tmp_path, tmp_path / "missing.yaml", big):
        assert main(["validate", str(path)]) == 2
        assert "error[io]" in capsys.readouterr().out
        with pytest.raises(PolicyError):
            load_policy(path)


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def never_raises(text: bytes | str) -> None:
    checked = check_bytes(text, "fuzz.yaml", enums=EnumPolicy(do_import=False))
    assert checked.ok or any(d.is_error for d in checked.diagnostics)


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes_never_crash(raw):
    never_raises(raw)


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=25)


@FUZZ
@given(yaml_values)
def test_random_yaml_documents_never_crash(doc):
    never_raises(yaml.safe_dump(doc))


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


SHIPPED_PATHS = [p for p in _paths(shipped_data()) if p]


@FUZZ
@given(st.sampled_from(SHIPPED_PATHS), yaml_values)
def test_shipped_table_with_one_node_replaced_never_crashes(path, value):
    data = shipped_data()
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    never_raises(yaml.safe_dump(data, sort_keys=False))
