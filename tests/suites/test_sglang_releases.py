"""Every place on the sglang releases operators run: each real class built (or, where its
constructor needs a GPU, its resolver called) over the seed's inputs, in a fresh process
with that release first on the path and the plugin loaded as a server loads it. On every
release each place either decides as policies/swa.yaml says or refuses naming the release and
the place; no log line claims the table's resolver decides where sglang does not call it.

The older releases come from scripts/sglang_releases.sh (SWAPOOL_SGLANG_RELEASES names its
folder); the newest is the sglang environment's own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from swapool import load_policy
from swapool.swa.integrations.sglang_places import release_key

from ..helpers import SHIPPED

PROBE = Path(__file__).resolve().parent.parent / "sglang_release_probe.py"
RELEASES = os.environ.get("SWAPOOL_SGLANG_RELEASES")
#: Where each release calls `_resolve_swa_kv_pool` from a constructor (read from its source,
#: not from swapool's table): the only places whose log may say the table's resolver decides.
CALLS_THE_RESOLVER = {"0.5.12": set(), "0.5.13": {"trtllm_mha"}, "0.5.19": {"trtllm_mha", "flashinfer"},
                      "0.5.23": {"trtllm_mha", "flashinfer", "aiter"}}


def release_env(release: str) -> dict[str, str]:
    """The environment a process of `release` runs in: the newest is the sglang environment's
    own; an older one first on PYTHONPATH, from scripts/sglang_releases.sh's folder."""
    if release == "0.5.23":
        from .test_sglang import real_sglang
        real_sglang()
        return dict(os.environ)
    if not RELEASES:
        why = "SWAPOOL_SGLANG_RELEASES is not set: run scripts/sglang_releases.sh for the older sglang releases"
        if os.environ.get("SWAPOOL_REQUIRE_SGLANG"):  # CI's sglang environment: never skip there
            pytest.fail(why)
        pytest.skip(why)
    root = Path(RELEASES)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (root / release / "site", root / release / "pins",
                                                                   root / "common")))}


def run_probe(release: str) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, timeout=600,
                          env=release_env(release))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


@pytest.mark.parametrize("release", ["0.5.12", "0.5.13", "0.5.19", "0.5.23"])
def test_every_place_decides_as_the_policy_or_refuses_naming_release_and_place(release):
    result, log = run_probe(release)
    assert result["release"] == release
    policy = load_policy(SHIPPED, import_enums=False)
    outcomes = {"decided": 0, "refused": 0}
    for key, outcome in result["places"].items():
        place, _, inputs = key.partition(": ")
        if not inputs:
            assert outcome == "absent" and place == "kv_index_translator" and release_key(release) < (0, 5, 19), \
                (key, outcome)
            continue
        own, draft, algorithm, allocator = inputs.split(", ")
        intended = policy.decide(active_pool="swa" if own == "SWAKVPool" else "other",
                                 is_draft_worker=draft == "draft=True", spec_algorithm=algorithm,
                                 allocator_kvcache="swa" if allocator == "SWAKVPool" else "other").output
        with_swa = "SWAKVPool" in (own, allocator)
        if re.match(r"(RefusedPlace|PolicyError): swapool", outcome):
            assert f"sglang {release}'s {place} (" in outcome, (key, outcome)
            outcomes["refused"] += 1
        elif outcome.startswith(("built: ", "resolved: ")) and place != "kv_index_translator":
            decided = outcome.split(": ", 1)[1]
            assert decided == intended or (decided == "unread" and not with_swa), (key, outcome, intended)
            outcomes["decided"] += 1
        else:  # the translator is held to the table of places, not to the policy; else only where
            # there is no SWA pool at all (swapool leaves that constructor alone) may it fail on a CPU
            assert outcome == "built" and place == "kv_index_translator" or not with_swa, (key, outcome)
    assert outcomes["decided"] and outcomes["refused"], outcomes
    claimed = set(re.findall(r"swapool: (\w+) \([^)]*\): .*; the table's resolver decides", log))
    assert claimed <= CALLS_THE_RESOLVER[release], claimed


def test_on_0_5_12_the_pre_fix_eagle_draft_is_refused_and_flashinfer_refuses_swa_runners():
    """The accept-length bug of the seed's fix, in the release that still has it."""
    result, log = run_probe("0.5.12")
    places = result["places"]
    assert re.search(r"decides 'allocator' \(_swa_kv_pool is the allocator's pool\).*intends 'none' there \(rule "
                     r"'draft-owns-its-kv'", places["trtllm_mha: MHATokenToKVPool, draft=True, EAGLE, SWAKVPool"])
    assert places["trtllm_mha: MHATokenToKVPool, draft=True, FROZEN_KV_MTP, SWAKVPool"] == "built: allocator"
    refused = places["flashinfer: MHATokenToKVPool, draft=True, EAGLE, SWAKVPool"]
    assert refused.startswith("RefusedPlace: swapool refuses to build sglang 0.5.12's flashinfer") and \
        "decides it at each forward pass" in refused
    assert "the table's resolver decides" not in log
    assert "in sglang 0.5.12 swapool cannot check flashinfer, triton, torch_native, intel_amx, xpu" in log


@pytest.mark.parametrize("release, in_force", [("0.5.12", False), ("0.5.13", False), ("0.5.19", True),
                                               ("0.5.23", True)])
def test_doctor_in_the_servers_environment_says_what_the_plugin_does_there(release, in_force):
    done = subprocess.run([sys.executable, "-m", "swapool", "doctor", "--format", "json"], capture_output=True,
                          text=True, timeout=300, env=release_env(release))
    report = json.loads(done.stdout)
    assert report["sglang"] == release and report["in_force"] is in_force and done.returncode == (0 if in_force else 1)
    kinds = {p["place"]: p.get("kind") for p in report["places"]}
    assert {place for place, kind in kinds.items() if kind == "resolver"} == CALLS_THE_RESOLVER[release]


def test_doctor_prints_on_0_5_12_what_the_operators_guide_shows():
    from .test_docs import ROOT, code_blocks, matches

    block = next(b for b in code_blocks(ROOT / "docs" / "sglang.md") if b[0] == "(sglang 0.5.12) $ swapool doctor")
    done = subprocess.run([sys.executable, "-m", "swapool", "doctor"], capture_output=True, text=True, timeout=300,
                          env=release_env("0.5.12"))
    assert done.returncode == 1 and matches(block[1:], done.stdout.splitlines()), done.stdout


def test_plan_says_when_the_installed_release_decides_otherwise_than_the_one_it_plans():
    done = subprocess.run([sys.executable, "-m", "swapool", "plan", "--attention-backend", "trtllm_mha", "--format",
                           "json"], capture_output=True, text=True, timeout=300, env=release_env("0.5.13"))
    report = json.loads(done.stdout)
    assert report["installed_sglang"] == "0.5.13"
    assert report["decides_otherwise"] == ["flashinfer", "aiter", "kv_index_translator"]
