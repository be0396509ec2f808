"""The sglang drop-in: install/uninstall on stand-in backend classes (everywhere), and
agreement with sglang's own resolvers (where sglang imports; see scripts/sglang_cpu_env.sh)."""

from __future__ import annotations

import enum
import importlib
import itertools
import json
import os
import re
import subprocess
import sys
import types
from unittest.mock import MagicMock

import pytest

from swapool import PolicyError, load_policy
from swapool.swa.integrations import sglang as integration

from ..helpers import SHIPPED, drifted_places

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
IdSpaceKind = enum.Enum("IdSpaceKind", "FULL SLIDING_WINDOW")


class UnifiedAllocator:
    """What sglang's unified allocators have and plain ones lack: virtual -> physical ids."""

    def __init__(self, kvcache):
        self.kvcache = kvcache

    def get_kvcache(self):
        return self.kvcache

    def translate_kv_loc(self, loc):
        return loc


class Translator:
    """A built KVIndexTranslator as the guard sees it: its SWA id space, keyed by its owner."""

    def __init__(self, owner):
        self.owner = owner

    def space(self, kind):
        assert kind is IdSpaceKind.SLIDING_WINDOW
        return None if self.owner is None else types.SimpleNamespace(key=(kind, id(self.owner)))


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
    module("sglang", __version__="0.5.23")
    for name in ["sglang.srt", "sglang.srt.layers", "sglang.srt.layers.attention", "sglang.srt.mem_cache"]:
        module(name)
    module("sglang.srt.mem_cache.swa_memory_pool", SWAKVPool=SWAKVPool)
    module("sglang.srt.mem_cache.base_swa_memory_pool", BaseSWAKVPool=BaseSWAKVPool)
    module("sglang.srt.layers.attention.flashinfer_backend", FlashInferAttnBackend=FlashInfer)
    module("sglang.srt.layers.attention.trtllm_mha_backend", TRTLLMHAAttnBackend=TRTLLM)
    module("sglang.srt.mem_cache.kv_loc_plan", IdSpaceKind=IdSpaceKind)
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
    assert triton.table.input_names == ("allocator_owns_active_pool", "active_pool", "active_swa_layers",
                                        "active_request_window", "is_draft_worker", "spec_algorithm",
                                        "allocator_kvcache", "allocator_swa_layers")
    for facts, mr in runners():
        want = mr.token_to_kv_pool if facts[0] in ("SWAKVPool", "OtherSWAPool") else None
        assert triton.resolve(mr, (BaseSWAKVPool,)) is want
        mr.token_to_kv_pool_allocator.get_kvcache.assert_not_called()


def test_the_resolver_reads_swa_layer_nums_only_of_a_swa_pool():
    """torch_native's view of the places table: its own pool, if SWA and with SWA layers."""
    torch_native = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False).restrict(
        backend="torch_native")
    for facts, mr in runners():
        for layers in (0, 3, None):  # None: the pool has no swa_layer_nums at all
            pool = mr.token_to_kv_pool = MagicMock(spec=SWAKVPool if facts[0] == "SWAKVPool" else PlainPool)
            if layers is not None:
                pool.swa_layer_nums = layers
            want = pool if facts[0] == "SWAKVPool" and layers else None
            assert torch_native.resolve(mr, (SWAKVPool,)) is want, (facts, layers)


def test_the_resolver_reads_the_translators_facts():
    """The translator's view of the places table: it reads whether the allocator owns the
    runner's pool and whether the pool has a request window."""
    translator = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False).restrict(
        backend="kv_index_translator")
    swa, windowed, plain_allocator = SWAKVPool(), SWAKVPool(), MagicMock(spec=["get_kvcache"])
    windowed.request_window = object()

    def runner(pool, allocator):
        return types.SimpleNamespace(token_to_kv_pool=pool, token_to_kv_pool_allocator=allocator,
                                     is_draft_worker=False, spec_algorithm=Algorithm.NONE)
    assert translator.resolve(runner(swa, plain_allocator), (BaseSWAKVPool,)) is swa
    assert translator.resolve(runner(windowed, plain_allocator), (BaseSWAKVPool,)) is None
    assert translator.resolve(runner(PlainPool(), plain_allocator), (BaseSWAKVPool,)) is None
    unified = UnifiedAllocator(swa)
    assert translator.resolve(runner(swa, unified), (BaseSWAKVPool,)) is swa  # 'allocator': its kvcache
    assert translator.resolve(runner(swa, UnifiedAllocator(SWAKVPool())), (BaseSWAKVPool,)) is swa  # not owned


