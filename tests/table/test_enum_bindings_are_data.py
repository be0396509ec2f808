"""A table is data: an `enum:` binding imports only allowed modules, never from the
working directory, and nothing the import does escapes as output, exit or deadlock."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import types

import pytest

from swapool import load_policy
from swapool.cli import main
from swapool.swa.policy import clear_cache
from swapool.table.enums import bound_members

from ..helpers import SHIPPED
from .test_enums import bound_table, run_check


@pytest.fixture
def module_at(tmp_path, monkeypatch):
    """Write `name.py` with `body` into a directory on sys.path (not the working one)."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))

    def make(name: str, body: str) -> None:
        (site / f"{name}.py").write_text(textwrap.dedent(body))
        sys.modules.pop(name, None)
        bound_members.cache_clear()
    yield make
    bound_members.cache_clear()


def test_a_binding_outside_the_allowed_modules_is_not_imported(module_at, tmp_path):
    marker = tmp_path / "ran"
    module_at("fake_engine", f"open({str(marker)!r}, 'w').close()\nimport enum\nA = enum.Enum('A', 'x y z')\n")
    c = run_check(bound_table("fake_engine:A"), allowed=("sglang",))
    d = next(d for d in c.diagnostics if d.code == "enum-not-allowed")
    assert d.severity.value == "warning" and d.facts.allowed == ["sglang"]
    assert not marker.exists() and "fake_engine" not in sys.modules


def test_main_is_never_imported_even_when_allowed():
    c = run_check(bound_table("__main__:A"), allowed=("__main__",))
    assert [d.code for d in c.diagnostics] == ["enum-not-allowed"]


def test_a_module_in_the_working_directory_is_not_imported(tmp_path, monkeypatch):
    (tmp_path / "cwd_engine.py").write_text("import enum\nA = enum.Enum('A', 'x y z')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend("")
    monkeypatch.syspath_prepend(str(tmp_path))
    bound_members.cache_clear()
    c = run_check(bound_table("cwd_engine:A"), allowed=("cwd_engine",))
    assert [d.code for d in c.diagnostics] == ["enum-import-failed"] and "cwd_engine" not in sys.modules
    assert "would be imported from the working directory" in c.diagnostics[0].facts.reason


def test_system_exit_of_an_import_is_a_warning_with_the_reason(module_at):
    """Installed but failing is not 'not installed': --strict fails on it (issue: drift never silently skipped)."""
    module_at("fake_engine", "import sys\nsys.exit(3)\n")
    c = run_check(bound_table("fake_engine:A"), allowed=("fake_engine",))
    d = next(d for d in c.diagnostics if d.code == "enum-import-failed")
    assert "SystemExit: 3" in d.facts.reason and d.severity.value == "warning"


def test_checking_a_bound_table_leaves_sys_path_and_the_streams_alone(module_at, monkeypatch):
    """A server may check in several threads: nothing process-wide may be swapped meanwhile."""
    seen = {}
    module_at("fake_engine", """\
        import sys, enum
        import fake_engine_probe
        fake_engine_probe.seen.update(stdout=sys.stdout, stderr=sys.stderr, path=list(sys.path))
        A = enum.Enum('A', 'x y z')
        """)
    monkeypatch.setitem(sys.modules, "fake_engine_probe", types.SimpleNamespace(seen=seen))
    before = (sys.stdout, sys.stderr, list(sys.path))
    c = run_check(bound_table("fake_engine:A"), allowed=("fake_engine",))
    assert not [d for d in c.diagnostics if d.code.startswith("enum-import")]
    assert (seen["stdout"], seen["stderr"], seen["path"]) == before
    assert (sys.stdout, sys.stderr, list(sys.path)) == before


def test_printed_output_of_an_import_does_not_reach_json_output(module_at, write, capsys, monkeypatch):
    module_at("fake_engine", "print('{\"forged\": true}')\nimport enum\nA = enum.Enum('A', 'x y z')\n")
    monkeypatch.setenv("SWAPOOL_ENUM_MODULES", "fake_engine")
    assert main(["validate", "--format", "json", str(write(bound_table("fake_engine:A")))]) == 0
    out = capsys.readouterr().out
    assert "forged" not in out and json.loads(out)["diagnostics"] == []


def test_a_bound_module_that_loads_a_policy_on_import_does_not_deadlock(module_at, write):
    module_at("fake_engine", f"""\
        import enum
        import swapool
        swapool.load_policy({str(SHIPPED)!r}, import_enums=False)
        A = enum.Enum("A", "swa other")
        """)
    table = SHIPPED.read_text().replace(
        "  active_pool:\n    values: [swa, other]\n",
        '  active_pool:\n    values: [swa, other]\n    enum: "fake_engine:A"\n')
    assert 'enum: "fake_engine:A"' in table
    clear_cache()
    done: list = []
    worker = threading.Thread(target=lambda: done.append(
        load_policy(write(table), enum_modules=("fake_engine", "sglang"))), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert done and done[0].table.decision == "swa_kv_pool"


def test_python_m_swapool_does_not_import_from_the_working_directory(tmp_path):
    """`python -m` puts the working directory on sys.path; the binding still cannot use it."""
    (tmp_path / "evil.py").write_text("open('pwned', 'w').close()\nimport enum\nA = enum.Enum('A', 'x y z')\n")
    (tmp_path / "t.yaml").write_text(bound_table("evil:A"))
    env = {"SWAPOOL_ENUM_MODULES": "evil", "PATH": ""}
    done = subprocess.run([sys.executable, "-m", "swapool", "validate", "t.yaml"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert not (tmp_path / "pwned").exists(), done.stdout
    assert "warning[enum-import-failed]" in done.stdout and done.returncode == 0
