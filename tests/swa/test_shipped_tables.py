"""The shipped table catches the regressions of sglang's history."""

from swapool.table.check import check_bytes
from swapool.table.enums import EnumPolicy
from ..helpers import algorithm_sets, dump, reverted_eagle_fix, shipped_data, without_frozen_fallback


def test_reverted_eagle_fix_breaks_the_shipped_invariant():
    c = check_bytes(dump(reverted_eagle_fix(shipped_data())), "reverted.yaml", enums=EnumPolicy(do_import=False))
    breach = [d for d in c.diagnostics if d.code == "invariant"]
    assert any(d.rules == ("allocator-if-swa", "eagle-style-drafts-never-touch-the-allocator") for d in breach)
    assert "case-failed" in {d.code for d in c.diagnostics}



def test_removed_frozen_fallback_fails_the_regression_case():
    c = check_bytes(dump(without_frozen_fallback(shipped_data())), "nofrozen.yaml", enums=EnumPolicy(do_import=False))
    failed = [d for d in c.diagnostics if d.code == "case-failed"]
    assert any(d.witness["spec_algorithm"] in algorithm_sets()["reads_target_kv"] for d in failed)
