"""CPU twin of the sglang plugin as `load_plugins()` runs it: a stand-in sglang package on
disk (module paths and class names of 0.5.23, each backend's SWA decision as sglang writes
it), imported after the plugin ran, as a server's scheduler does. The real engine and a real
server start are in tests/suites/test_sglang.py and tests/suites/test_sglang_server.py."""

from __future__ import annotations

import logging
import re
import sys
import textwrap
import types
from pathlib import Path
from unittest.mock import MagicMock

import pytest

from swapool import PolicyError
from swapool.swa.integrations import post_import, sglang_plugin
from swapool.swa.integrations import sglang as integration
from swapool.swa.integrations.sglang_places import BACKENDS, GUARDED

from ..helpers import SHIPPED

ATTENTION = "sglang/srt/layers/attention"
POOLS = "sglang/srt/mem_cache"
RESOLVER = """
            @staticmethod
            def _resolve_swa_kv_pool(model_runner):
                active = model_runner.token_to_kv_pool
                if isinstance(active, {check}):
                    return active
                if model_runner.is_draft_worker and model_runner.spec_algorithm.name != "FROZEN_KV_MTP":
                    return None
                kv = model_runner.token_to_kv_pool_allocator.get_kvcache()
                return kv if isinstance(kv, {check}) else None
"""
SOURCES = {
    "sglang/__init__.py": "__version__ = '0.5.23'\n",
    f"{POOLS}/base_swa_memory_pool.py": """
        class BaseSWAKVPool:
            def translate_loc_from_full_to_swa(self, loc):
                return loc
    """,
    f"{POOLS}/swa_memory_pool.py": """
        from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool
        class SWAKVPool(BaseSWAKVPool):
            pass
    """,
    f"{ATTENTION}/flashinfer_backend.py": """
        from sglang.srt.mem_cache.base_swa_memory_pool import BaseSWAKVPool
        class FlashInferAttnBackend:
            def __init__(self, model_runner, init_new_workspace=False):
                self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
    """ + RESOLVER.format(check="BaseSWAKVPool"),
    f"{ATTENTION}/trtllm_mha_backend.py": """
        from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend
        from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
        class TRTLLMHAAttnBackend(FlashInferAttnBackend):
            def __init__(self, model_runner):
                super().__init__(model_runner)
                self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
    """ + RESOLVER.format(check="SWAKVPool"),
    f"{ATTENTION}/triton_backend.py": """
        from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
        class TritonAttnBackend:
            def __init__(self, model_runner, skip_prefill=False):
                self.use_sliding_window_kv_pool = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
    """,
}
SpeculativeAlgorithm = types.SimpleNamespace(**{n: types.SimpleNamespace(name=n) for n in ("NONE", "EAGLE")})


@pytest.fixture
def fake_sglang(tmp_path, monkeypatch):
    """Write the stand-in package, put it first on sys.path, and forget it afterwards."""
    root = tmp_path / "site"

    def write(sources: dict[str, str]) -> None:
        for rel, text in sources.items():
            path = root / rel
            for folder in [path.parent, *path.parent.parents]:
                if folder == root:
                    break
                folder.mkdir(parents=True, exist_ok=True)
                (folder / "__init__.py").touch()
            path.write_text(textwrap.dedent(text))
    write(SOURCES)
    monkeypatch.syspath_prepend(str(root))
    for name in [m for m in sys.modules if m == "sglang" or m.startswith("sglang.")]:
        monkeypatch.delitem(sys.modules, name)  # a real sglang imported by other tests comes back afterwards
    for env in ("SWAPOOL_POLICY", "SWAPOOL_PLACES_POLICY", "SWAPOOL_SGLANG_PLUGIN", "SWAPOOL_SGLANG_GUARD"):
        monkeypatch.delenv(env, raising=False)
    integration._said.clear()
    yield write
    post_import.forget_all()
    for name in [m for m in sys.modules if m == "sglang" or m.startswith("sglang.")]:
        del sys.modules[name]


def imported(module: str):
    __import__(module)
    return sys.modules[module]


