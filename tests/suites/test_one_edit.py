"""Adding a speculative algorithm is one edit of policies/swa.yaml (README, "Adding a
speculative algorithm"): a KV-owning draft appended to owns_its_kv, a frozen-KV reader to
reads_target_kv, and nothing else: every table, check and test follows."""

from __future__ import annotations

import pytest

from swapool.cli import main
from swapool.table.check import check_path

import yaml

from ..helpers import add_algorithms, algorithm_sets, diverging_algorithms, written_in_places_rules

FACTS = ["--set", "active_pool=other", "--set", "is_draft_worker=true", "--set", "allocator_kvcache=swa"]


@pytest.fixture
def edited(tmp_path):
    return add_algorithms(tmp_path, owner="PARD", reader="SUFFIX_MTP")


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_the_edited_table_validates_strictly_and_decides_both(edited, capsys):
    code, out = run(capsys, "validate", "--strict", "--no-enum-import", str(edited / "swa.yaml"))
    assert code == 0, out  # strict: no uncased-value either, the cases name the lists
    code, out = run(capsys, "explain", str(edited / "swa.yaml"), *FACTS, "--set", "spec_algorithm=PARD")
    assert code == 0 and out.startswith("decision: none\nrule:     draft-owns-its-kv")
    code, out = run(capsys, "explain", str(edited / "swa.yaml"), *FACTS, "--set", "spec_algorithm=SUFFIX_MTP")
    assert code == 0 and out.startswith("decision: allocator\nrule:     frozen-kv-draft-reads-target-swa")


def test_the_places_table_follows_without_an_edit(edited, capsys):
    places = check_path(edited / "swa_backends.yaml")
    assert places.ok and "uncased-value" not in {d.code for d in places.diagnostics}
    algorithms = places.table.inputs[places.table.input_names.index("spec_algorithm")].values
    assert {"PARD", "SUFFIX_MTP"} <= set(algorithms)
    # sglang's own code asks is_frozen_kv_mtp(): the divergence report shows the new reader
    code, out = run(capsys, "diff", str(edited / "swa.yaml"), str(edited / "swa_backends.yaml"),
                    "--new-set", "backend=flashinfer")
    missed = set(algorithm_sets(yaml.safe_load((edited / "swa.yaml").read_text()))["reads_target_kv"]) \
        - written_in_places_rules(edited)
    assert "SUFFIX_MTP" in missed and diverging_algorithms(out) == missed and code == 1, out
    assert all("allocator (frozen-kv-draft-reads-target-swa) -> none (draft-owns-its-kv)" in line
               for line in out.splitlines() if "->" in line and "spec_algorithm" in line), out


def test_mutation_testing_still_kills_every_mutant(edited, capsys):
    code, out = run(capsys, "mutate", "--no-enum-import", str(edited / "swa.yaml"))
    assert code == 0 and out.strip().endswith("kill rate 100.0%"), out
