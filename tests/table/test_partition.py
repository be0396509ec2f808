"""The partition and the analysis over it stay bounded: hostile families end in
polynomial work or in the budget finding, never a runaway."""

from __future__ import annotations
import pytest
from swapool import PolicyError, load_policy
from swapool.swa.policy import clear_cache
from swapool.table.analysis import analyse
from swapool.table.check import check_bytes
from swapool.table.enums import EnumPolicy
from swapool.table.partition import Budget
from .. import hostile_families as families


NO_IMPORT = EnumPolicy(do_import=False)



def check(text: str):
    return check_bytes(text, "t.yaml", enums=NO_IMPORT)



def used(text: str) -> int:
    budget = Budget()
    table = check(text).table
    assert table is not None
    analyse(table, budget)
    return budget.used



def test_the_chain_family_is_valid_and_polynomial():
    """n bool inputs, rule i = {x_i: true}, then a catch-all: 2^n live-rule sets, but
    doubling n costs about 4x, not 2^n x."""
    assert check(families.chain(20)).ok
    small, large = used(families.chain(20)), used(families.chain(40))
    assert large < 6 * small, (small, large)



def test_a_deep_chain_needs_no_recursion():
    """600 levels of decisions: a recursive split would hit Python's recursion limit."""
    c = check(families.chain(600))
    assert c.ok, [str(d) for d in c.diagnostics[:3]]



def test_rules_without_structure_end_in_the_budget_error_not_a_runaway():
    c = check(families.random_cubes(12, 8, 300))
    d = next(d for d in c.diagnostics if d.code == "analysis-budget")
    assert d.is_error and d.span.line == families.random_cubes(12, 8, 300).splitlines().index("rules:") + 1
    assert (d.facts.problem, d.facts.limit) == ("steps", 2_000_000)



def test_identical_rules_report_capped_partner_lists():
    c = check(families.identical_rules(2000))
    overlaps = [d for d in c.diagnostics if d.code == "overlap"]
    assert len(overlaps) == 1999
    assert overlaps[-1].message.startswith("rule 'r1999' overlaps 'r0', 'r1', 'r2' and 1,996 more")
    assert sum(len(str(d)) for d in c.diagnostics) < 600_000  # 16.7 MB before



def test_a_budget_error_is_a_load_error_too(write):
    clear_cache()
    with pytest.raises(PolicyError, match="analysis-budget"):
        load_policy(write(families.random_cubes(12, 8, 300)), import_enums=False)



def test_rules_with_equal_remaining_cells_do_not_multiply_the_dag():
    """rule i = {x_i: true, y: a}, then a catch-all: 2^n sets of alive rules, but rules
    whose cells below are equal decide alike, so the DAG stays polynomial."""
    assert used(families.guarded_chain(24)) < 200_000



def test_many_rules_that_are_all_redundant_together_cost_one_check_not_one_each():
    """600 rules, each redundant, all removable at once: named in one joint check. Taken one
    at a time with the needed rules worked out again after each, they ran out of budget."""
    c = check(families.chain(600).replace("- {id: rest, then: q}", "- {id: rest, then: p}"))
    assert [d.code for d in c.diagnostics].count("redundant-rule") == 600
    assert "analysis-budget" not in [d.code for d in c.diagnostics]