def pools():
    return (imported("sglang.srt.mem_cache.swa_memory_pool").SWAKVPool,
            imported("sglang.srt.mem_cache.base_swa_memory_pool").BaseSWAKVPool)


def runner(active, draft: bool, algorithm: str, allocator):
    mr = MagicMock()
    mr.token_to_kv_pool = active
    mr.is_draft_worker = draft
    mr.spec_algorithm = getattr(SpeculativeAlgorithm, algorithm)
    mr.token_to_kv_pool_allocator.get_kvcache.return_value = allocator
    return mr


def backend(place: str) -> type:
    spec = {**BACKENDS, **GUARDED}[place]
    return getattr(imported(spec.module), spec.cls)


def test_the_plugin_imports_nothing_and_patches_each_place_when_sglang_imports_it(fake_sglang):
    watched = sglang_plugin.plugin()
    assert watched == [*BACKENDS, *GUARDED]
    # nothing imported on sglang's behalf (the table's enum binding may look for its own module)
    assert not [m for m in sys.modules if m.startswith(("sglang.srt.layers", "sglang.srt.mem_cache"))]
    assert sorted(post_import.watched()) == sorted({p.module for p in {**BACKENDS, **GUARDED}.values()})
    for place in ("trtllm_mha", "flashinfer"):
        resolve = backend(place).__dict__["_resolve_swa_kv_pool"].__func__
        assert resolve.__qualname__ == f"swapool[{place}]._resolve_swa_kv_pool"
    assert backend("triton")._swapool_place == "triton"


def test_the_replaced_resolvers_answer_as_sglangs_own_on_every_input(fake_sglang):
    SWAKVPool, BaseSWAKVPool = pools()
    own = {p: backend(p).__dict__["_resolve_swa_kv_pool"].__func__ for p in ("trtllm_mha", "flashinfer")}
    for m in [m for m in sys.modules if "attention." in m]:
        del sys.modules[m]  # imported again after the plugin, as a server would
    sglang_plugin.plugin()
    for place, theirs in own.items():
        ours = backend(place)._resolve_swa_kv_pool
        assert ours is not theirs
        for active in (SWAKVPool(), BaseSWAKVPool(), object()):
            for draft in (False, True):
                for algorithm in ("NONE", "EAGLE"):
                    for allocator in (SWAKVPool(), BaseSWAKVPool(), object()):
                        mr = runner(active, draft, algorithm, allocator)
                        assert ours(mr) is theirs(mr), (place, active, draft, algorithm, allocator)


def swapool_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "swapool"]


def test_each_place_built_logs_what_it_decided_once_with_rule_and_line(fake_sglang, caplog):
    caplog.set_level(logging.INFO, logger="swapool")
    sglang_plugin.plugin()
    SWAKVPool, _ = pools()
    draft = runner(object(), True, "EAGLE", SWAKVPool())
    for _ in range(3):  # a multi-step draft builds one backend per step
        backend("trtllm_mha")(draft)
    backend("triton")(runner(SWAKVPool(), False, "NONE", SWAKVPool()))
    start, *decisions = swapool_lines(caplog)
    assert start.startswith(f"swapool: sglang plugin active: {SHIPPED} (sha256:")
    assert "decides trtllm_mha, flashinfer, aiter" in start and "swa_backends.yaml" in start
    assert len(decisions) == 2  # trtllm_mha's parent (flashinfer) says nothing for it
    rule = integration.load_policy(SHIPPED).rule("draft-owns-its-kv")
    assert decisions[0] == (f"swapool: trtllm_mha (draft, EAGLE): none, no SWA pool (untranslated), by rule "
                            f"'draft-owns-its-kv' at {rule.span} [active_pool=other, "
                            "is_draft_worker=True, spec_algorithm=EAGLE]; the table's resolver decides")
    assert re.fullmatch(r"swapool: triton \(target, NONE\): active, its own pool's SWA mapping, by rule '[a-z-]+' "
                        r"at .*swa_backends\.yaml:\d+:\d+ \[active_pool=swa.*\]; sglang's code agrees "
                        r"\(use_sliding_window_kv_pool=True\)", decisions[1])


