"""Entry point of one rank in the multi-process tests (spawned; must be importable)."""

from __future__ import annotations

import datetime
import time


def run_rank(rank: int, world: int, port: int, paths: dict, results, timeout_s: float) -> None:
    import torch.distributed as dist

    from swapool import PolicyError, load_policy

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=60))
    path = paths.get(rank)
    started = time.monotonic()
    try:
        if path is None:  # this rank never loads a policy (it crashed, or skipped the call)
            time.sleep(timeout_s + 3)
            results.put((rank, "absent", ""))
            return
        policy = load_policy(path, import_enums=False, timeout_s=timeout_s)
        results.put((rank, "ok", policy.digest))
    except PolicyError as exc:
        results.put((rank, "PolicyError", f"{exc} [after {time.monotonic() - started:.1f}s]"))
    except Exception as exc:  # reported so that the test shows it rather than hanging
        results.put((rank, type(exc).__name__, str(exc)))
