"""The one edit keeps the whole suite green: a copy of the project whose policies/swa.yaml
has fresh names appended to owns_its_kv, to reads_target_kv, or to both (the README's
"Adding a speculative algorithm") runs every test module that reads the shipped tables.
A test that restates which algorithm is where, instead of reading the tables, fails here."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from ..helpers import SHIPPED, add_algorithms, algorithms

ROOT = Path(__file__).resolve().parents[2]
#: What a test may read of the project: the package, its tables, schema, docs and tests.
PROJECT = ("swapool", "tests", "policies", "schemas", "scripts", "benchmarks", "README.md", "docs", "pyproject.toml",
           ".pre-commit-hooks.yaml", ".gitattributes", ".ci", "LICENSE")
#: How a test module shows that it reads the shipped tables.
READS_TABLES = re.compile(r"SHIPPED|shipped_data|algorithm_sets|algorithms\(\)|default_policy|policies/|"
                          r"add_algorithms|with_names|load_policy\(\)")


def table_readers() -> list[str]:
    """The test modules that read the shipped tables, as paths from the root."""
    here = Path(__file__).resolve()
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
                  if p.resolve() != here and READS_TABLES.search(p.read_text()))


def project_copy(folder: Path) -> Path:
    for name in PROJECT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif source.exists():
            shutil.copy(source, folder / name)
    return folder


#: Names no list holds: what a table author appends.
FRESH = st.from_regex(r"[A-Z][A-Z0-9]{2,8}(_[A-Z0-9]{1,6})?", fullmatch=True).filter(lambda n: n not in algorithms())


VARIANTS = {"owner": ("owns_its_kv",), "reader": ("reads_target_kv",), "both": ("owns_its_kv", "reads_target_kv")}


def edited_project(folder: Path, lists: tuple[str, ...], owner: str, reader: str) -> tuple[Path, dict]:
    """A copy of the project after the edit, and the environment that makes it the one imported."""
    copy = project_copy(folder)
    add_algorithms(copy / "policies", owner=owner if "owns_its_kv" in lists else None,
                   reader=reader if "reads_target_kv" in lists else None)
    edited = (copy / "policies" / SHIPPED.name).read_text()
    assert edited != SHIPPED.read_text()
    env = {**os.environ, "PYTHONPATH": str(copy)}
    shipped = subprocess.run([sys.executable, "-c", "from swapool.table.shipped import shipped; "
                              "print(shipped('policies/swa.yaml').read_text(), end='')"], cwd=copy, env=env, capture_output=True, text=True)
    assert shipped.stdout == edited, shipped.stderr  # the suite will read the edited tables, not these
    return copy, env


@settings(max_examples=1, deadline=None, phases=[Phase.generate], database=None)
@given(owner=FRESH, reader=FRESH)
def test_the_suite_stays_green_after_the_one_edit(tmp_path_factory, owner, reader):
    """The three edits run at once: each is a whole pytest run of the table readers, so
    hypothesis draws one pair of names and does not shrink."""
    if owner == reader:
        reader += "_MTP"
    tests = table_readers()
    runs = {}
    for variant, lists in VARIANTS.items():
        copy, env = edited_project(tmp_path_factory.mktemp(variant), lists, owner, reader)
        runs[variant] = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
                                         cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         text=True)
    outputs = {variant: run.communicate(timeout=1800)[0] for variant, run in runs.items()}
    for variant, run in runs.items():
        last = outputs[variant].strip().splitlines()[-1]
        assert run.returncode == 0 and " passed" in last, \
            f"after appending to {' and '.join(VARIANTS[variant])}:\n" + outputs[variant][-6000:]