# --- the real engine, where it imports ----------------------------------------------------

def real_sglang():
    try:
        # (scripts/sglang_cpu_env.sh's environment defines torchvision's operator schemas at start-up)
        from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend
        from sglang.srt.layers.attention.trtllm_mha_backend import TRTLLMHAAttnBackend
        from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool as RealBase
        from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool as RealSWA
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    except Exception as exc:  # sglang's import chain fails in many ways without its GPU stack
        why = (f"sglang is not importable here ({type(exc).__name__}: {exc}); "
               "run scripts/sglang_cpu_env.sh to set up an environment where it is")
        if os.environ.get("SWAPOOL_REQUIRE_SGLANG"):  # CI's sglang environment: never skip there
            pytest.fail(why)
        pytest.skip(why)
    return FlashInferAttnBackend, TRTLLMHAAttnBackend, RealBase, RealSWA, SpeculativeAlgorithm


def test_table_values_match_sglangs_speculative_algorithm():
    *_, SpeculativeAlgorithm = real_sglang()
    values = set(load_policy(SHIPPED, import_enums=False).table.inputs[2].values)
    members = set(SpeculativeAlgorithm.__members__)
    assert not members - values, f"missing from policies/swa.yaml: {sorted(members - values)}"
    assert not values - members, f"not members of SpeculativeAlgorithm: {sorted(values - members)}"


def test_plan_takes_the_installed_sglangs_attention_backend_values_and_they_are_the_shipped_ones():
    """`swapool plan` reads sglang's lists from its source; where sglang is the release the
    places were verified on, they are the shipped lists, and each flag value that builds
    a place builds it from the module and class the places table names."""
    real_sglang()
    import importlib.metadata

    from swapool.swa.integrations import sglang_places as places

    choices = places.flag_choices()
    assert choices.source.startswith("the installed sglang")
    if importlib.metadata.version("sglang") == places.VERIFIED_RELEASE:
        assert (choices.attention, choices.draft) == (places.ATTENTION_BACKEND_CHOICES,
                                                      places.DRAFT_ATTENTION_BACKEND_CHOICES)
    from sglang.srt.layers.attention import attention_registry

    source = importlib.util.find_spec("sglang.srt.layers.attention.attention_registry").origin
    text = open(source, encoding="utf-8").read()
    for flag, place in places.FLAG_PLACES.items():
        assert flag in attention_registry.ATTENTION_BACKENDS, flag
        body = text.split(f'@register_attention_backend("{flag}")', 1)[1].split("@register_attention_backend", 1)[0]
        assert places.PLACES[place].cls in body, (flag, place)


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


# --- the plugin, as sglang's load_plugins() runs it (a fresh process per scenario) ----------

PROBE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "sglang_plugin_probe.py")


