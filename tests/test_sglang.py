"""The sglang drop-in: install/uninstall on stand-in backend classes (everywhere), and
agreement with sglang's own resolvers (where sglang imports; see scripts/sglang_cpu_env.sh)."""

from __future__ import annotations

import enum
import importlib
import itertools
import sys
import types
from unittest.mock import MagicMock

import pytest

from swapool import load_policy
from swapool.swa.integrations import sglang as integration

from .helpers import SHIPPED

ALGORITHMS = "DFLASH UNO DSPARK EAGLE EAGLE3 FROZEN_KV_MTP STANDALONE NGRAM NONE"


# --- stand-ins shaped like sglang 0.5.23 (module paths, class names, static resolvers) ---

class BaseSWAKVPool:
    def translate_loc_from_full_to_swa(self, loc):
        return loc


class SWAKVPool(BaseSWAKVPool):
    pass


class OtherSWAPool(BaseSWAKVPool):
    """A SWA pool that is not the concrete SWAKVPool: the backends' checks disagree on it."""


class PlainPool:
    pass


Algorithm = enum.Enum("SpeculativeAlgorithm", ALGORITHMS)


def _original(pool_cls):
    def _resolve_swa_kv_pool(model_runner):
        active = model_runner.token_to_kv_pool
        if isinstance(active, pool_cls):
            return active
        if model_runner.is_draft_worker and model_runner.spec_algorithm.name != "FROZEN_KV_MTP":
            return None
        kv = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return kv if isinstance(kv, pool_cls) else None
    return staticmethod(_resolve_swa_kv_pool)


@pytest.fixture
def fake_sglang(monkeypatch):
    mods = {}

    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        mods[name] = m
        monkeypatch.setitem(sys.modules, name, m)
        return m

    FlashInfer = type("FlashInferAttnBackend", (), {"_resolve_swa_kv_pool": _original(BaseSWAKVPool)})
    TRTLLM = type("TRTLLMHAAttnBackend", (FlashInfer,), {"_resolve_swa_kv_pool": _original(SWAKVPool)})
    for name in ["sglang", "sglang.srt", "sglang.srt.layers", "sglang.srt.layers.attention", "sglang.srt.mem_cache"]:
        module(name)
    module("sglang.srt.mem_cache.swa_memory_pool", SWAKVPool=SWAKVPool)
    module("sglang.srt.mem_cache.base_swa_memory_pool", BaseSWAKVPool=BaseSWAKVPool)
    module("sglang.srt.layers.attention.flashinfer_backend", FlashInferAttnBackend=FlashInfer)
    module("sglang.srt.layers.attention.trtllm_mha_backend", TRTLLMHAAttnBackend=TRTLLM)
    yield {"flashinfer": FlashInfer, "trtllm_mha": TRTLLM}
    integration.uninstall()


def runners(pool_classes=(SWAKVPool, OtherSWAPool, PlainPool), algorithms=Algorithm):
    for active, draft, alg, alloc in itertools.product(pool_classes, [False, True], list(algorithms), pool_classes):
        mr = MagicMock()
        mr.token_to_kv_pool = MagicMock(spec=active)
        mr.is_draft_worker = draft
        mr.spec_algorithm = alg
        mr.token_to_kv_pool_allocator.get_kvcache.return_value = MagicMock(spec=alloc)
        yield (active.__name__, draft, alg.name, alloc.__name__), mr


def test_importing_without_sglang_works_and_calling_explains(monkeypatch):
    monkeypatch.setitem(sys.modules, "sglang", None)
    mod = importlib.reload(integration)
    with pytest.raises(mod.SGLangUnavailable, match="needs sglang"):
        mod.make_resolver("flashinfer")
    with pytest.raises(mod.SGLangUnavailable):
        mod.install()


def test_unknown_backend_is_named():
    with pytest.raises(ValueError, match="unknown sglang backend 'vllm'"):
        integration.pool_types("vllm")


def test_install_replaces_idempotently_and_uninstall_restores(fake_sglang):
    originals = {k: cls.__dict__["_resolve_swa_kv_pool"] for k, cls in fake_sglang.items()}
    assert sorted(integration.install()) == ["flashinfer", "trtllm_mha"]  # aiter does not import here
    assert integration.install() == []
    for cls in fake_sglang.values():
        assert cls._resolve_swa_kv_pool.__qualname__.startswith("swapool[")
    assert sorted(integration.uninstall()) == ["flashinfer", "trtllm_mha"]
    for k, cls in fake_sglang.items():
        assert cls.__dict__["_resolve_swa_kv_pool"] is originals[k]


