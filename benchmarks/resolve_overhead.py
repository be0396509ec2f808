"""Cost of resolve_swa_kv_pool per call next to the same logic hand-written as ifs.

Both run in the same process on the same plain (non-mock) model runners, alternating,
and the median of many repeats is reported. sglang resolves once per backend
construction, so what matters is that a call stays in microseconds; the ratio says what
walking the table's diagram costs over the ifs.

    python benchmarks/resolve_overhead.py [--repeats 31] [--number 20000]
"""

from __future__ import annotations

import argparse
import enum
import statistics
import timeit

from _report import print_table, write_json

from swapool import load_policy, resolve_swa_kv_pool

Algorithm = enum.Enum("Algorithm", "NONE EAGLE EAGLE3 STANDALONE NGRAM DFLASH DSPARK UNO FROZEN_KV_MTP")


class SWAKVPool:
    def translate_loc_from_full_to_swa(self, loc):
        return loc


class PlainPool:
    pass


class Allocator:
    def __init__(self, kvcache):
        self._kvcache = kvcache

    def get_kvcache(self):
        return self._kvcache


class Runner:
    def __init__(self, active, draft, algorithm, allocator):
        self.token_to_kv_pool = SWAKVPool() if active == "swa" else PlainPool()
        self.is_draft_worker = draft
        self.spec_algorithm = algorithm
        self.token_to_kv_pool_allocator = Allocator(SWAKVPool() if allocator == "swa" else PlainPool())


def hand_written(mr, swa_types=(SWAKVPool,)):  # sglang's logic, as its backends write it
    pool = mr.token_to_kv_pool
    if isinstance(pool, swa_types):
        return pool
    if mr.is_draft_worker and mr.spec_algorithm is not Algorithm.FROZEN_KV_MTP:
        return None
    kv = mr.token_to_kv_pool_allocator.get_kvcache()
    return kv if isinstance(kv, swa_types) else None


CASES = [
    ("swa target", ("swa", False, Algorithm.NONE, "swa")),
    ("target via allocator", ("other", False, Algorithm.NONE, "swa")),
    ("target without swa", ("other", False, Algorithm.NONE, "other")),
    ("EAGLE draft", ("other", True, Algorithm.EAGLE, "swa")),
    ("FROZEN_KV_MTP draft", ("other", True, Algorithm.FROZEN_KV_MTP, "swa")),
    ("EAGLE target", ("other", False, Algorithm.EAGLE, "swa")),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=31)
    ap.add_argument("--number", type=int, default=20000)
    args = ap.parse_args()
    policy = load_policy()
    types = (SWAKVPool,)
    rows, records = [], []
    for label, facts in CASES:
        mr = Runner(*facts)
        assert resolve_swa_kv_pool(mr, policy=policy, swa_pool_types=types) is hand_written(mr)
        env = {"mr": mr, "types": types, "policy": policy, "hand_written": hand_written,
               "resolve_swa_kv_pool": resolve_swa_kv_pool, "dropin": policy.resolver(types)}
        stmts = {"ifs": "hand_written(mr, types)",
                 "resolve_swa_kv_pool": "resolve_swa_kv_pool(mr, policy=policy, swa_pool_types=types)",
                 "drop-in": "dropin(mr)"}
        timers = {k: timeit.Timer(s, globals=env) for k, s in stmts.items()}
        samples: dict[str, list[float]] = {k: [] for k in stmts}
        for _ in range(args.repeats):
            for k, t in timers.items():  # interleaved so drift hits all alike
                samples[k].append(t.timeit(number=args.number) / args.number * 1e9)
        med = {k: statistics.median(v) for k, v in samples.items()}
        ratio = med["resolve_swa_kv_pool"] / med["ifs"]
        dropin_ratio = med["drop-in"] / med["ifs"]
        rows.append([label, f"{med['ifs']:.0f}", f"{med['resolve_swa_kv_pool']:.0f}", f"{ratio:.2f}x",
                     f"{med['drop-in']:.0f}", f"{dropin_ratio:.2f}x"])
        records.append({"case": label, "median_ns": med, "ratio_swapool_to_ifs": ratio,
                        "ratio_dropin_to_ifs": dropin_ratio})
    print("median ns per call (lower is better)\n")
    print_table(["case", "ifs", "resolve_swa_kv_pool", "ratio", "policy.resolver(types)", "ratio"], rows)
    ratios = [r["ratio_swapool_to_ifs"] for r in records]
    dropin = [r["ratio_dropin_to_ifs"] for r in records]
    worst_ns = max(r["median_ns"]["resolve_swa_kv_pool"] for r in records)
    print(f"\nresolve_swa_kv_pool / ifs: median {statistics.median(ratios):.2f}x, worst {max(ratios):.2f}x; "
          f"policy.resolver(types) (the sglang drop-in) / ifs: median {statistics.median(dropin):.2f}x, "
          f"worst {max(dropin):.2f}x; slowest case {worst_ns / 1000:.2f} us per call")
    write_json("resolve_overhead", {"repeats": args.repeats, "number": args.number, "cases": records,
                                    "median_ratio": statistics.median(ratios), "worst_ratio": max(ratios),
                                    "median_ratio_dropin": statistics.median(dropin),
                                    "worst_ratio_dropin": max(dropin), "worst_ns": worst_ns})


if __name__ == "__main__":
    main()