def probe(scenario: str, **env: str) -> tuple[dict, str]:
    real_sglang()
    done = subprocess.run([sys.executable, PROBE, scenario], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_load_plugins_replaces_the_resolvers_and_they_answer_as_the_table():
    result, _ = probe("hooked")
    assert not result["disagreements"] and result["checked"] == 2 * 3 * 2 * 9 * 3
    assert all(name.startswith("swapool[") for name in result["resolvers"].values())


def test_sglangs_regression_checks_pass_with_the_plugin_loaded():
    result, _ = probe("regression")
    assert result == {"trtllm_mha": [], "flashinfer": []}


def test_a_table_that_reverts_the_eagle_fix_fails_those_checks(tmp_path):
    from ..helpers import dump, reverted_eagle_fix, shipped_data
    data = reverted_eagle_fix(shipped_data())
    del data["invariants"], data["cases"]  # valid: nothing in the table itself objects any more
    bad = tmp_path / "reverted.yaml"
    bad.write_text(dump(data))
    result, _ = probe("regression", SWAPOOL_POLICY=str(bad))
    for failures in result.values():
        assert failures == ["object, draft=True, EAGLE, SWAKVPool: expected none"]


def test_an_invalid_table_lets_load_plugins_return_and_stops_the_backend(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\ndecision: swa_kv_pool\nhit_policy: unique\ninputs:\n  active_pool: {values: [swa, other]}\n"
                   "output: {values: [active, none]}\nrules:\n  - {id: a, when: {active_pool: swa}, then: active}\n")
    result, log = probe("construct", SWAPOOL_POLICY=str(bad))
    for name in ("trtllm_mha", "flashinfer"):
        assert result[name].startswith("swapool.table.decider.PolicyError: swapool refuses to build")
        assert f"{bad}:7:1: error[gap]" in result[name] and "did not load" in result[name]


def test_the_plugin_can_be_turned_off():
    for env in ({"SWAPOOL_SGLANG_PLUGIN": "off"}, {"SGLANG_PLUGINS": "someone_else"}):
        result, _ = probe("hooked", **env)
        assert not any(name.startswith("swapool[") for name in result["resolvers"].values()), env


GUARDED_PLACES = ("triton", "flash_attention", "torch_native", "intel_amx", "xpu")


def _intended(policy, key: str) -> str:
    """What policies/swa.yaml intends for a guard probe's key ('triton: <own pool>, draft=..,
    <algorithm>, <allocator pool>'); these places check the concrete SWAKVPool."""
    place, rest = key.split(": ")
    label, draft, algorithm, alloc = rest.split(", ")
    return policy.decide(active_pool="swa" if label.startswith("SWAKVPool") else "other",
                         is_draft_worker=draft == "draft=True", spec_algorithm=algorithm,
                         allocator_kvcache="swa" if alloc == "SWAKVPool" else "other").output


def test_the_guard_starts_every_real_inline_backend_where_it_decides_as_the_policy_and_refuses_the_rest():
    """Differential test of the places whose decision is inline: each real constructor over
    every input (4 own pools x draft x every algorithm x 2 allocator pools). Where sglang's
    code decides as policies/swa.yaml intends, it starts; where it decides otherwise (the
    divergences `swapool plan` marks), the guard refuses naming both decisions."""
    result, log = probe("guard")
    policy = load_policy(SHIPPED, import_enums=False)
    per_place = {p: [k for k in result if k.startswith(p + ":")] for p in GUARDED_PLACES}
    assert all(len(keys) == 4 * 2 * len(_algorithm_members()) * 2 for keys in per_place.values())
    refused = {}
    for key, outcome in result.items():
        if outcome.startswith("built"):
            assert ("active" if outcome.endswith("=True") else "none") == _intended(policy, key), key
            continue
        m = re.search(r"decides '(\w+)' .* intends '(\w+)' there \(rule '[a-z-]+' at \S+swa\.yaml:\d+:\d+\)", outcome)
        assert outcome.startswith("PolicyError: swapool start-up guard: ") and m, (key, outcome)
        assert m.group(2) == _intended(policy, key) != m.group(1), key
        refused[key] = m.groups()
    names = [a.name for a in _algorithm_members()]
    # triton: a target whose own pool fails SWAKVPool while the allocator's passes, and the frozen-KV draft
    assert {k for k in refused if k.startswith("triton:")} == {
        f"triton: {pool}, draft={d}, {a}, SWAKVPool" for pool in ("BaseSWAKVPool", "MHATokenToKVPool")
        for d, a in [(False, a) for a in names] + [(True, "FROZEN_KV_MTP")]}
    # the others also ignore a SWA pool without SWA layers, which the policy would translate through
    assert {k for k in refused if k.startswith("torch_native:") and "(0 swa layers)" in k} == {
        k for k in per_place["torch_native"] if "(0 swa layers)" in k}
    assert "the start-up guard checks triton, flash_attention, torch_native, intel_amx, xpu" in log
    for place in GUARDED_PLACES:  # each real constructor logged what it decided, with the rule
        assert re.search(rf"swapool: {place} \(target, NONE\): active, .* by rule '[a-z-]+' at "
                         r".*swa_backends\.yaml:\d+:\d+ .*; sglang's code agrees", log), place
    warned, _ = probe("guard", SWAPOOL_SGLANG_GUARD="warn")
    assert all(v.startswith("built") for v in warned.values())


def _algorithm_members() -> list:
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    return list(SpeculativeAlgorithm)


def test_the_guard_refuses_the_real_triton_backend_when_code_and_table_disagree(tmp_path):
    places = drifted_places(tmp_path, "triton")
    result, _ = probe("guard", SWAPOOL_PLACES_POLICY=places)
    refused = {k: v for k, v in result.items() if "has drifted" in v}  # (the others: the policy's refusals)
    names = [a.name for a in _algorithm_members()]
    assert set(refused) == {f"triton: {pool}, draft={d}, {a}, SWAKVPool"
                            for pool in ("BaseSWAKVPool", "MHATokenToKVPool")
                            for d, a in [(False, a) for a in names] + [(True, "FROZEN_KV_MTP")]}
    message = refused["triton: MHATokenToKVPool, draft=False, NONE, SWAKVPool"]
    assert message.startswith("PolicyError: swapool start-up guard: sglang 0.5.23's triton "
                              "(sglang.srt.layers.attention.triton_backend.TritonAttnBackend)")
    assert "decided 'none' (use_sliding_window_kv_pool=False)" in message
    assert f"says 'allocator' by rule 'target-uses-allocator-swa' ({places}:" in message
    warned, log = probe("guard", SWAPOOL_PLACES_POLICY=places, SWAPOOL_SGLANG_GUARD="warn")
    assert all(v.startswith("built") for v in warned.values()) and "start-up guard" in log


def test_the_guard_refuses_torch_native_where_the_table_forgets_its_swa_layer_check(tmp_path):
    result, _ = probe("guard", SWAPOOL_PLACES_POLICY=drifted_places(tmp_path, "torch_native"))
    refused = {k for k, v in result.items() if "has drifted" in v}
    assert refused == {k for k in result if k.startswith("torch_native: SWAKVPool(0 swa layers),")}
    assert len(refused) == 2 * len(_algorithm_members()) * 2


TRANSLATED_BY_THE_ALLOCATOR = {
    "UnifiedSWAKVPool | UnifiedSWATokenToKVPoolAllocator | holds the runner's pool",
    "UnifiedDraftSWAKVPool | UnifiedSWATokenToKVPoolAllocator | fused draft host"}


def test_the_guard_lets_the_real_kv_index_translator_start_on_every_runner():
    """Differential test of the translator (its decision is inline in __init__): the real
    class built over 120 runners, every runner pool with every allocator (separate, holding
    the runner's pool, or hosting its fused draft pool); the plugin's guard compares each
    with the table of places, and every one starts. All three answers occur."""
    result, log = probe("translator")
    assert len(result) == 120 and all(v.startswith("built: ") for v in result.values()), \
        {k: v for k, v in result.items() if not v.startswith("built")}
    decided = {k: v.removeprefix("built: ") for k, v in result.items()}
    assert {k.rsplit(" | ", 1)[0] for k, v in decided.items() if v == "allocator"} == TRANSLATED_BY_THE_ALLOCATOR
    assert all(v == "none" for k, v in decided.items() if "(request window)" in k)
    assert decided["SWAKVPool | SWATokenToKVPoolAllocator | separate | draft=False"] == "active"
    for output in ("active", "allocator", "none"):  # the guard logged each answer with its rule
        assert re.search(rf"swapool: kv_index_translator \((target|draft)\): {output}, .* by rule '[a-z-]+' at "
                         r".*swa_backends\.yaml:\d+:\d+ .*; sglang's code agrees", log), output


@pytest.mark.parametrize("drift, refused_where, code, table", [
    ("kv_index_translator", lambda key: key.rsplit(" | ", 1)[0] in TRANSLATED_BY_THE_ALLOCATOR,
     "allocator", "active"),
    ("kv_index_translator/request_window", lambda key: key.startswith("DeepSeekV4TokenToKVPool(request window)"),
     "none", "active")])
def test_the_guard_refuses_the_real_translator_where_the_table_has_drifted(tmp_path, drift, refused_where, code,
                                                                           table):
    result, _ = probe("translator", SWAPOOL_PLACES_POLICY=drifted_places(tmp_path, drift))
    refused = {k: v for k, v in result.items() if not v.startswith("built")}
    assert set(refused) == {k for k in result if refused_where(k)} and refused
    message = next(iter(refused.values()))
    assert message.startswith("PolicyError: swapool start-up guard: sglang 0.5.23's kv_index_translator "
                              "(sglang.srt.mem_cache.kv_index_translator.KVIndexTranslator)")
    assert f"decided '{code}'" in message and f"says '{table}'" in message


def test_the_real_aiter_backend_decides_as_the_table_of_places_says(tmp_path):
    """Differential test of aiter (its resolver, then `swa_layer_nums > 0` of the pool it
    resolved, inline): the real class built over 216 inputs, with sglang's own resolver
    (plugin off) and with the table's (plugin on); a table that forgets the SWA-layer check
    for a target differs exactly where a target's allocator pool has no SWA layers."""
    for plugin in ("off", "on"):
        result, _ = probe("aiter", SWAPOOL_SGLANG_PLUGIN=plugin)
        assert result["checked"] == 4 * 2 * len(_algorithm_members()) * 3 and result["disagreements"] == []
        assert result["decided"] == ["active", "allocator", "none"]
    drifted, _ = probe("aiter", SWAPOOL_SGLANG_PLUGIN="off", SWAPOOL_PLACES_POLICY=drifted_places(tmp_path, "aiter"))
    assert sorted(map(tuple, drifted["disagreements"])) == sorted(
        (pool, False, alg.name, "SWAKVPool(0 swa layers)", "none", "allocator")
        for pool in ("BaseSWAKVPool", "MHATokenToKVPool") for alg in _algorithm_members())


def test_guard_check_compares_a_constructed_backend_with_the_table(fake_sglang, tmp_path, monkeypatch):
    """CPU twin of the guard: a stand-in backend object and model runner."""
    shipped_places = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False)
    drifted = load_policy(drifted_places(tmp_path), import_enums=False)
    for facts, mr in runners(pool_classes=(SWAKVPool, PlainPool)):
        code = types.SimpleNamespace(use_sliding_window_kv_pool=facts[0] == "SWAKVPool")
        integration.guard_check("triton", code, mr, policy=shipped_places)
        target_with_swa_allocator = facts[0] == "PlainPool" and facts[3] == "SWAKVPool" and (
            not facts[1] or facts[2] == "FROZEN_KV_MTP")
        if target_with_swa_allocator:
            with pytest.raises(PolicyError, match="decided 'none'.*says 'allocator'"):
                integration.guard_check("triton", code, mr, policy=drifted)
            monkeypatch.setenv("SWAPOOL_SGLANG_GUARD", "warn")
            integration.guard_check("triton", code, mr, policy=drifted)
            monkeypatch.delenv("SWAPOOL_SGLANG_GUARD")
        else:
            integration.guard_check("triton", code, mr, policy=drifted)


