"""Real `python -m sglang.launch_server` starts on CPU (sglang 0.5.23, the environment of
scripts/sglang_cpu_env.sh), with swapool installed as sglang finds plugins: what an operator
sees in the server's own log, at sglang's default log level, is what these tests read.

The model is a tiny random-weight hybrid-SWA Llama made here (tests/sglang_cpu/tiny_model.py),
for which sglang builds its two-pool SWA cache. sgl_kernel is a stand-in whose functions all
raise if called; no successful start here calls one.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..helpers import SHIPPED, drifted_places

HERE = Path(__file__).resolve().parents[1]
PLACES = SHIPPED.parent / "swa_backends.yaml"
START_TIMEOUT_S = 240


def _require_server_environment() -> None:
    try:
        import sglang.launch_server  # noqa: F401
        import uvicorn  # noqa: F401
    except Exception as exc:
        why = (f"sglang's server does not import here ({type(exc).__name__}: {exc}); run "
               "scripts/sglang_cpu_env.sh to set up an environment where it does")
        if os.environ.get("SWAPOOL_REQUIRE_SGLANG"):  # CI's sglang environment: never skip there
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    _require_server_environment()
    folder = tmp_path_factory.mktemp("tiny-hybrid-swa")
    subprocess.run([sys.executable, str(HERE / "sglang_cpu" / "tiny_model.py"), str(folder)], check=True,
                   capture_output=True, timeout=300)
    return folder


@dataclass
class Start:
    served: str | None  # the text of one /generate, or None if the server never came up
    returncode: int | None  # the launcher's exit status if it ended by itself
    log: str

    def swapool_lines(self) -> list[str]:
        """The server log's lines from swapool, without sglang's timestamp prefix."""
        return [m.group(1) for m in re.finditer(r"^\[[^\]]*\] (swapool.*)$", self.log, re.M)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def launch(model: Path, log_path: Path, *flags: str, **env: str) -> Start:
    """Start the server as an operator would, wait until it serves (then ask it for a
    generation) or exits, and stop it. sglang kills its own process tree when a scheduler
    fails, so a failed start ends by itself, non-zero."""
    port = _free_port()
    command = [sys.executable, "-m", "sglang.launch_server", "--model-path", str(model), "--device", "cpu",
               "--attention-backend", "torch_native", "--max-total-tokens", "4096", "--skip-server-warmup",
               "--host", "127.0.0.1", "--port", str(port), *flags]
    environment = {**os.environ, "SGLANG_USE_CPU_ENGINE": "1", **env}
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environment,
                                  start_new_session=True)
    served, deadline = None, time.monotonic() + START_TIMEOUT_S
    try:
        while time.monotonic() < deadline and server.poll() is None:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5)
            except OSError:
                time.sleep(2)
                continue
            answer = _post(f"http://127.0.0.1:{port}/generate",
                           {"text": "the pool", "sampling_params": {"max_new_tokens": 4, "temperature": 0}})
            served = answer["text"]
            break
    finally:
        returncode = server.poll()
        if returncode is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
    return Start(served, returncode, log_path.read_text(errors="replace"))


RULE_AT = r"by rule '[a-z0-9-]+' at \S+\.yaml:\d+:\d+"
GUIDE = HERE.parent / "docs" / "sglang.md"  # the operator guide, which quotes real server logs


def _shortened(line: str) -> str:
    """Paths shortened as the guide shows them, digests masked: an edit of a table (names
    appended) changes its digest, not what the guide says about the start."""
    return re.sub(r"sha256:[0-9a-f]{12}", "sha256:<digest>", re.sub(r"/\S*/(policies/|bad\.yaml)", r".../\1", line))


def readme_lines(kind: str) -> list[str]:
    """The server-log lines docs/sglang.md quotes (timestamp dropped, paths shortened as there):
    `start` the plain start's, `draft` the draft runner's, `refusal` a broken table's."""
    quoted = [_shortened(q) for q in re.findall(r"^\[[^\]]*\] (swapool.*)$", GUIDE.read_text(), re.M)]
    pick = {"start": lambda q: q.startswith("swapool: ") and "(draft" not in q,
            "draft": lambda q: "(draft" in q, "refusal": lambda q: q.startswith("swapool refuses")}[kind]
    lines = [q for q in quoted if pick(q)]
    assert lines, kind
    return lines


def assert_readme_quotes(start: "Start", kind: str) -> None:
    seen = {_shortened(line) for line in start.swapool_lines()}
    for quoted in readme_lines(kind):
        assert quoted in seen, f"docs/sglang.md quotes a line this start did not log:\n{quoted}\nlogged:\n" + \
            "\n".join(sorted(seen))


def test_a_start_serves_and_the_log_says_what_every_place_decided(model, tmp_path):
    start = launch(model, tmp_path / "server.log")
    assert start.served is not None, start.log[-4000:]
    lines = start.swapool_lines()
    assert lines[0].startswith(f"swapool: sglang plugin active: {SHIPPED} (sha256:"), lines
    assert f"against {PLACES} (sha256:" in lines[0]
    decided = {line.split(" (")[0].removeprefix("swapool: "): line for line in lines[1:]}
    assert set(decided) == {"kv_index_translator", "torch_native"}, lines
    assert re.fullmatch(rf"swapool: torch_native \(target, NONE\): active, its own pool's SWA mapping, {RULE_AT} "
                        r"\[active_pool=swa, active_swa_layers=True\]; sglang's code agrees "
                        r"\(use_sliding_window_kv_pool=True\)", decided["torch_native"])
    assert re.fullmatch(rf"swapool: kv_index_translator \(target\): active, its own pool's SWA mapping, {RULE_AT} "
                        r"\[.*\]; sglang's code agrees \(SLIDING_WINDOW id space of the runner's pool\)",
                        decided["kv_index_translator"])
    assert "aiter is AMD specific" not in start.log  # no backend module imported on sglang's behalf
    assert_readme_quotes(start, "start")