INVALID = ("format: 1\ndecision: swa_kv_pool\nhit_policy: unique\ninputs:\n  active_pool: {values: [swa, other]}\n"
           "output: {values: [active, none]}\nrules:\n  - {id: a, when: {active_pool: swa}, then: active}\n")


def build_each(places=("trtllm_mha", "flashinfer", "triton")) -> dict[str, BaseException]:
    SWAKVPool, _ = pools()
    errors = {}
    for place in places:
        with pytest.raises(Exception) as caught:
            backend(place)(runner(SWAKVPool(), False, "NONE", SWAKVPool()))
        errors[place] = caught.value
    return errors


def test_a_table_that_does_not_load_makes_every_place_refuse_with_its_diagnostics(fake_sglang, tmp_path,
                                                                                monkeypatch):
    bad = tmp_path / "bad.yaml"
    bad.write_text(INVALID)
    monkeypatch.setenv("SWAPOOL_POLICY", str(bad))
    assert sglang_plugin.plugin()  # never raises: sglang would swallow it
    for place, error in build_each().items():
        assert isinstance(error, PolicyError)
        assert str(error).startswith(f"swapool refuses to build sglang's {place}: the SWA pool policy did not load")
        assert f"{bad}:7:1: error[gap]" in str(error) and "SWAPOOL_SGLANG_PLUGIN=off" in str(error)


def test_a_places_table_that_does_not_load_is_named_as_such(fake_sglang, tmp_path, monkeypatch):
    bad = tmp_path / "places.yaml"
    bad.write_text(INVALID)
    monkeypatch.setenv("SWAPOOL_PLACES_POLICY", str(bad))
    sglang_plugin.plugin()
    for place, error in build_each().items():
        assert isinstance(error, PolicyError), place
        assert "the table of places" in str(error) and "SWA pool policy" not in str(error)
        assert f"{bad}:7:1: error[gap]" in str(error)


def test_an_empty_places_table_variable_is_refused_not_read_as_the_shipped_one(fake_sglang, monkeypatch):
    monkeypatch.setenv("SWAPOOL_PLACES_POLICY", "")
    sglang_plugin.plugin()
    assert all("SWAPOOL_PLACES_POLICY is set but empty" in str(e) for e in build_each().values())


@pytest.mark.parametrize("breakage", ["loading raises", "swapool does not import", "patching raises"])
def test_whatever_else_goes_wrong_the_places_refuse_with_the_reason(fake_sglang, monkeypatch, breakage):
    def boom(*args, **kwargs):
        raise RuntimeError("something unexpected")
    if breakage == "loading raises":
        monkeypatch.setattr(integration, "load_tables", boom)
    elif breakage == "swapool does not import":
        monkeypatch.setitem(sys.modules, "swapool.swa.integrations.sglang", None)
        monkeypatch.delattr(sys.modules["swapool.swa.integrations"], "sglang")
    else:
        monkeypatch.setattr(integration, "patch", boom)
    sglang_plugin.plugin()
    for place, error in build_each().items():
        assert isinstance(error, sglang_plugin.RefusedPlace), (place, error)
        assert f"refuses to build sglang's {place}" in str(error)
        reason = "ModuleNotFoundError" if breakage == "swapool does not import" else "RuntimeError: something unexpected"
        assert reason in str(error) and "Traceback" in str(error)


def test_a_place_whose_class_is_missing_fails_its_modules_import(fake_sglang):
    fake_sglang({f"{ATTENTION}/triton_backend.py": "class SomethingElse:\n    pass\n"})
    sglang_plugin.plugin()
    with pytest.raises(sglang_plugin.RefusedPlace, match="triton_backend has no class TritonAttnBackend"):
        imported("sglang.srt.layers.attention.triton_backend")


