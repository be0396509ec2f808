"""GPU check, one command: flashinfer against the torch reference, then what the SWA page-table
translation costs next to flashinfer's decode.

    python benchmarks/gpu_check.py            # CUDA + flashinfer; a few minutes on one GPU
    python benchmarks/gpu_check.py --smoke    # CPU: the same code path on tiny sizes, torch only

1. Correctness: random bf16 KV in a SWA pool with a shuffled full -> swa mapping; for a
   full layer and a SWA layer (window 512, soft cap), and for a target (active pool) and a
   FROZEN_KV_MTP draft (allocator pool), flashinfer's output must match the torch reference
   (max abs error / max abs reference <= 1e-2); its `out` buffer is filled with NaN first and
   must come back fully written.
2. Timing: batch {1, 32, 256} x context {1k, 8k, 32k}, window 4k, page size 16: median
   translation time (one gather over the batch's page ids) and flashinfer decode time of a
   SWA layer (soft cap 50, as in part 1) and a full layer (CUDA events). Target: translation
   <= 5% of SWA-layer decode at 256 x 32k. flashinfer's decode kernel masks keys outside the
   window rather than skipping their pages, so the SWA layer walks the whole page table too.
Writes benchmarks/results/gpu_check.json with the GPU name.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import print_table, write_json  # noqa: E402

from swapool.swa.attention import AttentionLayer, PageTable, TorchAttnBackend  # noqa: E402
from swapool.swa.kv import FrozenKVView, SWAKVPool, SWATokenToKVPoolAllocator, TokenToKVPool  # noqa: E402

HQ, HKV, D = 32, 8, 128
SOFT_CAP = 50.0  # SWA layers in both halves: flashinfer JIT-builds one module per (window?, cap?) kind


def build(batch: int, ctx: int, window: int, page: int, device: str, dtype: torch.dtype, seed: int = 0):
    """A SWA pool holding `batch` sequences of `ctx` tokens: every full page allocated, SWA
    pages kept only for the pages a query's window reaches (older ones evicted)."""
    pages_per_seq = -(-ctx // page)
    keep = -(-window // page) + 1  # SWA pages a sequence keeps at most: its window plus a partial page
    full = TokenToKVPool(batch * pages_per_seq + 1, page, 1, HKV, D, dtype=dtype, device=device)
    swa = TokenToKVPool((batch + 1) * keep + 1, page, 1, HKV, D, dtype=dtype, device=device)
    pool = SWAKVPool(full, swa, {0: (0, False), 1: (0, True)})
    alloc = SWATokenToKVPoolAllocator(pool)
    gen = torch.Generator(device=device).manual_seed(seed)
    for buf in full.k_buffer + full.v_buffer + swa.k_buffer + swa.v_buffer:
        buf.normal_(generator=gen)  # on the device: the largest pool is ~4 GB of bf16 per buffer pair
    seqs = []
    for _ in range(batch):
        pages: list[int] = []
        while len(pages) < pages_per_seq:  # allocate in chunks, evicting what slid out of the window
            pages += alloc.alloc_pages(min(keep, pages_per_seq - len(pages))).tolist()
            alloc.evict_outside_window(pages, first_query_pos=min(len(pages) * page, ctx) - 1,
                                       sliding_window=window)
        seqs.append(torch.tensor(pages))
    table = PageTable.from_pages(seqs, [ctx] * batch, page, device=device)
    return pool, alloc, table


def runners(pool, alloc):
    target = SimpleNamespace(token_to_kv_pool=pool, is_draft_worker=False, spec_algorithm="NONE",
                             token_to_kv_pool_allocator=alloc)
    frozen = SimpleNamespace(token_to_kv_pool=FrozenKVView(pool, {0: 0, 1: 1}), is_draft_worker=True,
                             spec_algorithm="FROZEN_KV_MTP", token_to_kv_pool_allocator=alloc)
    return {"target": target, "frozen-kv-mtp draft": frozen}


def correctness(device: str, use_flashinfer: bool) -> list[dict]:
    dtype = torch.bfloat16
    layers = [AttentionLayer(0, HQ, HKV, D), AttentionLayer(1, HQ, HKV, D, sliding_window=512, logit_soft_cap=SOFT_CAP)]
    pool, alloc, table = build(batch=8, ctx=1500, window=512, page=16, device=device, dtype=dtype)
    q = torch.randn(8, HQ, D, device=device).to(dtype)
    rows = []
    for who, mr in runners(pool, alloc).items():
        ref = TorchAttnBackend(mr, swa_pool_types=(SWAKVPool,))
        ref.plan(table)
        if use_flashinfer:
            from swapool.swa.attention.flashinfer_backend import FlashInferAttnBackend
            fast = FlashInferAttnBackend(mr, swa_pool_types=(SWAKVPool,))
            fast.plan(table, layers, q_dtype=dtype)
        for layer in layers:
            want = ref.forward_decode(q, layer).float()
            if use_flashinfer:
                out = torch.full_like(q, float("nan"))
                got = fast.forward_decode(q, layer, out=out).float()
                written = bool(torch.isfinite(out).all())
            else:
                got, written = ref.forward_decode(q, layer).float(), True
            rel = float((got - want).abs().max() / want.abs().max())
            rows.append({"worker": who, "layer": "swa" if layer.sliding_window else "full", "rel_err": rel,
                         "out_fully_written": written, "ok": rel <= 1e-2 and written})
    return rows


_START = time.perf_counter()


def progress(what: str) -> None:
    """Where the run is, on stderr: a run cut off at its time limit still says how far it got."""
    print(f"[{time.perf_counter() - _START:6.1f} s] {what}", file=sys.stderr, flush=True)


def cuda_median_ms(fn, iters: int) -> float:
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def cpu_median_ms(fn, iters: int) -> float:
    times = []
    for _ in range(iters):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def time_cell(device: str, use_flashinfer: bool, batch: int, ctx: int, window: int, iters: int) -> dict:
    """One grid cell; its pools are freed when it returns."""
    median = cuda_median_ms if device == "cuda" else cpu_median_ms
    pool, alloc, table = build(batch, ctx, window, 16, device, torch.bfloat16)
    mr = runners(pool, alloc)["target"]
    swa_layer = AttentionLayer(1, HQ, HKV, D, sliding_window=window, logit_soft_cap=SOFT_CAP)
    full_layer = AttentionLayer(0, HQ, HKV, D)
    q = torch.randn(batch, HQ, D, device=device).to(torch.bfloat16)
    backend = TorchAttnBackend(mr, swa_pool_types=(SWAKVPool,))
    translate_ms = median(lambda: backend.translate_page_table(table), iters)
    row = {"batch": batch, "context": ctx, "pages": int(table.kv_indices.numel()), "translate_ms": translate_ms}
    if use_flashinfer:
        from swapool.swa.attention.flashinfer_backend import FlashInferAttnBackend
        fast = FlashInferAttnBackend(mr, swa_pool_types=(SWAKVPool,))
        fast.plan(table, [swa_layer, full_layer], q_dtype=torch.bfloat16)
        for layer in (swa_layer, full_layer):  # warm-up (plan() already JIT-built the kernels)
            fast.forward_decode(q, layer)
        row["swa_decode_ms"] = median(lambda: fast.forward_decode(q, swa_layer), iters)
        row["full_decode_ms"] = median(lambda: fast.forward_decode(q, full_layer), iters)
        row["translate_share_of_swa_decode"] = translate_ms / row["swa_decode_ms"]
    return row


def timing(device: str, use_flashinfer: bool, grid: list[tuple[int, int]], window: int, iters: int) -> list[dict]:
    rows = []
    for batch, ctx in grid:
        progress(f"timing batch {batch} x context {ctx}")
        rows.append(time_cell(device, use_flashinfer, batch, ctx, window, iters))
        if device == "cuda":
            torch.cuda.empty_cache()
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="CPU, tiny sizes, torch only (checks this script)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", type=Path, default=None, help="JSON path (default benchmarks/results/gpu_check.json)")
    args = ap.parse_args()
    if args.smoke:
        device, use_fi, window = "cpu", False, 64
        grid = [(1, 256), (4, 512)]
    else:
        if not torch.cuda.is_available():
            print("gpu_check: no CUDA device here; run with --smoke for the CPU path", file=sys.stderr)
            return 2
        device, use_fi, window = "cuda", True, 4096
        grid = [(b, c) for b in (1, 32, 256) for c in (1024, 8192, 32768)]
    progress("correctness" + (" (flashinfer JIT-builds its decode kernels on first use: minutes)" if use_fi else ""))
    checks = correctness(device, use_fi)
    print("correctness (max abs error / max abs reference; NaN-poisoned out buffer)\n")
    print_table(["worker", "layer", "rel err", "out written", "ok"],
                [[c["worker"], c["layer"], f"{c['rel_err']:.2e}", c["out_fully_written"], c["ok"]] for c in checks])
    rows = timing(device, use_fi, grid, window, args.iters if not args.smoke else 3)
    print(f"\ntiming, window {window}, page 16, medians in ms\n")
    head = ["batch", "context", "pages", "translate"] + (["swa decode", "full decode", "translate/swa"] if use_fi else [])
    print_table(head, [[r["batch"], r["context"], r["pages"], f"{r['translate_ms']:.4f}"]
                       + ([f"{r['swa_decode_ms']:.4f}", f"{r['full_decode_ms']:.4f}",
                           f"{r['translate_share_of_swa_decode']:.1%}"] if use_fi else []) for r in rows])
    gpu = torch.cuda.get_device_name() if device == "cuda" else "cpu (smoke)"
    payload = {"device": gpu, "torch": torch.__version__, "smoke": args.smoke, "correctness": checks,
               "timing": rows, "target_translate_share": 0.05}
    if use_fi:
        import flashinfer
        payload["flashinfer"] = flashinfer.__version__
    if args.out:
        args.out.write_text(__import__("json").dumps(payload, indent=2) + "\n")
        print(f"\nwrote {args.out}")
    else:
        write_json("gpu_check", payload)
    return 0 if all(c["ok"] for c in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
