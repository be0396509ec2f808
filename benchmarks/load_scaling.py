"""Whole check of generated tables of 10 / 100 / 1,000 / 10,000 rules next to a plain
libyaml parse of the same file, with the check's stages, and the import time of swapool.
Medians; every stage and the parse run in the same process, one after the other.

    python benchmarks/load_scaling.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml
from _report import print_table, write_json

from analysis_scaling import OUTPUTS, decision_tree, median_time
from swapool.table.analysis import analyse
from swapool.table.build import build_parts
from swapool.table.partition import Budget
from swapool.table.check import check_bytes
from swapool.table.diagram import Diagram
from swapool.table.enums import EnumPolicy
from swapool.table.schema import check_schema
from swapool.table.source import parse_document

SIZES = [(10, 4), (100, 6), (1000, 10), (10000, 12)]


def median_ms(fn, repeats: int) -> float:
    return median_time(fn, repeats) * 1000


def import_ms(repeats: int) -> float:
    """`import swapool` in a fresh interpreter, minus the interpreter's own start."""
    def run(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start
    pairs = [(run("import swapool"), run("pass")) for _ in range(repeats)]
    return statistics.median(a - b for a, b in pairs) * 1000


def table_text(inputs, cubes, outputs) -> str:
    """The generated table as YAML: each rule's cells as lists, '-' cells left out."""
    rules = [{"id": f"r{r}", "when": {inp.name: list(inp.values_of(m)) for inp, m in zip(inputs, cube) if m != inp.full},
              "then": out} for r, (cube, out) in enumerate(zip(cubes, outputs))]
    data = {"format": 1, "decision": "bench", "hit_policy": "unique",
            "inputs": {inp.name: {"values": list(inp.values), "wildcard": True} for inp in inputs},
            "output": {"values": list(OUTPUTS)}, "rules": rules}
    return yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "swapool"), quiet=1)  # as installed
    rows, records = [], []
    for n_rules, n_inputs in SIZES:
        inputs, cubes = decision_tree(n_inputs, n_rules, seed=n_rules)
        outs = [OUTPUTS[i % len(OUTPUTS)] for i in range(len(cubes))]
        text = table_text(inputs, cubes, outs)
        reps = args.repeats if n_rules < 10000 else 3
        parse = median_ms(lambda: yaml.load(text, Loader=yaml.CSafeLoader), reps)
        # .diagram: what a load compiles (a plain check leaves it to first use)
        check = median_ms(lambda: check_bytes(text, "generated.yaml", enums=EnumPolicy(do_import=False)).diagram,
                          reps)
        doc, _ = parse_document(text)
        table = build_parts(doc).table
        stages = {"spans": median_ms(lambda: parse_document(text), reps),
                  "schema": median_ms(lambda: check_schema(doc), reps),
                  "model": median_ms(lambda: build_parts(doc), reps),
                  "analysis": median_ms(lambda: analyse(table, Budget()), reps),
                  "diagram": median_ms(lambda: Diagram(table, Budget()), reps)}
        ratio = check / parse
        rows.append([len(cubes), n_inputs, f"{len(text) / 1024:.0f} KiB", f"{parse:.1f}", f"{check:.1f}",
                     f"{ratio:.2f}x", *(f"{v:.1f}" for v in stages.values())])
        records.append({"rules": len(cubes), "inputs": n_inputs, "bytes": len(text), "libyaml_parse_ms": parse,
                        "check_ms": check, "check_over_parse": ratio, "stages_ms": stages, "repeats": reps})
    print("median ms (lower is better); check = parse with positions + schema + model + analysis + diagram\n")
    print_table(["rules", "inputs", "size", "libyaml parse", "check", "check/parse", "spans", "schema", "model",
                 "analysis", "diagram"], rows)
    imported = import_ms(args.repeats)
    print(f"\nimport swapool: {imported:.1f} ms (fresh interpreter, start-up subtracted)")
    shipped, with_resolver = shipped_load_ms()
    print(f"load_policy(policies/swa.yaml), uncached, after imports: {shipped:.2f} ms; with its first "
          f"policy.resolve: {with_resolver:.2f} ms (medians of 400, alternating)")
    write_json("load_scaling", {"tables": records, "import_swapool_ms": imported, "load_policy_shipped_ms": shipped,
                                "load_policy_and_first_resolve_ms": with_resolver})


def shipped_load_ms(runs: int = 400) -> tuple[float, float]:
    """What a server pays at start for the shipped table: read, check, compile the diagram,
    no cache; then the same with the first `policy.resolve` (the default resolver, compiled
    on first use; the sglang plugin compiles one per backend instead)."""
    from swapool.swa.policy import clear_cache, load_policy
    from swapool.table.shipped import shipped

    path = shipped("policies/swa.yaml")
    loads, resolved = [], []
    for i in range(2 * runs):
        clear_cache()
        start = time.perf_counter()
        policy = load_policy(path, import_enums=False)
        if i % 2:
            policy.resolve
            resolved.append(time.perf_counter() - start)
        else:
            loads.append(time.perf_counter() - start)
    return statistics.median(loads) * 1000, statistics.median(resolved) * 1000


if __name__ == "__main__":
    main()