def test_guard_check_holds_the_code_to_the_policy_where_the_places_agree_with_it(fake_sglang, monkeypatch):
    """CPU twin of the intent check: triton as the shipped places describe it (and its code
    decides) refuses exactly where policies/swa.yaml reads through the allocator instead."""
    shipped_places = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False)
    policy = load_policy(SHIPPED, import_enums=False)
    refused = 0
    for facts, mr in runners(pool_classes=(SWAKVPool, PlainPool)):
        code = types.SimpleNamespace(use_sliding_window_kv_pool=facts[0] == "SWAKVPool")
        intended = policy.decide(active_pool="swa" if facts[0] == "SWAKVPool" else "other",
                                 is_draft_worker=facts[1], spec_algorithm=facts[2],
                                 allocator_kvcache="swa" if facts[3] == "SWAKVPool" else "other").output
        if intended == ("active" if facts[0] == "SWAKVPool" else "none"):
            integration.guard_check("triton", code, mr, policy=shipped_places, intended=policy)
            continue
        refused += 1
        with pytest.raises(PolicyError, match=f"decides 'none'.*as .*swa_backends.yaml.* describes it.*intends "
                                              f"'{intended}' there \\(rule '[a-z-]+' at .*swa.yaml:"):
            integration.guard_check("triton", code, mr, policy=shipped_places, intended=policy)
        monkeypatch.setenv("SWAPOOL_SGLANG_GUARD", "warn")
        integration.guard_check("triton", code, mr, policy=shipped_places, intended=policy)
        monkeypatch.delenv("SWAPOOL_SGLANG_GUARD")
    assert refused  # the target whose own pool is plain while the allocator's is SWA, and the frozen-KV draft


