"""Run in a fresh process over whichever sglang release is first on the path: load sglang's
plugins as a server would, then build every place swapool knows over the seed's inputs
and report, as JSON, what each build did.

    python tests/sglang_release_probe.py

Written against no single release: module paths and keyword arguments are looked up, and
the runtime-config getters a module reads (there is no server here) are stand-ins. Only
constructors run. A build's decision is read off the built object (the pool it kept, else
its flag), not through swapool.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import json
import logging
import sys
from unittest.mock import MagicMock

import torch

import sglang
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
from sglang.srt.plugins import load_plugins
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

from sglang_runner import model_fields  # (beside this script)
from swapool.swa.integrations.sglang_places import PLACES

_ops = None


def _class(*places: str):
    """The first of `module:Class` that imports (sglang moved some classes between releases)."""
    for where in places:
        module, name = where.split(":")
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    raise ImportError(f"none of {places}")


def _stub_runtime_config(module, algorithm: str) -> None:
    config = MagicMock(speculative_num_draft_tokens=1, speculative_eagle_topk=1, attn_dcp_size=1, attn_dcp_rank=0,
                       tp_size=1, attn_tp_size=1, attn_cp_size=1, dp_size=1, pp_size=1, enable_dp_attention=False,
                       speculative_algorithm=algorithm)
    for getter in ("get_exec", "get_spec", "get_parallel", "get_schedule", "get_memory", "get_model",
                   "get_global_server_args"):
        if hasattr(module, getter):
            setattr(module, getter, lambda: config)
    for getter, value in (("get_attention_tp_size", 1), ("get_attention_tp_rank", 0), ("get_attention_dp_size", 1)):
        if hasattr(module, getter):  # no process groups here
            setattr(module, getter, lambda value=value: value)


def _build(factory):
    """Call `factory`; a kernel library name the module only binds on a GPU machine (flashinfer's
    wrappers) gets a stand-in in the module that looked it up, and the call is made again."""
    for _ in range(30):
        try:
            return factory()
        except NameError as exc:
            frame = exc.__traceback__
            while frame.tb_next is not None:
                frame = frame.tb_next
            frame.tb_frame.f_globals[exc.name] = MagicMock(name=exc.name)
    return factory()


def _pool(cls, swa_layers: int):
    pool = MagicMock(spec=cls)
    pool.swa_layer_nums = swa_layers
    pool.full_kv_pool = MagicMock(kv_cache_layout="nhd")
    pool.kv_cache_layout = "nhd"
    pool.full_to_swa_index_mapping = MagicMock()
    if getattr(cls, "request_window", MagicMock) is None:
        pool.request_window = None
    return pool


def _runner(own, draft: bool, algorithm, allocator_kv, allocator_cls):
    mr = MagicMock()
    mr.token_to_kv_pool = own
    mr.is_draft_worker = draft
    mr.spec_algorithm = algorithm
    mr.token_to_kv_pool_allocator = MagicMock(spec=allocator_cls)
    mr.token_to_kv_pool_allocator.get_kvcache.return_value = allocator_kv
    mr.token_to_kv_pool_allocator.page_size = 1
    model_fields(mr, torch.float16)
    mr.model_config.is_local_attention_model = False
    mr.model_config.hf_text_config.num_attention_heads = 4
    mr.model_config.hf_text_config.attn_logit_softcapping = None
    mr.kv_index_translator.is_translating = False
    mr.server_args.dllm_algorithm = None
    mr.tp_size = mr.ps.tp_size = 1
    return mr


def _decided(built, mr) -> str:
    """The pool the build kept (trtllm_mha and flashinfer translate through `_swa_kv_pool`; aiter
    through `swa_kv_pool` while its flag is set), else its flag (the inline backends)."""
    for name, flagged in (("_swa_kv_pool", False), ("swa_kv_pool", True)):
        if name in vars(built):
            pool = vars(built)[name]
            if pool is None or flagged and not built.use_sliding_window_kv_pool:
                return "none"
            return ("active" if pool is mr.token_to_kv_pool else
                    "allocator" if pool is mr.token_to_kv_pool_allocator.get_kvcache() else "unrecognised")
    if hasattr(built, "use_sliding_window_kv_pool"):
        return "active" if built.use_sliding_window_kv_pool else "none"
    return "unread"


def build_all() -> dict:
    mha = _class("sglang.srt.mem_cache.memory_pool:MHATokenToKVPool")
    swa_allocator = _class("sglang.srt.mem_cache.allocator.swa:SWATokenToKVPoolAllocator",
                           "sglang.srt.mem_cache.swa_memory_pool:SWATokenToKVPoolAllocator")
    plain_allocator = _class("sglang.srt.mem_cache.allocator.token:TokenToKVPoolAllocator",
                             "sglang.srt.mem_cache.allocator:TokenToKVPoolAllocator")
    algorithms = [a for a in SpeculativeAlgorithm if a.name in ("NONE", "EAGLE", "FROZEN_KV_MTP")]
    out: dict = {}
    for place, spec in PLACES.items():
        try:
            module = importlib.import_module(spec.module)
        except ModuleNotFoundError:
            out[place] = "absent"
            continue
        cls = getattr(module, spec.cls)
        for own, draft, alg, alloc in itertools.product(("SWAKVPool", "MHATokenToKVPool"), (False, True), algorithms,
                                                        ("SWAKVPool", "MHATokenToKVPool")):
            for reader in [m for n, m in list(sys.modules.items()) if n.startswith("sglang.") and m is not None]:
                _stub_runtime_config(reader, alg.name)
            own_pool = _pool(SWAKVPool, 2) if own == "SWAKVPool" else _pool(mha, 0)
            kv = _pool(SWAKVPool, 2) if alloc == "SWAKVPool" else _pool(mha, 0)
            if own == alloc == "SWAKVPool":
                kv = own_pool  # the allocator holds the runner's own SWA pool (a target's, or a frozen-KV draft's)
            mr = _runner(own_pool, draft, alg, kv, swa_allocator if alloc == "SWAKVPool" else plain_allocator)
            key = f"{place}: {own}, draft={draft}, {alg.name}, {alloc}"
            try:
                if place == "kv_index_translator":
                    accepted = inspect.signature(cls.__init__.__wrapped__ if hasattr(cls.__init__, "__wrapped__")
                                                 else cls.__init__).parameters
                    kwargs = {"req_to_token": torch.zeros(2, 4, dtype=torch.int32),
                              "token_to_kv_pool_allocator": mr.token_to_kv_pool_allocator,
                              "token_to_kv_pool": own_pool, "page_size": 1, "device": "cpu", "is_draft_worker": draft}
                    _build(lambda: cls(**{k: v for k, v in kwargs.items() if k in accepted}))
                    out[key] = "built"
                else:
                    out[key] = "built: " + _decided(_build(lambda: cls(mr)), mr)
            except Exception as exc:  # a refusal, or a constructor that cannot run here (reported as such)
                out[key] = f"{type(exc).__name__}: {exc}"
                resolve = getattr(cls, "_resolve_swa_kv_pool", None)
                if not str(exc).startswith("swapool") and resolve is not None:
                    # the constructor needs more of a GPU than stand-ins give; the resolver it calls does not
                    pool = resolve(mr)
                    out[key] = "resolved: " + ("none" if pool is None else "active" if pool is mr.token_to_kv_pool
                                               else "allocator" if pool is kv else "unrecognised")
    return out


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    _ops = torch.library.Library("sgl_kernel", "DEF")  # intel_amx looks its CPU ops up at construction
    _ops.define("decode_attention_cpu(Tensor x) -> Tensor")
    _ops.define("extend_attention_cpu(Tensor x) -> Tensor")
    load_plugins()
    print(json.dumps({"release": sglang.__version__, "places": build_all()}))