INVALID = ("format: 1\ndecision: swa_kv_pool\nhit_policy: unique\ninputs:\n  active_pool: {values: [swa, other]}\n"
           "output: {values: [active, none]}\nrules:\n  - {id: a, when: {active_pool: swa}, then: active}\n")


def test_a_broken_table_stops_the_start_with_its_file_line_and_column(model, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(INVALID)
    start = launch(model, tmp_path / "server.log", SWAPOOL_POLICY=str(bad))
    assert start.served is None and start.returncode == -signal.SIGKILL  # sglang kills its own process tree
    assert re.search(r"swapool refuses to build sglang's kv_index_translator: the SWA pool policy did not load: "
                     rf"policy {re.escape(str(bad))} is invalid", start.log)
    assert f"{bad}:7:1: error[gap]: no rule decides active_pool=other" in start.log
    assert_readme_quotes(start, "refusal")
    # and the findings docs/sglang.md shows under that line, as the log has them
    shown = GUIDE.read_text().split("] swapool refuses to build", 1)[1].split("\n[", 1)[0].splitlines()[1:]
    logged = {_shortened(line) for line in start.log.splitlines()}
    assert len(shown) == 3 and all(line in logged for line in shown), shown


def test_a_broken_places_table_stops_the_start_naming_the_places_table(model, tmp_path):
    bad = tmp_path / "places.yaml"
    bad.write_text(INVALID)
    start = launch(model, tmp_path / "server.log", SWAPOOL_PLACES_POLICY=str(bad))
    assert start.served is None and start.returncode not in (None, 0)
    assert "did not load: policy" in start.log and "the table of places" in start.log
    assert "the SWA pool policy did not load" not in start.log
    assert f"{bad}:7:1: error[gap]" in start.log


def test_a_drifted_places_table_makes_the_guard_refuse_naming_place_facts_and_rule(model, tmp_path):
    drifted = drifted_places(tmp_path, "kv_index_translator/own_pool")
    start = launch(model, tmp_path / "server.log", SWAPOOL_PLACES_POLICY=drifted)
    assert start.served is None and start.returncode not in (None, 0)
    assert re.search(r"swapool start-up guard: sglang \S+'s kv_index_translator \(sglang\.srt\.mem_cache\."
                     r"kv_index_translator\.KVIndexTranslator\) decided 'active' \(SLIDING_WINDOW id space of the "
                     r"runner's pool\) for .*active_pool=swa.*, but \S+places\.yaml\[backend=kv_index_translator\] "
                     r"says 'none' by rule 'translator-writes-through-its-pool' \(\S+places\.yaml:\d+:\d+\)",
                     start.log)


@pytest.mark.parametrize("opt_out", [{"SWAPOOL_SGLANG_PLUGIN": "off"}, {"SGLANG_PLUGINS": "someone_else"}],
                         ids=["SWAPOOL_SGLANG_PLUGIN=off", "SGLANG_PLUGINS"])
def test_opting_out_starts_with_sglangs_own_logic_and_says_nothing(model, tmp_path, opt_out):
    """With a drifted places table that would refuse the start: it starts, unguarded."""
    drifted = drifted_places(tmp_path, "kv_index_translator/own_pool")
    start = launch(model, tmp_path / "server.log", SWAPOOL_PLACES_POLICY=drifted, **opt_out)
    assert start.served is not None, start.log[-4000:]
    assert start.swapool_lines() == []


def test_a_draft_start_guards_the_drafts_backend_at_construction(model, tmp_path):
    """As far as a CPU allows: a STANDALONE draft (the tiny model drafting for itself) with a
    triton draft backend. Any speculative start runs sgl_kernel's KV copy at pool creation,
    which the stand-in refuses; sglang skips that copy for the HND KV layout
    (SGLANG_USE_HND_KVCACHE=1), so the start gets through every backend's construction. Its
    first forward then fails (triton kernels, HND on torch_native: not for a CPU)."""
    start = launch(model, tmp_path / "server.log", "--speculative-algorithm", "STANDALONE",
                   "--speculative-draft-model-path", str(model), "--speculative-num-steps", "2",
                   "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
                   "--speculative-draft-attention-backend", "triton", SGLANG_USE_HND_KVCACHE="1")
    lines = start.swapool_lines()
    assert any(re.fullmatch(rf"swapool: triton \(draft, STANDALONE\): active, its own pool's SWA mapping, {RULE_AT} "
                            r"\[active_pool=swa\]; sglang's code agrees \(use_sliding_window_kv_pool=True\)", line)
               for line in lines), lines
    assert any(line.startswith("swapool: kv_index_translator (draft): active") for line in lines), lines
    assert any(line.startswith("swapool: torch_native (target, STANDALONE): active") for line in lines), lines
    assert "swapool refuses" not in start.log and "start-up guard:" not in start.log
    assert_readme_quotes(start, "draft")