def test_guard_check_reads_the_translators_facts_and_its_id_space(fake_sglang, tmp_path):
    """CPU twin of the translator's guard: runners as the translator is given them, and
    what its id space says; each case is written out, with the outcome sglang's code has."""
    shipped_places = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False)
    (tmp_path / "u").mkdir()
    (tmp_path / "w").mkdir()
    unified_drift = load_policy(drifted_places(tmp_path / "u", "kv_index_translator"), import_enums=False)
    window_drift = load_policy(drifted_places(tmp_path / "w", "kv_index_translator/request_window"),
                               import_enums=False)
    view = integration.GUARDED["kv_index_translator"].runner
    swa, windowed, plain = SWAKVPool(), SWAKVPool(), PlainPool()
    windowed.request_window = object()
    plain_allocator = MagicMock(spec=["get_kvcache"])  # no translate_kv_loc: not unified
    plain_allocator.get_kvcache.return_value = swa
    unified = UnifiedAllocator(swa)
    fused = SWAKVPool()
    fused.host_allocator = unified

    def check(pool, allocator, owner, policy):
        runner = view((), {"token_to_kv_pool": pool, "token_to_kv_pool_allocator": allocator})
        integration.guard_check("kv_index_translator", Translator(owner), runner, policy=policy)

    for policy in (shipped_places, unified_drift, window_drift):
        check(swa, plain_allocator, swa, policy)          # its own pool's mapping
        check(plain, plain_allocator, None, policy)       # a plain pool opens no SWA space
    check(windowed, plain_allocator, None, shipped_places)
    with pytest.raises(PolicyError, match="decided 'none'.*says 'active' by rule 'translator-request-window'"):
        check(windowed, plain_allocator, None, window_drift)
    for pool in (swa, fused):  # a unified allocator owns the target's pool, or hosts the fused draft pool
        check(pool, unified, unified, shipped_places)
        with pytest.raises(PolicyError, match="decided 'allocator'.*says 'active'"):
            check(pool, unified, unified, unified_drift)
        with pytest.raises(PolicyError, match=r"decided 'active' \(SLIDING_WINDOW.*the runner's pool\).*"
                                              "allocator_owns_active_pool=True.*says 'allocator'"):
            check(pool, unified, pool, shipped_places)  # sglang's code, had it drifted to its own pool
    with pytest.raises(PolicyError, match="decided 'unrecognised'"):
        check(swa, plain_allocator, object(), shipped_places)