def test_a_module_imported_before_the_plugin_without_its_class_leaves_every_other_place_watched(fake_sglang,
                                                                                               caplog):
    """sglang logs and swallows what plugin() raises: had it raised for the first module, no
    later place would be watched."""
    fake_sglang({f"{ATTENTION}/trtllm_mha_backend.py": "class SomethingElse:\n    pass\n"})
    imported("sglang.srt.layers.attention.trtllm_mha_backend")
    assert sglang_plugin.plugin() == [*BACKENDS, *GUARDED]
    assert "trtllm_mha_backend has no class TRTLLMHAAttnBackend" in caplog.text
    assert sorted(post_import.watched()) == sorted({p.module for p in {**BACKENDS, **GUARDED}.values()})
    for place in ("flashinfer", "triton"):
        assert vars(backend(place))["_swapool_place"] == place


def test_a_module_executed_again_is_patched_again(fake_sglang):
    import importlib

    sglang_plugin.plugin()
    first = backend("triton")
    module = importlib.reload(sys.modules[GUARDED["triton"].module])
    assert module.TritonAttnBackend is not first and vars(module.TritonAttnBackend)["_swapool_place"] == "triton"
    backend("trtllm_mha")
    del sys.modules[BACKENDS["flashinfer"].module], sys.modules[BACKENDS["trtllm_mha"].module]
    again = backend("trtllm_mha")  # imported afresh, as after sglang's modules were dropped
    assert again.__dict__["_resolve_swa_kv_pool"].__func__.__qualname__ == "swapool[trtllm_mha]._resolve_swa_kv_pool"
    SWAKVPool, _ = pools()
    again(runner(object(), True, "EAGLE", SWAKVPool()))  # the table's resolver is in force: it builds


def test_a_second_plugin_call_is_harmless(fake_sglang, caplog):
    caplog.set_level(logging.INFO, logger="swapool")
    sglang_plugin.plugin()
    cls = backend("trtllm_mha")
    sglang_plugin.plugin()
    SWAKVPool, _ = pools()
    cls(runner(object(), True, "EAGLE", SWAKVPool()))  # was refused: "no longer the table's resolver"
    backend("triton")(runner(SWAKVPool(), False, "NONE", SWAKVPool()))
    assert [line.split(":")[1] for line in swapool_lines(caplog)] == [" sglang plugin active", " trtllm_mha (draft, EAGLE)",
                                                                     " triton (target, NONE)"]


def test_one_watcher_per_process_even_from_a_second_copy_of_the_watcher_module(tmp_path, monkeypatch):
    """Two watchers on sys.meta_path would each ask the other for the module, without end."""
    import importlib

    module = package(tmp_path, monkeypatch, "watched_pkg_c")
    post_import.when_imported(module, lambda m: None)
    copy = importlib.reload(post_import)  # what a second copy of swapool on the path amounts to
    seen = []
    copy.when_imported(module, lambda m: seen.append(m.VALUE))
    try:
        assert sum(getattr(f, copy.MARK, False) for f in sys.meta_path) == 1
        imported(module)
        assert seen == [1]
    finally:
        copy.forget_all()
        sys.modules.pop(module, None), sys.modules.pop("watched_pkg_c", None)


def test_a_resolver_replaced_after_the_plugin_is_refused_at_construction(fake_sglang):
    """As a later REPLACE hook (another plugin's, through sglang's HookRegistry) would."""
    sglang_plugin.plugin()
    cls = backend("flashinfer")
    cls._resolve_swa_kv_pool = staticmethod(lambda model_runner: None)
    error = build_each(("flashinfer",))["flashinfer"]
    assert isinstance(error, PolicyError) and "no longer the table's resolver" in str(error)


def test_code_that_drifted_from_the_places_table_is_refused_naming_place_facts_and_rule(fake_sglang):
    fake_sglang({f"{ATTENTION}/triton_backend.py": """
        class TritonAttnBackend:  # a revert: the flag no longer follows the pool
            def __init__(self, model_runner, skip_prefill=False):
                self.use_sliding_window_kv_pool = False
    """})
    sglang_plugin.plugin()
    error = build_each(("triton",))["triton"]
    assert isinstance(error, PolicyError)
    assert re.match(r"swapool start-up guard: sglang 0\.5\.23's triton \(sglang\.srt\.layers\.attention\.triton_backend\."
                    r"TritonAttnBackend\) decided 'none' \(use_sliding_window_kv_pool=False\) for active_pool=swa.*"
                    r"says 'active' by rule '[a-z-]+' \(.*swa_backends\.yaml:\d+:\d+\)", str(error))


