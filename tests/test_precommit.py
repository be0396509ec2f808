"""The pre-commit hook definition, run the way pre-commit runs it, over this repository."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def hook():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return next(h for h in hooks if h["id"] == "swapool-validate")


def test_hook_selects_this_repositorys_policies():
    files = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.y*ml") if ".venv" not in p.parts]
    selected = [f for f in files if re.search(hook()["files"], f)]
    assert "policies/swa.yaml" in selected
    assert not [f for f in selected if f.startswith("tests/")]


def test_hook_entry_passes_on_this_repositorys_policies():
    selected = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "policies").glob("*.y*ml")
                      if re.search(hook()["files"], p.relative_to(ROOT).as_posix()))
    argv = shlex.split(hook()["entry"])
    assert argv[0] == "swapool"
    proc = subprocess.run([sys.executable, "-m", "swapool", *argv[1:], *selected], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hook_uses_a_python_environment_with_core_dependencies_only():
    assert hook()["language"] == "python"
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert sorted(d.split(">")[0].split("=")[0] for d in deps) == ["jsonschema", "pyyaml"]
