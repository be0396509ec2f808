"""Run in a fresh process (sglang's plugin loading is once per process): load sglang's
plugins as a server would, then report what the backends' resolvers are and do, as JSON.

    python tests/sglang_plugin_probe.py SCENARIO     # hooked | construct | regression | guard | frozen_view | translator | aiter
"""

from __future__ import annotations

import itertools
import json
import logging
import sys
from pathlib import Path
from unittest.mock import MagicMock

import torch

from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend  # noqa: E402
from sglang.srt.layers.attention.trtllm_mha_backend import TRTLLMHAAttnBackend  # noqa: E402
from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool  # noqa: E402
from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool  # noqa: E402
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool  # noqa: E402
from sglang.srt.plugins import load_plugins  # noqa: E402
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm  # noqa: E402
from sglang_runner import model_fields  # noqa: E402  (beside this script)

REPO = Path(__file__).resolve().parent.parent
BACKENDS = {"trtllm_mha": (TRTLLMHAAttnBackend, SWAKVPool), "flashinfer": (FlashInferAttnBackend, BaseSWAKVPool)}


def runner(active, draft, algorithm, allocator):
    mr = MagicMock()
    mr.token_to_kv_pool = MagicMock(spec=active)
    mr.is_draft_worker = draft
    mr.spec_algorithm = algorithm
    mr.token_to_kv_pool_allocator.get_kvcache.return_value = MagicMock(spec=allocator)
    return mr


def hooked() -> dict:
    import swapool
    policy = swapool.load_policy(import_enums=False)
    out = {"resolvers": {}, "disagreements": [], "checked": 0}
    for name, (cls, check) in BACKENDS.items():
        fn = cls.__dict__["_resolve_swa_kv_pool"].__func__
        out["resolvers"][name] = fn.__qualname__
        for active, draft, alg, alloc in itertools.product((SWAKVPool, BaseSWAKVPool, object), (False, True),
                                                          list(SpeculativeAlgorithm), (SWAKVPool, BaseSWAKVPool, object)):
            mr = runner(active, draft, alg, alloc)
            facts = {"active_pool": "swa" if issubclass(active, check) else "other", "is_draft_worker": draft,
                     "spec_algorithm": alg, "allocator_kvcache": "swa" if issubclass(alloc, check) else "other"}
            want = {"active": mr.token_to_kv_pool, "none": None,
                    "allocator": mr.token_to_kv_pool_allocator.get_kvcache.return_value}[policy.decide(**facts).output]
            if cls._resolve_swa_kv_pool(mr) is not want:
                out["disagreements"].append([name, active.__name__, draft, alg.name, alloc.__name__])
            out["checked"] += 1
    return out


def regression_failures(resolve, swa_pool, plain_pool) -> list[str]:
    """The six cases of sglang's fix "Fix SWA pool resolution for EAGLE draft workers"
    (DESIGN.md section 1), as sglang's own unit test for the resolver checks them, in our words:
    (active pool, draft?, algorithm, allocator's kvcache) -> which pool comes back."""
    A = SpeculativeAlgorithm
    cases = [((swa_pool, False, A.NONE, swa_pool), "active"),
             ((plain_pool, False, A.NONE, swa_pool), "allocator"),
             ((plain_pool, False, A.NONE, plain_pool), "none"),
             ((plain_pool, True, A.EAGLE, swa_pool), "none"),
             ((plain_pool, True, A.FROZEN_KV_MTP, swa_pool), "allocator"),
             ((plain_pool, False, A.EAGLE, swa_pool), "allocator")]
    failures = []
    for facts, want in cases:
        mr = runner(*facts)
        got = resolve(mr)
        mr.token_to_kv_pool_allocator.get_kvcache.reset_mock()
        pools = {"active": mr.token_to_kv_pool, "allocator": mr.token_to_kv_pool_allocator.get_kvcache.return_value,
                 "none": None}
        if got is not pools[want]:
            failures.append(f"{facts[0].__name__}, draft={facts[1]}, {facts[2].name}, {facts[3].__name__}: "
                            f"expected {want}")
    return failures


def regression() -> dict:
    return {name: regression_failures(cls._resolve_swa_kv_pool, SWAKVPool, object)
            for name, (cls, _) in BACKENDS.items()}