# --- releases: each place as that release of sglang decides it --------------------------

PRE_FIX_TRTLLM = """
    from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
    class TRTLLMHAAttnBackend(FlashInferAttnBackend):  # 0.5.12: the allocator's pool, drafts or not
        def __init__(self, model_runner):
            super().__init__(model_runner)
            allocator = model_runner.token_to_kv_pool_allocator
            kv = allocator.get_kvcache()
            self.use_sliding_window_kv_pool = isinstance(kv, SWAKVPool)
            self._swa_kv_pool = kv if self.use_sliding_window_kv_pool else None
"""
PER_CALL_FLASHINFER = """
    class FlashInferAttnBackend:  # up to 0.5.13: the allocator is checked at each forward pass
        def __init__(self, model_runner, init_new_workspace=False):
            self.token_to_kv_pool_allocator = model_runner.token_to_kv_pool_allocator
"""


def release(fake_sglang, version: str, sources: dict[str, str] | None = None) -> None:
    fake_sglang({"sglang/__init__.py": f"__version__ = {version!r}\n", **(sources or {})})


def test_on_0_5_12_trtllm_mha_is_guarded_and_the_pre_fix_eagle_draft_refused(fake_sglang, caplog):
    caplog.set_level(logging.INFO, logger="swapool")
    release(fake_sglang, "0.5.12", {f"{ATTENTION}/trtllm_mha_backend.py": PRE_FIX_TRTLLM,
                                    f"{ATTENTION}/flashinfer_backend.py": PER_CALL_FLASHINFER})
    sglang_plugin.plugin()
    SWAKVPool, _ = pools()
    cls = backend("trtllm_mha")
    assert "_resolve_swa_kv_pool" not in vars(cls)  # nothing replaced: sglang 0.5.12 would not call it
    swa = SWAKVPool()
    cls(runner(swa, False, "NONE", swa))  # a target: its own pool, which the allocator holds
    with pytest.raises(PolicyError) as refused:
        cls(runner(object(), True, "EAGLE", SWAKVPool()))
    assert str(refused.value).startswith("swapool start-up guard: sglang 0.5.12's trtllm_mha (sglang.srt.layers."
                                         "attention.trtllm_mha_backend.TRTLLMHAAttnBackend) decides 'allocator' "
                                         "(_swa_kv_pool is the allocator's pool)")
    assert re.search(r"intends 'none' there \(rule 'draft-owns-its-kv' at .*swa\.yaml:\d+:\d+\)", str(refused.value))
    lines = swapool_lines(caplog)
    assert not [line for line in lines if "the table's resolver decides" in line]
    assert re.search(r"swapool: trtllm_mha \(target, NONE\): active, .*; sglang's code agrees \(_swa_kv_pool is the "
                     r"runner's pool\)", "\n".join(lines))
    start = next(line for line in lines if "plugin active" in line)
    assert "decides no place; the start-up guard checks trtllm_mha, aiter, flash_attention against" in start
    assert start.endswith("in sglang 0.5.12 swapool cannot check flashinfer, triton, torch_native, intel_amx, xpu: "
                          "each refuses a runner with a SWA pool")


