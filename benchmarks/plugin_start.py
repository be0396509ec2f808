"""What swapool's sglang plugin costs at start: sglang's `load_plugins()` in a fresh process
in the state `python -m sglang.launch_server` calls it (the server's, the engine's and the
scheduler's modules imported: ~670,000 objects tracked by the collector), with the plugin and
without it (SGLANG_PLUGINS names none), interleaved; medians, garbage collection included (the
collections that ran during the call are counted by generation). Also the modules
`load_plugins()` imports and what it prints, each way. Run in the sglang environment
(scripts/sglang_cpu_env.sh); the target is at most 50 ms added.

    .venv-sglang/bin/python benchmarks/plugin_start.py [--runs 11]
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import statistics
import subprocess
import sys

from _report import print_table, write_json

#: Runs in the fresh process: first what a server process has imported when it calls
#: load_plugins() (not timed), then load_plugins() alone, timed, with the collections that ran
#: during it, what it imported and what it printed.
PROBE = r"""
import contextlib, gc, io, json, sys, time
import sglang.launch_server, sglang.srt.entrypoints.engine, sglang.srt.managers.scheduler
import sglang.srt.plugins as plugins
tracked = len(gc.get_objects())
before = set(sys.modules)
out = io.StringIO()
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    t = time.perf_counter()
    plugins.load_plugins()
    elapsed = time.perf_counter() - t
new = sorted(set(sys.modules) - before)
print(json.dumps({"s": elapsed, "modules": new, "printed": out.getvalue(), "tracked": tracked,
                  "full_collections": collections.count(2), "collections": len(collections)}))
"""
WAYS = {"with swapool": {}, "without (SGLANG_PLUGINS=none)": {"SGLANG_PLUGINS": "none"}}


def once(env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                          env={**os.environ, **env})
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    args = ap.parse_args()
    # An install writes bytecode; a checkout run with PYTHONDONTWRITEBYTECODE=1 would
    # otherwise compile every swapool module in each run and time the compiler.
    package = importlib.util.find_spec("swapool")
    assert package is not None and package.origin is not None, "swapool is not importable here"
    compileall.compile_dir(os.path.dirname(package.origin), quiet=1)
    for env in WAYS.values():
        once(env)  # warm the file cache
    samples: dict[str, list[dict]] = {way: [] for way in WAYS}
    for _ in range(args.runs):
        for way, env in WAYS.items():
            samples[way].append(once(env))
    med = {way: statistics.median(s["s"] for s in runs) for way, runs in samples.items()}
    with_, without = med["with swapool"], med["without (SGLANG_PLUGINS=none)"]
    extra_modules = sorted(set(samples["with swapool"][-1]["modules"]) -
                           set(samples["without (SGLANG_PLUGINS=none)"][-1]["modules"]))
    foreign = [m for m in extra_modules if not m.startswith("swapool")]
    printed = samples["with swapool"][-1]["printed"]
    print(f"sglang load_plugins() in a fresh process, median of {args.runs} interleaved runs\n")
    print_table(["way", "ms", "modules imported"],
                [[way, f"{med[way] * 1e3:.1f}", str(len(samples[way][-1]["modules"]))] for way in WAYS])
    full = {way: sum(s["full_collections"] for s in runs) for way, runs in samples.items()}
    tracked = statistics.median(s["tracked"] for s in samples["with swapool"])
    print(f"\nadded by swapool: {(with_ - without) * 1e3:.1f} ms (target <= 50 ms), in processes tracking "
          f"~{tracked:,.0f} objects; full collections during the call, all runs: {full}")
    print(f"modules imported with swapool and not without: {len(extra_modules)}, of them not swapool's: "
          f"{', '.join(foreign) or 'none'}")
    print(f"printed by load_plugins() with swapool: {printed!r}")
    write_json("plugin_start", {"runs": args.runs, "median_s": med, "added_s": with_ - without,
                                "tracked_objects": tracked, "full_collections": full,
                                "extra_modules": extra_modules, "extra_modules_not_swapool": foreign,
                                "printed_with_swapool": printed})


if __name__ == "__main__":
    main()