def _stub_runtime_config(tb, algorithm: str = "NONE") -> None:
    config = MagicMock(speculative_num_draft_tokens=1, speculative_eagle_topk=1, attn_dcp_size=1, attn_dcp_rank=0,
                       tp_size=1, attn_tp_size=1, attn_cp_size=1, speculative_algorithm=algorithm)
    for getter in ("get_exec", "get_spec", "get_parallel", "get_schedule", "get_memory", "get_model"):
        if hasattr(tb, getter):
            setattr(tb, getter, lambda: config)


def _triton_runner(active, draft, alg, alloc):
    return model_fields(runner(active, draft, alg, alloc), torch.float16)


def frozen_view() -> dict:
    """The FROZEN_KV_MTP topk > 1 draft backend (frozen_kv_mtp_worker_v2 builds a triton one
    from the draft runner, whose own pool is a 64-token dummy) inside sglang's own
    frozen_kv_target_view, which swaps in the target's pool."""
    import sglang.srt.layers.attention.triton_backend as tb
    from sglang.srt.speculative.frozen_kv_mtp_utils import frozen_kv_target_view
    _stub_runtime_config(tb)
    try:
        backend = tb.TritonAttnBackend(_triton_runner(object, True, SpeculativeAlgorithm.FROZEN_KV_MTP, SWAKVPool),
                                       skip_prefill=True)
    except Exception as exc:  # the start-up guard refuses it: it decides otherwise than the policy
        return {"refused": f"{type(exc).__name__}: {exc}"}
    out = {"at_construction": {"pool_is_swa": isinstance(backend.token_to_kv_pool, SWAKVPool),
                               "use_sliding_window_kv_pool": backend.use_sliding_window_kv_pool}}
    context = MagicMock(target_token_to_kv_pool=MagicMock(spec=SWAKVPool))
    with frozen_kv_target_view(MagicMock(), context, backend):
        out["in_target_view"] = {"pool_is_swa": isinstance(backend.token_to_kv_pool, SWAKVPool),
                                 "use_sliding_window_kv_pool": backend.use_sliding_window_kv_pool}
    return out


def _stand_in_sgl_kernel() -> None:
    """sgl_kernel (CUDA/CPU kernels) has no CPU build; the environment holds a stand-in
    package (tests/sglang_cpu/sgl_kernel) whose functions raise when called. intel_amx looks
    its two CPU attention ops up in torch.ops.sgl_kernel at construction: define their
    schemas (only constructors run here, no kernel)."""
    global _ops
    _ops = torch.library.Library("sgl_kernel", "DEF")
    _ops.define("decode_attention_cpu(Tensor x) -> Tensor")
    _ops.define("extend_attention_cpu(Tensor x) -> Tensor")


#: The own pools a guarded backend may be built with: (label, spec class, swa_layer_nums).
OWN_POOLS = (("SWAKVPool", SWAKVPool, 2), ("SWAKVPool(0 swa layers)", SWAKVPool, 0),
             ("BaseSWAKVPool", BaseSWAKVPool, 2), ("MHATokenToKVPool", MHATokenToKVPool, 0))


def _guarded_runner(pool_cls, layers, draft, alg, alloc):
    mr = _triton_runner(pool_cls, draft, alg, alloc)
    mr.token_to_kv_pool.swa_layer_nums = layers
    mr.kv_index_translator.is_translating = False
    mr.model_config.is_local_attention_model = False
    mr.model_config.hf_text_config.num_attention_heads = 4
    mr.model_config.hf_text_config.attn_logit_softcapping = None
    return mr


def guard() -> dict:
    """Build each real backend whose SWA decision is inline in __init__ (triton,
    flash_attention, torch_native, intel_amx, xpu) over every input: own pool x draft x
    every algorithm x allocator's pool. The plugin's AFTER hook compares each with the table
    of places. The runtime-config getters they read are stand-ins: there is no server here."""
    import importlib

    from sglang.srt.speculative import spec_utils

    from swapool.swa.integrations.sglang import GUARDED
    out = {}
    for place, g in GUARDED.items():
        if place == "kv_index_translator":
            continue  # built from keyword arguments, not a model runner: see translator()
        module = importlib.import_module(g.module)
        cls = getattr(module, g.cls)
        for (label, pool_cls, layers), draft, alg, alloc in itertools.product(
                OWN_POOLS, (False, True), list(SpeculativeAlgorithm), (SWAKVPool, object)):
            for reader in (module, spec_utils):  # flash_attention asks spec_utils for draft token counts
                _stub_runtime_config(reader, alg.name)
            mr = _guarded_runner(pool_cls, layers, draft, alg, alloc)
            key = f"{place}: {label}, draft={draft}, {alg.name}, {alloc.__name__}"
            try:
                backend = cls(mr)
                out[key] = f"built: use_sliding_window_kv_pool={backend.use_sliding_window_kv_pool}"
            except Exception as exc:
                out[key] = f"{type(exc).__name__}: {exc}"
    return out


