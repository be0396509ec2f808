"""How the table analysis scales: decision-tree tables of 10 to 10,000 rules over 4 to 12
inputs (domains up to 8), complete and with injected defects, timed against brute-force
enumeration in the same run where that finishes.

    python benchmarks/analysis_scaling.py [--quick] [--oracle-limit 300000]

Targets: 1,000 rules x 10 inputs fully analysed in <= 100 ms (median); 10,000 x 12
complete/incomplete verdict with a witness in <= 2 s; findings <= injected defects.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import time

from _report import print_table, write_json

from swapool.table.analysis import Analysis, analyse, measure_coverage
from swapool.table.partition import Budget
from swapool.table.diagnostics import Span
from swapool.table.model import Cell, CellForm, HitPolicy, Input, Output, Rule, Table

SPAN = Span("generated.yaml", 1, 1)
OUTPUTS = ("a", "b", "c")
COVERAGE_CODES = {"gap", "overlap", "unreachable-rule"}


def decision_tree(n_inputs: int, target_rules: int, seed: int) -> tuple[list[Input], list[tuple[int, ...]]]:
    """Cubes of a random decision tree: complete and disjoint by construction.

    Leaves are split (on the next input, into 2..domain value groups) until there are
    about `target_rules`; an input a path does not split on stays '-'.
    """
    rng = random.Random(seed)
    sizes = [rng.randint(2, 8) for _ in range(n_inputs)]
    inputs = [Input(f"i{k}", tuple(f"v{j}" for j in range(s)), False, SPAN, wildcard=True)
              for k, s in enumerate(sizes)]
    full = tuple((1 << s) - 1 for s in sizes)
    leaves: list[tuple[tuple[int, ...], int]] = [(full, 0)]  # (cube, next input to split on)
    while len(leaves) < target_rules:
        splittable = [i for i, (_, lvl) in enumerate(leaves) if lvl < n_inputs]
        if not splittable:
            break
        i = rng.choice(splittable)
        cube, level = leaves.pop(i)
        if rng.random() < 0.25:  # this path ignores this input
            leaves.append((cube, level + 1))
            continue
        values = list(range(sizes[level]))
        rng.shuffle(values)
        k = rng.randint(2, min(len(values), 2 + max(0, target_rules - len(leaves) - 1)))
        cuts = sorted(rng.sample(range(1, len(values)), k - 1))
        for group in (values[a:b] for a, b in zip([0] + cuts, cuts + [len(values)])):
            mask = sum(1 << v for v in group)
            leaves.append((cube[:level] + (mask,) + cube[level + 1:], level + 1))
    return inputs, [c for c, _ in leaves]


def make_table(inputs: list[Input], cubes: list[tuple[int, ...]], outputs: list[str]) -> Table:
    rules = []
    for r, (cube, out) in enumerate(zip(cubes, outputs)):
        cells = tuple(Cell(m, CellForm.ANY if m == inp.full else CellForm.LIST, 0 if m == inp.full else m, None)
                      for inp, m in zip(inputs, cube))
        rules.append(Rule(f"r{r}", r, cells, out, SPAN))
    return Table("generated.yaml", "", 1, "bench", HitPolicy.UNIQUE, tuple(inputs), Output(OUTPUTS, SPAN), tuple(rules),
                 rules_span=SPAN)


def inject(cubes: list[tuple[int, ...]], outputs: list[str], defects: int, seed: int):
    """Drop rules (gaps) and duplicate others with another output (overlaps), on distinct rules."""
    rng = random.Random(seed)
    picked = rng.sample(range(len(cubes)), min(defects, len(cubes) - 1))
    drop = set(picked[: (len(picked) + 1) // 2])
    dup = picked[(len(picked) + 1) // 2:]
    new_cubes = [c for i, c in enumerate(cubes) if i not in drop]
    new_out = [o for i, o in enumerate(outputs) if i not in drop]
    for i in dup:
        new_cubes.append(cubes[i])
        new_out.append(next(o for o in OUTPUTS if o != outputs[i]))
    return new_cubes, new_out, len(picked)


def brute_force(table: Table, budget_s: float) -> tuple[int, int] | None:
    """(gap points, overlapping points) by enumeration, or None once past the time budget."""
    start = time.perf_counter()
    cubes = [r.cube for r in table.rules]
    gaps = overlaps = 0
    for n, p in enumerate(itertools.product(*(range(len(i.values)) for i in table.inputs))):
        hits = sum(1 for c in cubes if all(m >> v & 1 for m, v in zip(c, p)))
        gaps += hits == 0
        overlaps += hits > 1
        if n % 256 == 0 and time.perf_counter() - start > budget_s:
            return None
    return gaps, overlaps


def median_time(fn, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller grid")
    ap.add_argument("--oracle-budget", type=float, default=10.0, help="seconds per brute-force run")
    args = ap.parse_args()
    grid = [(10, 4), (100, 6), (1000, 10), (1000, 12), (10000, 12)]
    if args.quick:
        grid = [(10, 4), (100, 6), (1000, 10)]
    rows, records = [], []
    for n_rules, n_inputs in grid:
        inputs, cubes = decision_tree(n_inputs, n_rules, seed=n_rules * 31 + n_inputs)
        rng = random.Random(7)
        outputs = [rng.choice(OUTPUTS) for _ in cubes]
        for defects in (0, 3):
            c2, o2, injected = inject(cubes, outputs, defects, seed=defects)
            table = make_table(inputs, c2, o2)
            repeats = 7 if len(c2) <= 1000 else 3
            t_full = median_time(lambda: analyse(table, Budget()), repeats)
            t_cov = median_time(lambda: measure_coverage(Analysis(table, Budget())), repeats)
            found = [d for d in analyse(table, Budget()).findings if d.code in COVERAGE_CODES]
            space = math.prod(len(i.values) for i in inputs)
            t0 = time.perf_counter()
            oracle = brute_force(table, args.oracle_budget)
            t_oracle = time.perf_counter() - t0
            if oracle is not None:
                gap_points, _ = oracle
                assert (gap_points == 0) == (not any(d.code == "gap" for d in found)), "engine and oracle disagree"
            ok = len(found) <= injected and (injected == 0) == (len(found) == 0)
            over = "" if oracle is not None else ">"
            rows.append([len(c2), n_inputs, f"{space:.1e}", injected, len(found), "yes" if ok else "NO",
                         f"{t_full * 1e3:.1f}", f"{t_cov * 1e3:.1f}", f"{over}{t_oracle * 1e3:.0f}",
                         f"{over}{t_oracle / t_full:.0f}x"])
            records.append({"rules": len(c2), "inputs": n_inputs, "space": space, "injected": injected,
                            "findings": len(found), "findings_le_injected": ok,
                            "analysis_median_s": t_full, "coverage_median_s": t_cov,
                            "oracle_s": t_oracle, "oracle_finished": oracle is not None, "repeats": repeats})
    print("full analysis = analyse(); coverage = gaps/overlaps/dead rules only; medians.")
    print(f"brute force: one run, stopped after {args.oracle_budget:.0f} s ('>' marks a lower bound)\n")
    print_table(["rules", "inputs", "space", "injected", "findings", "<=?", "analysis ms", "coverage ms",
                 "brute force ms", "speed-up"], rows)
    write_json("analysis_scaling", {"runs": records})


if __name__ == "__main__":
    main()
