"""Reviewing a table with git: the old version from a pipe or standard input, and git's
external diff driver, in a real temporary repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HEAD = "format: 1\ndecision: d\nhit_policy: unique\n"
BASE = HEAD + ("inputs:\n  algo: {sets: {own: [A, B], reads: [C]}}\noutput: {values: [p, q]}\nrules:\n"
               "  - {id: o, when: {algo: {in: own}}, then: p}\n  - {id: r, when: {algo: {in: reads}}, then: q}\n")
USER = HEAD + ("inputs:\n  algo: {from: base.yaml}\noutput: {values: [p, q]}\nrules:\n"
               "  - {id: o, when: {algo: {in: own}}, then: p}\n  - {id: r, when: {algo: {in: reads}}, then: q}\n")
CHANGED = USER.replace("then: q}", "then: p}")


def swapool(*argv: str, cwd: Path, stdin: str | None = None, shell: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "swapool", *argv]
    if shell:  # bash, for its process substitution
        command = ["bash", "-c", " ".join(command)]
    return subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120)


@pytest.fixture
def tables(tmp_path):
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "base.yaml").write_text(BASE)
    (tmp_path / "policies" / "user.yaml").write_text(CHANGED)
    (tmp_path / "old.yaml").write_text(USER)
    return tmp_path


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash's process substitution")
def test_diff_reads_the_old_table_from_a_pipe_it_holds_open(tables):
    done = swapool("diff", "<(cat old.yaml)", "policies/user.yaml", cwd=tables, shell=True)
    assert done.returncode == 1, done.stdout + done.stderr  # imports found beside the new table
    assert "algo=C: q (r) -> p (r)" in done.stdout and "/dev/fd/" in done.stdout.splitlines()[-1]


def test_a_fifo_named_by_its_path_is_still_refused(tables):
    os.mkfifo(tables / "fifo.yaml")
    done = swapool("diff", "fifo.yaml", "policies/user.yaml", cwd=tables)
    assert done.returncode == 2 and "not a regular file" in done.stderr


def test_diff_names_standard_input_by_stdin_filename_and_finds_its_imports(tables):
    done = swapool("diff", "-", "policies/user.yaml", "--stdin-filename", "HEAD:policies/user.yaml", cwd=tables,
                   stdin=USER)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "HEAD:policies/user.yaml -> policies/user.yaml: 1 region(s) decided differently"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_diff_prints_the_semantic_diff_through_the_driver(tables):
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    repo = tables
    (repo / "policies" / "user.yaml").write_text(USER)
    (repo / ".gitattributes").write_text("policies/*.yaml diff=swapool\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "config", "diff.swapool.command", f"{sys.executable} -m swapool git-diff"], cwd=repo,
                   check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "tables"], cwd=repo, check=True)
    (repo / "policies" / "user.yaml").write_text(CHANGED)
    (repo / "policies" / "base.yaml").write_text(BASE + "# a comment\n")
    shown = subprocess.run(["git", "diff"], cwd=repo, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "swapool git-diff a/policies/user.yaml b/policies/user.yaml" in out, out
    assert "algo=C: q (r) -> p (r)\na/policies/user.yaml -> b/policies/user.yaml: 1 region(s) decided differently" in out
    assert "a/policies/base.yaml -> b/policies/base.yaml: equivalent" in out  # a comment changes no decision
    (repo / "policies" / "user.yaml").write_text(CHANGED.replace("then: p}", "then: nope}", 1))
    broken = subprocess.run(["git", "diff", "policies/user.yaml"], cwd=repo, capture_output=True, text=True,
                            timeout=120)
    assert broken.returncode == 0 and re.search(r"^b/policies/user.yaml: \d error\(s\) \(.*unknown-value", broken.stdout,
                                                re.M), broken.stdout
    assert "+  - {id: o, when: {algo: {in: own}}, then: nope}" in broken.stdout, broken.stdout  # the text diff