def test_installed_resolver_is_the_generated_code_itself(fake_sglang):
    """No wrapper call between sglang and the decision: the backend's check is compiled in."""
    integration.install(["flashinfer"], policy=load_policy(SHIPPED))
    fn = fake_sglang["flashinfer"]._resolve_swa_kv_pool
    assert fn.__code__.co_filename.startswith("<swapool resolver")
    assert fn.__defaults__ == ((BaseSWAKVPool,),)


def test_installed_resolvers_agree_with_each_backends_own_check(fake_sglang):
    """flashinfer accepts any BaseSWAKVPool; trtllm_mha only the concrete SWAKVPool."""
    originals = {k: cls._resolve_swa_kv_pool for k, cls in fake_sglang.items()}
    integration.install(["flashinfer", "trtllm_mha"], policy=load_policy(SHIPPED))
    disagreements = 0
    for facts, mr in runners():
        got = {k: cls._resolve_swa_kv_pool(mr) for k, cls in fake_sglang.items()}
        want = {k: fn(mr) for k, fn in originals.items()}
        assert got == want, facts
        disagreements += got["flashinfer"] is not got["trtllm_mha"]
    assert disagreements > 0  # the per-backend check matters on these inputs


def test_backend_table_restricted_to_a_backend_matches_the_single_table(fake_sglang):
    backends = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False)
    shipped = integration.make_resolver("flashinfer", policy=load_policy(SHIPPED))
    per_backend = integration.make_resolver("flashinfer", policy=backends)
    for facts, mr in runners():
        assert per_backend(mr) is shipped(mr), facts


def test_triton_in_the_backend_table_ignores_drafts_and_the_allocator():
    triton = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False).restrict(backend="triton")
    assert triton.table.input_names == ("active_pool", "is_draft_worker", "spec_algorithm", "allocator_kvcache")
    for facts, mr in runners():
        want = mr.token_to_kv_pool if facts[0] in ("SWAKVPool", "OtherSWAPool") else None
        assert triton.resolve(mr, (BaseSWAKVPool,)) is want
        mr.token_to_kv_pool_allocator.get_kvcache.assert_not_called()


# --- the real engine, where it imports ----------------------------------------------------

def real_sglang():
    try:
        import torch
        try:
            lib = torch.library.Library("torchvision", "DEF")
            lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            real_sglang.keep = lib
        except RuntimeError:
            pass  # already defined (a real torchvision, or an earlier call)
        from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend
        from sglang.srt.layers.attention.trtllm_mha_backend import TRTLLMHAAttnBackend
        from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool as RealBase
        from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool as RealSWA
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    except Exception as exc:  # sglang's import chain fails in many ways without its GPU stack
        pytest.skip(f"sglang is not importable here ({type(exc).__name__}: {exc}); "
                    "run scripts/sglang_cpu_env.sh to set up an environment where it is")
    return FlashInferAttnBackend, TRTLLMHAAttnBackend, RealBase, RealSWA, SpeculativeAlgorithm


def test_table_values_match_sglangs_speculative_algorithm():
    *_, SpeculativeAlgorithm = real_sglang()
    values = set(load_policy(SHIPPED, import_enums=False).table.inputs[2].values)
    members = set(SpeculativeAlgorithm.__members__)
    assert not members - values, f"missing from policies/swa.yaml: {sorted(members - values)}"
    assert not values - members, f"not members of SpeculativeAlgorithm: {sorted(values - members)}"


def test_swapool_agrees_with_sglangs_own_resolvers_on_every_input():
    FlashInfer, TRTLLM, RealBase, RealSWA, SpeculativeAlgorithm = real_sglang()
    pool_classes = (RealSWA, RealBase, object)
    checked = 0
    for name, cls in (("flashinfer", FlashInfer), ("trtllm_mha", TRTLLM)):
        ours = integration.make_resolver(name, policy=load_policy(SHIPPED))
        theirs = cls.__dict__["_resolve_swa_kv_pool"].__func__
        for facts, mr in runners(pool_classes, SpeculativeAlgorithm):
            assert ours(mr) is theirs(mr), (name, facts)
            checked += 1
    assert checked == 2 * 3 * 2 * len(SpeculativeAlgorithm) * 3