def test_a_decision_swapool_cannot_check_refuses_runners_with_a_swa_pool_naming_the_release(fake_sglang, caplog):
    caplog.set_level(logging.INFO, logger="swapool")
    release(fake_sglang, "0.5.13", {f"{ATTENTION}/flashinfer_backend.py": PER_CALL_FLASHINFER})
    sglang_plugin.plugin()
    SWAKVPool, BaseSWAKVPool = pools()
    cls = backend("flashinfer")
    for mr in (runner(SWAKVPool(), False, "NONE", SWAKVPool()), runner(object(), True, "EAGLE", BaseSWAKVPool())):
        with pytest.raises(sglang_plugin.RefusedPlace, match=r"swapool refuses to build sglang 0\.5\.13's flashinfer "
                                                              r"\(.*FlashInferAttnBackend\) for a runner with a SWA pool: "
                                                              r"sglang 0\.5\.13 decides it at each forward pass"):
            cls(mr)
    cls(runner(object(), False, "NONE", object()))  # no SWA pool anywhere: nothing to decide, it builds
    assert "swapool: flashinfer (target, NONE): no SWA pool to translate through; swapool does not check sglang " \
           "0.5.13's flashinfer" in "\n".join(swapool_lines(caplog))


@pytest.mark.parametrize("version, why", [("0.5.24", "outside the releases swapool was verified on (0.5.12 to 0.5.23)"),
                                          ("0.5.11", "outside the releases swapool was verified on"),
                                          ("0.5.24rc1", "not a release swapool knows")])
def test_a_release_outside_the_verified_range_refuses_every_place_with_a_swa_pool(fake_sglang, version, why):
    release(fake_sglang, version)
    sglang_plugin.plugin()
    SWAKVPool, _ = pools()
    for place in ("trtllm_mha", "flashinfer", "triton"):
        with pytest.raises(sglang_plugin.RefusedPlace) as refused:
            backend(place)(runner(SWAKVPool(), False, "NONE", SWAKVPool()))
        assert f"sglang {version}'s {place}" in str(refused.value) and why in str(refused.value), place
    assert "swapool" not in backend("flashinfer").__dict__["_resolve_swa_kv_pool"].__func__.__qualname__


def test_a_constructor_not_shaped_as_its_release_says_is_refused_naming_what_differs(fake_sglang):
    release(fake_sglang, "0.5.23", {f"{ATTENTION}/trtllm_mha_backend.py": """
        from sglang.srt.layers.attention.flashinfer_backend import FlashInferAttnBackend
        class TRTLLMHAAttnBackend(FlashInferAttnBackend):  # a resolver no constructor calls
            def __init__(self, model_runner):
                super().__init__(model_runner)
            @staticmethod
            def _resolve_swa_kv_pool(model_runner):
                return None
    """})
    sglang_plugin.plugin()
    SWAKVPool, _ = pools()
    with pytest.raises(sglang_plugin.RefusedPlace, match=r"sglang 0\.5\.23's trtllm_mha .* its constructor is not shaped "
                                                          r"as swapool read it in that release \(TRTLLMHAAttnBackend\."
                                                          r"__init__ does not use _resolve_swa_kv_pool; expected a "
                                                          r"decision by resolver\)"):
        backend("trtllm_mha")(runner(SWAKVPool(), False, "NONE", SWAKVPool()))


@pytest.mark.parametrize("value", ["off", "0", "false", "no"])
def test_opting_out_touches_nothing(fake_sglang, monkeypatch, value):
    monkeypatch.setenv("SWAPOOL_SGLANG_PLUGIN", value)
    assert sglang_plugin.plugin() == []
    assert post_import.watched() == []
    assert "_swapool_place" not in vars(backend("triton"))


# --- the post-import watcher on its own ---------------------------------------------------

