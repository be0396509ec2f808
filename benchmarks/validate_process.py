"""Whole-process time of `swapool validate policies/swa.yaml` against its floor, an interpreter
that imports PyYAML (`python -c "import yaml"`), and next to check-jsonschema on the same file
and schema (which checks only the schema). All run interleaved in one process; medians of
--runs each, of wall time and of the CPU time each child used (steadier on a shared machine,
where other tenants stretch wall time). Two more rows show what any checker laid out as
swapool is pays before its own work: argparse and libyaml's compose of the two tables a check
of swa.yaml reads (it and swa_backends.yaml, which imports it), then those plus as many empty
modules as a clean validate imports of swapool. Needs `pip install check-jsonschema`.

    python benchmarks/validate_process.py [--runs 21]
"""

from __future__ import annotations

import argparse
import compileall
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import print_table, write_json

ROOT = Path(__file__).resolve().parent.parent
TABLE = "policies/swa.yaml"
SCHEMA = "schemas/decision-table.schema.json"

#: Reads argv with argparse as the CLI does (a formatter sized without shutil) and composes the
#: tables with libyaml; then imports `sys.argv[1]` empty modules from the package in `sys.argv[2]`.
FLOOR = """
import argparse, sys, yaml
sized = lambda prog: argparse.HelpFormatter(prog, width=80)
ap = argparse.ArgumentParser(formatter_class=sized)
ap.add_subparsers().add_parser("validate", formatter_class=sized).add_argument("paths", nargs="*")
ap.parse_args(["validate", "policies/swa.yaml"])
for f in ("policies/swa.yaml", "policies/swa_backends.yaml"):
    yaml.compose(open(f, encoding="utf-8").read(), Loader=yaml.CSafeLoader)
if len(sys.argv) > 2:
    sys.path.insert(0, sys.argv[2])
    for i in range(int(sys.argv[1])):
        __import__(f"empty.m{i}")
"""
#: How many of swapool's modules a clean `swapool validate` imports.
COUNT = ("import sys; sys.argv = ['swapool', 'validate', 'policies/swa.yaml']; from swapool.cli import main\n"
         "try: main()\nexcept SystemExit: pass\n"
         "print(sum(m.startswith('swapool') for m in sys.modules), file=sys.stderr)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    bindir = Path(sys.executable).parent
    swapool = shutil.which("swapool", path=str(bindir)) or shutil.which("swapool")
    cjs = shutil.which("check-jsonschema", path=str(bindir)) or shutil.which("check-jsonschema")
    if not swapool or not cjs:
        sys.exit("needs both `swapool` and `check-jsonschema` on PATH (pip install check-jsonschema)")
    count = int(subprocess.run([sys.executable, "-c", COUNT], cwd=ROOT, check=True, capture_output=True,
                               text=True).stderr.split()[-1])
    empty = Path(tempfile.mkdtemp())
    (empty / "empty").mkdir()
    for i in range(count):
        (empty / "empty" / f"m{i}.py").write_text(f"X = {i}\n")
    (empty / "empty" / "__init__.py").write_text("")
    compileall.compile_dir(str(empty), quiet=1)
    commands = {
        "swapool validate": [swapool, "validate", TABLE],
        "swapool validate --no-enum-import": [swapool, "validate", "--no-enum-import", TABLE],
        "check-jsonschema (schema only)": [cjs, "--schemafile", SCHEMA, TABLE],
        "python -c 'import yaml'": [sys.executable, "-c", "import yaml"],
        "python -c 'import yaml, jsonschema'": [sys.executable, "-c", "import yaml, jsonschema"],
        "floor: argparse + libyaml compose": [sys.executable, "-c", FLOOR],
        f"floor + {count} empty modules": [sys.executable, "-c", FLOOR, str(count), str(empty)],
    }
    # An install writes bytecode; a checkout run with PYTHONDONTWRITEBYTECODE=1 would
    # otherwise recompile every edited module on each run and time the compiler.
    compileall.compile_dir(str(ROOT / "swapool"), quiet=1)
    for argv in commands.values():  # warm caches, and fail loudly if a command fails
        subprocess.run(argv, cwd=ROOT, check=True, capture_output=True)
    samples: dict[str, list[float]] = {k: [] for k in commands}
    cpu: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(argv, cwd=ROOT, check=True, capture_output=True)
            samples[name].append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    med = {k: statistics.median(v) for k, v in samples.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    floor, floor_cpu = med["python -c 'import yaml'"], med_cpu["python -c 'import yaml'"]
    base = med["check-jsonschema (schema only)"]
    rows = [[k, f"{v * 1e3:.0f}", f"{v / floor:.2f}x", f"{med_cpu[k] * 1e3:.0f}", f"{med_cpu[k] / floor_cpu:.2f}x",
             f"{v / base:.2f}x"] for k, v in med.items()]
    shutil.rmtree(empty)
    print(f"medians of the whole process over {args.runs} interleaved runs; a clean validate imports {count} "
          "of swapool's modules\n")
    print_table(["command", "wall ms", "vs import yaml", "cpu ms", "cpu vs import yaml", "vs check-jsonschema"],
                rows)
    write_json("validate_process", {"runs": args.runs, "swapool_modules": count, "median_s": med, "median_cpu_s": med_cpu,
                                    "ratio_swapool_to_import_yaml": med["swapool validate"] / floor,
                                    "cpu_ratio_swapool_to_import_yaml": med_cpu["swapool validate"] / floor_cpu,
                                    "ratio_swapool_to_check_jsonschema": med["swapool validate"] / base})


if __name__ == "__main__":
    main()