def test_guard_check_reads_swa_layer_nums_for_the_places_that_check_it(fake_sglang, tmp_path, monkeypatch):
    """CPU twin for the places with `swa_layer_nums > 0` in their check (torch_native here)."""
    shipped_places = load_policy(SHIPPED.parent / "swa_backends.yaml", import_enums=False)
    drifted = load_policy(drifted_places(tmp_path, "torch_native"), import_enums=False)
    for facts, mr in runners(pool_classes=(SWAKVPool, PlainPool)):
        for layers in (0, 2):
            mr.token_to_kv_pool.swa_layer_nums = layers
            code = types.SimpleNamespace(use_sliding_window_kv_pool=facts[0] == "SWAKVPool" and layers > 0)
            integration.guard_check("torch_native", code, mr, policy=shipped_places)
            if facts[0] == "SWAKVPool" and layers == 0:
                with pytest.raises(PolicyError, match="decided 'none'.*says 'active' by rule 'active-pool-is-swa'"):
                    integration.guard_check("torch_native", code, mr, policy=drifted)
            else:
                integration.guard_check("torch_native", code, mr, policy=drifted)


def test_frozen_kv_mtp_triton_draft_caches_a_pool_check_its_target_view_does_not_match():
    """The issue's question, on the real classes: the topk > 1 FROZEN_KV_MTP draft backend
    (triton, built from the draft runner's own dummy pool) keeps use_sliding_window_kv_pool
    from construction, while sglang's frozen_kv_target_view swaps a SWA target pool in."""
    result, _ = probe("frozen_view", SWAPOOL_SGLANG_GUARD="warn")
    assert result == {"at_construction": {"pool_is_swa": False, "use_sliding_window_kv_pool": False},
                      "in_target_view": {"pool_is_swa": True, "use_sliding_window_kv_pool": False}}


