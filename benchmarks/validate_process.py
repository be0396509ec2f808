"""Whole-process time of `swapool validate policies/swa.yaml` against its floor, an interpreter
that imports PyYAML (`python -c "import yaml"`), and next to check-jsonschema on the same file
and schema (which checks only the schema). All run interleaved in one process; medians of
--runs each, of wall time and of the CPU time each child used (steadier on a shared machine,
where other tenants stretch wall time). Needs `pip install check-jsonschema`.

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
import time
from pathlib import Path

from _report import print_table, write_json

ROOT = Path(__file__).resolve().parent.parent
TABLE = "policies/swa.yaml"
SCHEMA = "schemas/decision-table.schema.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    bindir = Path(sys.executable).parent
    swapool = shutil.which("swapool", path=str(bindir)) or shutil.which("swapool")
    cjs = shutil.which("check-jsonschema", path=str(bindir)) or shutil.which("check-jsonschema")
    if not swapool or not cjs:
        sys.exit("needs both `swapool` and `check-jsonschema` on PATH (pip install check-jsonschema)")
    commands = {
        "swapool validate": [swapool, "validate", TABLE],
        "swapool validate --no-enum-import": [swapool, "validate", "--no-enum-import", TABLE],
        "check-jsonschema (schema only)": [cjs, "--schemafile", SCHEMA, TABLE],
        "python -c 'import yaml'": [sys.executable, "-c", "import yaml"],
        "python -c 'import yaml, jsonschema'": [sys.executable, "-c", "import yaml, jsonschema"],
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
    print(f"medians of the whole process over {args.runs} interleaved runs\n")
    print_table(["command", "wall ms", "vs import yaml", "cpu ms", "cpu vs import yaml", "vs check-jsonschema"],
                rows)
    write_json("validate_process", {"runs": args.runs, "median_s": med, "median_cpu_s": med_cpu,
                                    "ratio_swapool_to_import_yaml": med["swapool validate"] / floor,
                                    "cpu_ratio_swapool_to_import_yaml": med_cpu["swapool validate"] / floor_cpu,
                                    "ratio_swapool_to_check_jsonschema": med["swapool validate"] / base})


if __name__ == "__main__":
    main()