def package(tmp_path: Path, monkeypatch, name: str) -> str:
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").touch()
    (tmp_path / name / "mod.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}.mod"


def test_a_watched_module_is_handed_over_after_it_runs_or_at_once_if_it_already_has(tmp_path, monkeypatch):
    module = package(tmp_path, monkeypatch, "watched_pkg_a")
    seen = []
    post_import.when_imported(module, lambda m: seen.append(m.VALUE))
    assert seen == []
    imported(module)
    post_import.when_imported(module, lambda m: seen.append(m.VALUE + 1))
    assert seen == [1, 2] and module in post_import.watched()
    post_import.forget_all()
    del sys.modules[module], sys.modules["watched_pkg_a"]


def test_a_callback_that_raises_fails_the_import_and_the_next_import_is_watched_again(tmp_path, monkeypatch):
    module = package(tmp_path, monkeypatch, "watched_pkg_b")
    calls = []

    def callback(m):
        calls.append(m)
        if len(calls) == 1:
            raise RuntimeError("refused")
    post_import.when_imported(module, callback)
    with pytest.raises(RuntimeError, match="refused"):
        imported(module)
    assert module not in sys.modules
    imported(module)
    assert len(calls) == 2
    post_import.forget_all()
    del sys.modules[module], sys.modules["watched_pkg_b"]


# --- swapool doctor: what the plugin will do here ------------------------------------------

def doctor(capsys, *flags: str) -> tuple[int, str]:
    from swapool.cli import main

    code = main(["doctor", *flags])
    return code, capsys.readouterr().out


def test_doctor_says_what_the_plugin_does_to_each_place_of_the_installed_release(fake_sglang, capsys):
    release(fake_sglang, "0.5.12", {f"{ATTENTION}/trtllm_mha_backend.py": PRE_FIX_TRTLLM,
                                    f"{ATTENTION}/flashinfer_backend.py": PER_CALL_FLASHINFER,
                                    "sglang/srt/plugins/__init__.py": "def load_plugins():\n    pass\n"})
    imported("sglang")
    code, out = doctor(capsys)
    assert code == 1, out
    lines = {line.split()[0]: line.split(None, 1)[1] for line in out.splitlines()[3:]}
    assert out.startswith("sglang 0.5.12 (swapool verified 0.5.12 to 0.5.23)\nplugin: on\n")
    assert lines["trtllm_mha"] == "start-up guard: checks what the constructor decided (_swa_kv_pool)"
    assert lines["flashinfer"].startswith("refuses a runner with a SWA pool: sglang 0.5.12 decides it at each "
                                          "forward pass")
    assert lines["triton"].startswith("refuses a runner with a SWA pool")  # 0.5.12's triton decides per call
    assert lines["kv_index_translator"] == "not in sglang 0.5.12: nothing to watch"
    assert "_swapool_place" not in vars(backend("trtllm_mha"))  # it looks; it patches nothing


def test_doctor_exits_0_where_the_table_is_in_force_everywhere_and_says_when_the_plugin_is_off(fake_sglang, capsys,
                                                                                                monkeypatch):
    import json

    fake_sglang({"sglang/srt/plugins/__init__.py": "def load_plugins():\n    pass\n"})
    imported("sglang")
    code, out = doctor(capsys, "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["in_force"] and report["sglang"] == "0.5.23", out
    kinds = {p["place"]: p.get("kind") for p in report["places"]}
    assert kinds["trtllm_mha"] == kinds["flashinfer"] == "resolver" and kinds["triton"] == "flag"
    assert not [p for p in report["places"] if p["place"] == "aiter"][0]["found"]  # no module in this stand-in
    monkeypatch.setenv("SWAPOOL_SGLANG_PLUGIN", "off")
    code, out = doctor(capsys)
    assert code == 1 and "plugin: off (SWAPOOL_SGLANG_PLUGIN=off): sglang's own code decides every place" in out


def test_the_plugin_runs_with_the_collector_paused_and_leaves_it_as_it_found_it(fake_sglang):
    """In a server process a full collection over sglang's heap costs ~0.2 s: none may start
    during the plugin's work (benchmarks/plugin_start.py measures the whole call)."""
    import gc

    from swapool.swa.policy import clear_cache

    started = []
    callback = lambda phase, info: phase == "start" and started.append(info["generation"])  # noqa: E731
    gc.callbacks.append(callback)
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            clear_cache()  # the tables are loaded afresh, as in a new process
            started.clear()
            sglang_plugin.plugin()
            # (one young collection may fall in the few allocations before the pause; the loading of
            # both tables, unpaused, runs dozens)
            assert len(started) <= 1 and 2 not in started and gc.isenabled() is enabled, started
            post_import.forget_all()
    finally:
        gc.callbacks.remove(callback)
        gc.enable()