def test_the_guard_refuses_the_frozen_kv_mtp_triton_draft_naming_both_decisions():
    """What `swapool plan --attention-backend triton --speculative-algorithm FROZEN_KV_MTP`
    marks: the real constructor is refused, with sglang's decision and the policy's rule."""
    result, _ = probe("frozen_view")
    message = result["refused"]
    assert message.startswith("PolicyError: swapool start-up guard: sglang 0.5.23's triton "), message
    assert "decides 'none' (use_sliding_window_kv_pool=False)" in message
    assert re.search(r"intends 'allocator' there \(rule 'frozen-kv-draft-reads-target-swa' at \S+swa\.yaml:\d+:\d+\)",
                     message), message


def test_validate_strict_passes_on_the_shipped_tables_and_catches_a_misspelt_member(tmp_path, capsys):
    """With the real enum imported (no `enum-import` note), the shipped tables hold every
    member and nothing else; a misspelt name appended to a list fails --strict at its own
    line:col, in both tables that read the list."""
    real_sglang()
    from swapool.cli import main

    from ..helpers import add_algorithms

    assert main(["validate", "--strict", str(SHIPPED.parent)]) == 0, capsys.readouterr().out
    assert "enum-import" not in capsys.readouterr().out
    folder = add_algorithms(tmp_path, owner="EAGEL")
    assert main(["validate", "--strict", str(folder)]) == 1
    out = capsys.readouterr().out
    line = next(i for i, ln in enumerate((folder / "swa.yaml").read_text().splitlines(), 1) if "EAGEL" in ln)
    column = (folder / "swa.yaml").read_text().splitlines()[line - 1].index("EAGEL") + 1
    where = f"{folder / 'swa.yaml'}:{line}:{column}: warning[enum-extra-value]: value EAGEL"
    assert out.count(where) == 2, out


def test_the_algorithm_aliases_plan_maps_are_the_ones_sglang_resolves():
    real_sglang()
    from sglang.srt.arg_groups import speculative_hook

    from swapool.swa.integrations.sglang_places import ALGORITHM_ALIASES

    for given, becomes in ALGORITHM_ALIASES.items():
        assert speculative_hook._resolve_speculative_algorithm_alias(given, None, False) == becomes  # no draft model
