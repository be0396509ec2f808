"""The README documents every finding code, and the code emits only documented codes."""

import re
from pathlib import Path

from swapool.swa.codes import CATALOGUE
from swapool.swa.codes import CATALOGUE as CODES

from ..helpers import with_names, without_names

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_docs_are_current():
    """docs/codes.md is the registry and docs/internals.md's benchmark table the result files."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_codes_md_has_a_row_per_registered_code():
    rows = [line for line in (ROOT / "docs" / "codes.md").read_text().splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == list(CATALOGUE)


def test_the_readme_is_short_and_links_every_doc():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 12 * 1024
    for doc in (ROOT / "docs").glob("*.md"):
        assert f"(docs/{doc.name})" in readme, doc.name


def test_every_code_the_package_defines_is_in_the_catalogue():
    """What `swapool codes`, SARIF and docs/codes.md list: every Code object of every module."""
    import importlib
    import pkgutil

    import swapool
    from swapool.table.codes import Code

    defined = set()
    for info in pkgutil.walk_packages(swapool.__path__, "swapool."):
        if info.name.endswith("__main__") or info.name.split(".")[2:3] in (["kv"], ["attention"], ["integrations"]):
            continue  # the command itself; torch's and sglang's side, which define no code
        module = importlib.import_module(info.name)
        defined |= {v for v in vars(module).values() if isinstance(v, Code)}
    assert len(defined) >= 30 and defined == set(CODES.values()), {c.name for c in defined ^ set(CODES.values())}


def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert "python -m pytest -q" in ci
    assert "python -m pytest -q" in (ROOT / "README.md").read_text()


def test_a_finding_lacking_a_fact_or_given_one_its_code_does_not_have_cannot_be_made():
    """Facts are typed fields: mypy checks them where a finding is made, the constructor again
    at run time (a finding that could not be worded is refused where it is made, not shown)."""
    import pytest

    from swapool.table.codes.analysis import Gap
    from swapool.table.codes.reading import IO, IoMissing
    from swapool.table.diagnostics import error

    with pytest.raises(TypeError, match=r"needs the facts \['file'\]"):
        IoMissing()  # type: ignore[call-arg]  # its words read the file's name
    with pytest.raises(TypeError, match=r"no fact \['path'\]"):
        IoMissing(file="t.yaml", path="t.yaml")  # type: ignore[call-arg]
    with pytest.raises(AttributeError, match="frozen"):
        IoMissing(file="t.yaml").file = "u.yaml"  # type: ignore[misc]
    missing = error(IoMissing(file="t.yaml"))
    assert (missing.message, missing.code, missing.entry) == ("t.yaml: no such file", "io", IO)
    assert missing.fact_values() == {"problem": "missing", "file": "t.yaml"}  # as JSON and SARIF carry it
    assert "missing" in IO.variants and Gap(region={}, closing={}, outputs=[]).problem is None
    assert {"decision-kind", "unsafe-pool"} <= set(CODES)  # the SWA decision's own


def test_no_finding_is_worded_by_reading_code_objects():
    """The words are methods of typed facts: nothing reads a function's parameters to learn
    them. (The sglang integration reads sglang's own constructors, to know a release's shape.)"""
    package = ROOT / "swapool"
    assert not [p for p in package.rglob("*.py") if "__code__" in p.read_text(encoding="utf-8")
                and "integrations" not in p.parts]


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def code_blocks(path: Path, lang: str = "[a-z]*") -> list[list[str]]:
    """The fenced code blocks of a page, each as its lines, dedented as a list item indents them."""
    text = path.read_text(encoding="utf-8")
    return [[line[len(indent):] for line in body.splitlines()]
            for indent, body in re.findall(rf"^( *)```{lang}\n(.*?)^\1```", text, re.S | re.M)]


def sessions() -> list[list[str]]:
    """Every code block of the README and docs/ that shows `$ swapool ...` commands."""
    return [b for page in PAGES for b in code_blocks(page) if any(line.startswith("$ swapool ") for line in b)]


def matches(shown: list[str], printed: list[str]) -> bool:
    """`printed` as `shown` writes it: a line '...' stands for any lines, a line ending in
    '...' for any line that starts with what comes before it."""
    if not shown:
        return not printed
    head, rest = shown[0], shown[1:]
    if head.strip() == "...":
        return any(matches(rest, printed[i:]) for i in range(len(printed) + 1))
    if not printed:
        return False
    same = printed[0].startswith(head[:-3]) if head.endswith("...") else printed[0] == head
    return same and matches(rest, printed[1:])


def readme_edit() -> dict[str, list[str]]:
    """The names the README's one-edit diff appends, by the list it appends them to."""
    lists = {}
    for sign in "-+":
        for line in code_blocks(ROOT / "README.md", "diff")[0]:
            if line.startswith(sign):
                lists.setdefault(sign, {}).update(re.findall(r"^(\w+): \[(.*)\]", line[1:].strip()))
    return {name: [n for n in new.split(", ") if n not in lists["-"].get(name, "").split(", ")]
            for name, new in lists["+"].items()}


def test_the_readme_edit_appends_names_to_the_lists():
    assert readme_edit() == {"owns_its_kv": ["PARD"], "reads_target_kv": ["SUFFIX_MTP"]}


def test_the_sessions_are_what_the_commands_print(tmp_path, monkeypatch, capsys):
    """Every `$ swapool ...` in the README and docs/, run in a checkout where the README's
    one-edit diff is applied as what it means (its names appended to their lists of the table
    as it is now; old.yaml: that table without them), prints what the README shows, sglang
    absent as the README says. A table-only edit (names appended) keeps this green."""
    import shutil
    import shlex

    from swapool.cli import main
    from swapool.table import enums

    shutil.copytree(ROOT / "policies", tmp_path / "policies")
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")
    table = tmp_path / "policies" / "swa.yaml"
    added = readme_edit()
    before = without_names(table.read_text(), [n for names in added.values() for n in names])
    (tmp_path / "old.yaml").write_text(before)
    table.write_text(with_names(before, added))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(enums, "_installed", lambda top: False)
    shown = sessions()
    assert len(shown) >= 5
    for lines in shown:
        starts = [i for i, line in enumerate(lines) if line.startswith("$ swapool ")] + [len(lines)]
        for start, end in zip(starts, starts[1:]):
            command = shlex.split(lines[start][2:], comments=True)
            main(command[1:])
            printed = capsys.readouterr().out.splitlines()
            assert matches(lines[start + 1:end], printed), (lines[start], printed)


def test_each_code_s_example_table_has_its_finding_and_the_fixed_one_none():
    """examples.yaml, as `swapool codes CODE` and docs/codes.md show it, checked like any
    table: each fixed table is clean."""
    from swapool.table.check import check_bytes
    from swapool.table.codes import example_table, examples
    from swapool.table.enums import EnumPolicy

    shown = examples()
    assert len(shown) >= 15 and set(shown) <= set(CODES)
    for code, pair in shown.items():
        found = {key: {d.code for d in check_bytes(example_table(text), "example.yaml",
                                                   enums=EnumPolicy(do_import=False)).diagnostics}
                 for key, text in pair.items()}
        assert code in found["example"] and not found["fixed"], (code, found)