def _translator_pools() -> dict:
    """The runner pools the translator can be built with: label -> (spec class, attributes)."""
    from sglang.srt.mem_cache.deepseek_v4_memory_pool import DeepSeekV4TokenToKVPool
    from sglang.srt.mem_cache.memory_pool import HybridLinearKVPool
    from sglang.srt.mem_cache.unified_draft_pool import UnifiedDraftKVPool, UnifiedDraftSWAKVPool
    from sglang.srt.mem_cache.unified_memory_pool import UnifiedSWAKVPool

    return {"SWAKVPool": (SWAKVPool, {}), "BaseSWAKVPool": (BaseSWAKVPool, {}),
            "MHATokenToKVPool": (MHATokenToKVPool, {}),
            "DeepSeekV4TokenToKVPool": (DeepSeekV4TokenToKVPool, {"request_window": None}),
            "DeepSeekV4TokenToKVPool(request window)": (DeepSeekV4TokenToKVPool, {"request_window": MagicMock()}),
            "UnifiedSWAKVPool": (UnifiedSWAKVPool, {}), "HybridLinearKVPool": (HybridLinearKVPool, {}),
            "UnifiedDraftSWAKVPool": (UnifiedDraftSWAKVPool, {}), "UnifiedDraftKVPool": (UnifiedDraftKVPool, {})}


def _translator_allocators() -> dict:
    """The allocators: label -> (spec class, the class of the kvcache it holds in sglang)."""
    from sglang.srt.mem_cache.allocator.swa import SWATokenToKVPoolAllocator
    from sglang.srt.mem_cache.allocator.token import TokenToKVPoolAllocator
    from sglang.srt.mem_cache.allocator.unified_hybrid_swa import UnifiedSWATokenToKVPoolAllocator
    from sglang.srt.mem_cache.allocator.unified_mamba import UnifiedMambaTokenToKVPoolAllocator

    return {"TokenToKVPoolAllocator": (TokenToKVPoolAllocator, "MHATokenToKVPool"),
            "SWATokenToKVPoolAllocator": (SWATokenToKVPoolAllocator, "SWAKVPool"),
            "UnifiedSWATokenToKVPoolAllocator": (UnifiedSWATokenToKVPoolAllocator, "UnifiedSWAKVPool"),
            "UnifiedMambaTokenToKVPoolAllocator": (UnifiedMambaTokenToKVPoolAllocator, "HybridLinearKVPool")}


def _pool_mock(cls: type, attrs: dict) -> MagicMock:
    """A pool of class `cls` whose plain class-level defaults (BaseSWAKVPool's
    `request_window = None`) stay what they are on a real instance, not a truthy mock."""
    pool = MagicMock(spec=cls)
    if getattr(cls, "request_window", MagicMock) is None:
        pool.request_window = None
    for name, value in attrs.items():
        setattr(pool, name, value)
    return pool


