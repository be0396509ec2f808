"""Whole check of generated 10-input tables of 250 / 500 / 1,000 / 2,000 rules, each written
plainly and with anchors and aliases (as `yaml.safe_dump` writes a table a script built), next
to libyaml's `yaml.load` of the same bytes; with the check's stages, the import time of
swapool and the shipped table's load. The check is what a load does: read the file, check it
and compile its diagram, no document kept from an earlier run. The check and the parse
alternate, medians of --repeats each.

    python benchmarks/load_scaling.py [--repeats 21]
"""

from __future__ import annotations

import argparse
import compileall
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from _report import print_table, write_json

from analysis_scaling import OUTPUTS, decision_tree, median_time
from swapool.table.analysis import analyse
from swapool.table.build import build_parts
from swapool.table.partition import Budget
from swapool.table.check import check_path
from swapool.table.diagram import Diagram
from swapool.table.enums import EnumPolicy
from swapool.table.schema import check_schema
from swapool.table.source import parse_document

RULES = (250, 500, 1000, 2000)
INPUTS = 10


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


def table_text(inputs, cubes, outputs, aliased: bool = False) -> str:
    """The generated table as YAML: each rule's cells as lists, '-' cells left out. `aliased`:
    one list for each distinct cell, so that the dumper writes it once (&id) and aliases it (*id)
    everywhere else, as `yaml.safe_dump` writes a table built by a script."""
    lists: dict = {}

    def cell(values: tuple) -> list:
        return lists.setdefault(values, list(values)) if aliased else list(values)

    rules = [{"id": f"r{r}", "when": {inp.name: cell(inp.values_of(m)) for inp, m in zip(inputs, cube) if m != inp.full},
              "then": out} for r, (cube, out) in enumerate(zip(cubes, outputs))]
    data = {"format": 1, "decision": "bench", "hit_policy": "unique",
            "inputs": {inp.name: {"values": list(inp.values), "wildcard": True} for inp in inputs},
            "output": {"values": list(OUTPUTS)}, "rules": rules}
    return yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False)


def alternating(first, second, repeats: int) -> tuple[float, float]:
    """Median ms of each of two functions, run in turn (a noisy machine slows both alike), each
    from a collected heap: the collections its own allocations trigger are its own cost, not
    those the run before it left pending."""
    a, b = [], []
    for _ in range(repeats):
        for fn, samples in ((first, a), (second, b)):
            gc.collect()
            t = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t)
    return statistics.median(a) * 1000, statistics.median(b) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=21)
    args = ap.parse_args()
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "swapool"), quiet=1)  # as installed
    folder = Path(tempfile.mkdtemp())
    rows, records = [], []
    for n_rules in RULES:
        inputs, cubes = decision_tree(INPUTS, n_rules, seed=n_rules)
        outs = [OUTPUTS[i % len(OUTPUTS)] for i in range(len(cubes))]
        for aliased in (False, True):
            text = table_text(inputs, cubes, outs, aliased)
            path = folder / f"{n_rules}-{'aliased' if aliased else 'plain'}.yaml"
            path.write_text(text)

            def check() -> object:  # .diagram: what a load compiles (a plain check leaves it to first use)
                return check_path(path, enums=EnumPolicy(do_import=False)).diagram

            if check() is None:
                sys.exit(f"{path}: the generated table does not check")
            parse, whole = alternating(lambda: yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader), check,
                                       args.repeats)
            doc, _ = parse_document(text)
            table = build_parts(doc).table

            stages = {"spans": median_ms(lambda: parse_document(text), args.repeats),
                      "schema": median_ms(lambda: check_schema(doc), args.repeats),
                      "model": median_ms(lambda: build_parts(doc), args.repeats),
                      "analysis": median_ms(lambda: analyse(table, Budget()), args.repeats),
                      "diagram": median_ms(lambda: Diagram(table, Budget()), args.repeats)}
            ratio = whole / parse
            rows.append([len(cubes), "aliased" if aliased else "plain", f"{len(text) / 1024:.0f} KiB",
                         f"{parse:.1f}", f"{whole:.1f}", f"{ratio:.2f}x", *(f"{v:.1f}" for v in stages.values())])
            records.append({"rules": len(cubes), "inputs": INPUTS, "aliased": aliased, "bytes": len(text),
                            "libyaml_parse_ms": parse, "check_ms": whole, "check_over_parse": ratio,
                            "stages_ms": stages, "repeats": args.repeats})
    print(f"median ms of {args.repeats} (lower is better); check = read + parse with positions + schema + model "
          "+ analysis + diagram\n")
    print_table(["rules", "written", "size", "libyaml load", "check", "check/load", "spans", "schema", "model",
                 "analysis", "diagram"], rows)
    per_rule = {a: [r["check_ms"] / r["rules"] for r in records if r["aliased"] == a] for a in (False, True)}
    print("\ncheck ms per rule, 250 -> 2,000 rules: " + "; ".join(
        f"{'aliased' if a else 'plain'} {' -> '.join(f'{v * 1000:.0f} us' for v in vs)}" for a, vs in per_rule.items()))
    imported = import_ms(args.repeats)
    print(f"import swapool: {imported:.1f} ms (fresh interpreter, start-up subtracted)")
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
