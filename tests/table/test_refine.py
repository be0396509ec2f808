"""One input's values grouped by the rules that hold them: exactly the values' signatures
on every path (narrow, masks, by value), and wide inputs in work that grows with what the
rules name, paid from the budget."""

from __future__ import annotations
import random
import pytest
from swapool.table.partition import Budget
from swapool.table.refine import refine



def _cells(seed: int, values: int, rules: int) -> tuple[int, list[tuple[int]]]:
    """Cells of one input of `values` values: single values, all but one, random halves, a
    few values, the whole domain and empty (seeded: the same cases every run)."""
    rng = random.Random(seed)
    full = (1 << values) - 1
    kinds = [lambda: 1 << rng.randrange(values), lambda: full & ~(1 << rng.randrange(values)),
             lambda: rng.getrandbits(values), lambda: full, lambda: 0,
             lambda: sum(1 << rng.randrange(values) for _ in range(rng.randint(1, 8)))]
    return full, [(rng.choice(kinds)(),) for _ in range(rules)]


@pytest.mark.parametrize("seed", range(48))
def test_values_are_grouped_by_the_rules_that_hold_them(seed):
    """Narrow inputs bucketed, wide ones refined as masks and, past 64 groups, by each value's
    group (a rule splits only the groups its cell touches): always the values' signatures."""
    values = 5 + seed if seed < 8 else 65 + seed * 7
    full, cubes = _cells(seed, values, 40 + seed * 5)
    reg = full if seed % 2 else full & ~(1 << 3)
    alive = list(range(0, len(cubes), 1 + seed % 3))
    expected: dict[tuple[int, ...], int] = {}
    for v in range(values):
        if reg >> v & 1:
            key = tuple(r for r in alive if cubes[r][0] >> v & 1)
            expected[key] = expected.get(key, 0) | 1 << v
    assert refine(cubes, alive, 0, reg, Budget().spend) == expected


def test_a_rule_per_value_of_a_wide_input_reads_its_value_paid_from_the_budget():
    """8,000 rules, each naming one of 8,000 values (a 400 KB table): past the first groups
    each rule reads its one value, a budget step (not a mask operation on each of up to 8,000
    groups, unpaid: cubic work that no budget stopped)."""
    values = 8000
    cubes = [(1 << v,) for v in range(values)]
    budget = Budget()
    groups = refine(cubes, list(range(values)), 0, (1 << values) - 1, budget.spend)
    assert len(groups) == values
    assert values // 2 <= budget.used <= values, budget.used


def test_a_rule_that_holds_most_values_reads_those_it_leaves_out():
    """100 rules of one value, then 100 of all values but one, over 1,000 values: each reads
    one value (reading the inside of `all but one` would cost 999 each)."""
    values = 1000
    full = (1 << values) - 1
    cubes = [(1 << v,) for v in range(100)] + [(full & ~(1 << v),) for v in range(100)]
    budget = Budget()
    groups = refine(cubes, list(range(200)), 0, full, budget.spend)
    assert 100 <= budget.used <= 200, budget.used
    assert groups[tuple(range(100, 200))] == full & ~((1 << 100) - 1)
    assert groups[(3, *(r for r in range(100, 200) if r != 103))] == 1 << 3
