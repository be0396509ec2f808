"""A table is data: an `enum:` binding imports only allowed modules, never from the
working directory, and nothing the import does escapes as output, exit or deadlock."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import pytest

from swapool import load_policy
from swapool.cli import main
from swapool.swa.policy import clear_cache
from swapool.table.enums import bound_members

from .helpers import SHIPPED
from .test_enums_and_diff import bound_table, run_check


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
    assert d.severity.value == "warning" and "sglang" in d.message
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
    assert [d.code for d in c.diagnostics] == ["enum-import"] and "cwd_engine" not in sys.modules


def test_system_exit_and_output_of_an_import_stay_inside(module_at):
    module_at("fake_engine", "print('FORGED: t.yaml:1:1: error[gap]')\nimport sys\nsys.exit(3)\n")
    c = run_check(bound_table("fake_engine:A"))
    d = next(d for d in c.diagnostics if d.code == "enum-import")
    assert "SystemExit" in d.message and d.severity.value == "note"


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
    assert "note[enum-import]" in done.stdout and done.returncode == 0
