"""The pre-commit hook definition, run the way pre-commit runs it, over this repository."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_readme_snippet_runs_under_pre_commit_with_a_pinned_revision(tmp_path):
    """pre-commit itself installs the hook from this repository at HEAD (as `rev:` pins
    it) into its own environment, then passes a valid table and fails a broken one."""
    pre_commit = pytest.importorskip("pre_commit", reason="pre-commit is in the [test] extra")
    del pre_commit
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    repo = tmp_path / "engine"
    (repo / "policies").mkdir(parents=True)
    (repo / "policies" / "swa.yaml").write_text((ROOT / "policies" / "swa.yaml").read_text())
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head.stdout.strip()}\n    hooks:\n      - id: swapool-validate\n")
    env = {"PRE_COMMIT_HOME": str(tmp_path / "cache"), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
           "HOME": str(tmp_path), "SWAPOOL_ENUM_MODULES": ""}
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    run = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    ok = subprocess.run(run, cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "swapool validate" in ok.stdout and "Passed" in ok.stdout
    (repo / "policies" / "swa.yaml").write_text(
        (ROOT / "policies" / "swa.yaml").read_text().replace("spec_algorithm: {in: reads_target_kv}, allocator_kvcache: other}",
                                                              "spec_algorithm: {in: reads_target_kv}, allocator_kvcache: swa}"))
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    bad = subprocess.run(run, cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    assert bad.returncode == 1 and "error[overlap]" in bad.stdout, bad.stdout + bad.stderr


def test_the_hook_on_an_imported_table_alone_checks_the_tables_that_import_it(tmp_path):
    """pre-commit passes only what changed: renaming a set in the imported table fails at
    its use in the importer, which the hook was never given."""
    head = "format: 1\ndecision: d\nhit_policy: unique\n"
    base = head + ("inputs:\n  algo: {sets: {own: [A, B], reads: [C]}}\noutput: {values: [p, q]}\nrules:\n"
                   "  - {id: o, when: {algo: {in: own}}, then: p}\n  - {id: r, when: {algo: {in: reads}}, then: q}\n")
    user = head + ("inputs:\n  algo: {from: base.yaml}\noutput: {values: [p, q]}\nrules:\n"
                   "  - {id: o, when: {algo: {in: own}}, then: p}\n  - {id: r, when: {algo: C}, then: q}\n")
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "user.yaml").write_text(user)
    argv = shlex.split(hook()["entry"])[1:]

    def run(text):
        (tmp_path / "policies" / "base.yaml").write_text(text)
        return subprocess.run([sys.executable, "-m", "swapool", *argv, "policies/base.yaml"], cwd=tmp_path,
                              capture_output=True, text=True)

    good = run(base)
    assert good.returncode == 0 and "policies/user.yaml: checked too: it takes inputs from base.yaml" in good.stdout
    broken = run(base.replace("own", "owned"))
    assert broken.returncode == 1, broken.stdout
    assert re.search(r"^policies/user\.yaml:\d+:\d+: error\[unknown-set\]", broken.stdout, re.M), broken.stdout


def test_a_missing_table_in_a_missing_folder_is_an_io_error_not_a_crash(tmp_path):
    done = subprocess.run([sys.executable, "-m", "swapool", "validate", "no/such/t.yaml"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "error[io]" in done.stdout and not done.stderr, done.stderr