def translator() -> dict:
    """The runner's KVIndexTranslator (its decision is inline in __init__), built over every
    runner the table of places describes for it: each runner pool with each allocator,
    which holds a kvcache of the class sglang gives it, and that kvcache is either another
    pool, the runner's own pool (a target; unified allocators only with their own pool
    class), or the host of the runner's fused draft pool (unified allocators). The plugin's
    AFTER hook compares each with the table (a disagreement is a refused build)."""
    from sglang.srt.mem_cache import kv_index_translator as kt

    from swapool.swa.integrations.sglang import GUARDED
    from swapool.swa.integrations.sglang_places import translator_decision
    _stub_runtime_config(kt)
    pools, allocators = _translator_pools(), _translator_allocators()
    unified = {"UnifiedSWATokenToKVPoolAllocator", "UnifiedMambaTokenToKVPoolAllocator"}
    out: dict = {}
    for (pool_label, (pool_cls, attrs)), (alloc_label, (alloc_cls, kv_label)), relation, draft in itertools.product(
            pools.items(), allocators.items(), ("separate", "holds the runner's pool", "fused draft host"),
            (False, True)):
        if relation == "holds the runner's pool" and (pool_label != kv_label and alloc_label in unified):
            continue  # sglang's unified allocators hold only their own kind of pool
        if relation == "fused draft host" and not (pool_label.startswith("UnifiedDraft") and alloc_label in unified):
            continue  # only a fused draft pool has a host allocator, always a unified one
        pool = _pool_mock(pool_cls, attrs)
        allocator = MagicMock(spec=alloc_cls)
        allocator.page_size = 1
        allocator.get_kvcache.return_value = (pool if relation == "holds the runner's pool"
                                              else _pool_mock(*pools[kv_label]))
        if pool_label.startswith("UnifiedDraft"):  # a fused draft pool always has a host: this one or another
            host = allocator if relation == "fused draft host" else MagicMock(spec=allocators[alloc_label][0])
            pool.host_allocator = host
        key = f"{pool_label} | {alloc_label} | {relation} | draft={draft}"
        try:
            built = kt.KVIndexTranslator(req_to_token=torch.zeros(2, 4, dtype=torch.int32),
                                         token_to_kv_pool_allocator=allocator, token_to_kv_pool=pool,
                                         page_size=1, device="cpu", is_draft_worker=draft)
            runner_view = GUARDED["kv_index_translator"].runner((), {"token_to_kv_pool": pool,
                                                                     "token_to_kv_pool_allocator": allocator})
            out[key] = "built: " + translator_decision(built, runner_view)[0]
        except Exception as exc:
            out[key] = f"{type(exc).__name__}: {exc}"
    return out


def aiter() -> dict:
    """AiterAttnBackend, which resolves the pool and then keeps it only with SWA layers
    (`swa_layer_nums > 0`), built over every input: own pool x draft x every algorithm x
    the allocator's pool (SWA with and without SWA layers, or not SWA). Each build's
    decision next to the table of places' answer for aiter. Its kernels are stand-ins;
    only the constructor runs (with the plugin off, sglang's own resolver decides)."""
    import os

    import sglang.srt.layers.attention.aiter_backend as ab
    from sglang.srt.speculative import spec_utils

    import swapool
    from swapool.swa.facts import runner_facts
    places = swapool.load_policy(os.environ.get("SWAPOOL_PLACES_POLICY") or REPO / "policies" / "swa_backends.yaml",
                                 import_enums=False).restrict(backend="aiter")
    out: dict = {"checked": 0, "disagreements": [], "decided": []}
    allocator_pools = (("SWAKVPool", SWAKVPool, 2), ("SWAKVPool(0 swa layers)", SWAKVPool, 0),
                       ("MHATokenToKVPool", MHATokenToKVPool, 0))
    for (label, pool_cls, layers), draft, alg, (kv_label, kv_cls, kv_layers) in itertools.product(
            OWN_POOLS, (False, True), list(SpeculativeAlgorithm), allocator_pools):
        for reader in (ab, spec_utils):
            _stub_runtime_config(reader, alg.name)
        mr = _guarded_runner(pool_cls, layers, draft, alg, object)
        mr.token_to_kv_pool.full_kv_pool = MagicMock(kv_cache_layout="nhd")
        mr.token_to_kv_pool.kv_cache_layout = "nhd"
        kv = mr.token_to_kv_pool_allocator.get_kvcache.return_value = MagicMock(spec=kv_cls)
        kv.swa_layer_nums = kv_layers
        built = ab.AiterAttnBackend(mr)
        code = ("none" if not built.use_sliding_window_kv_pool else "active" if built.swa_kv_pool is mr.token_to_kv_pool
                else "allocator" if built.swa_kv_pool is kv else "unrecognised")
        table = places.explain(**runner_facts(mr, (SWAKVPool,), places.table.input_names)).decision.output
        out["checked"] += 1
        out["decided"].append(code)
        if code != table:
            out["disagreements"].append([label, draft, alg.name, kv_label, code, table])
    out["decided"] = sorted(set(out["decided"]))
    return out


def construct() -> dict:
    """Build each backend from a stand-in model runner: the resolver runs in __init__."""
    out = {}
    for name, (cls, _) in BACKENDS.items():
        try:
            cls(MagicMock())
            out[name] = "built"
        except Exception as exc:  # report whatever stopped it
            out[name] = f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    return out


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    _stand_in_sgl_kernel()
    load_plugins()
    print(json.dumps({"hooked": hooked, "construct": construct, "regression": regression,
                      "guard": guard, "frozen_view": frozen_view, "translator": translator,
                      "aiter": aiter}[sys.argv[1]]()))
