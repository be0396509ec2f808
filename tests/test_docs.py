"""The README documents every finding code, and the code emits only documented codes."""

import re
from pathlib import Path

from swapool.table.codes import CATALOGUE
import swapool.swa  # noqa: F401  registers the SWA codes
from swapool.table.codes import CATALOGUE as CODES

ROOT = Path(__file__).resolve().parent.parent


def test_every_code_has_a_readme_row_equal_to_the_catalogue():
    """The README's table of codes is the catalogue (swapool/table/codes.py), row by row."""
    readme = (ROOT / "README.md").read_text().splitlines()
    for code in CATALOGUE.values():
        assert f"| `{code.name}` | {code.severity} | {code.example} | {code.fix} |" in readme, code.name
    rows = [line for line in readme if re.match(r"^\| `[a-z0-9-]+` \| ", line) and line.count("|") == 5]
    assert len(rows) == len(CATALOGUE)


def test_every_emitted_code_is_registered():
    emitted = set()
    for path in (ROOT / "swapool").rglob("*.py"):
        emitted |= set(re.findall(r'\b(?:error|warning|note)\(\s*"([a-z0-9-]+)"', path.read_text()))
    assert emitted and emitted <= set(CODES), emitted - set(CODES)


def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert "python -m pytest -q" in ci
    assert "python -m pytest -q" in (ROOT / "README.md").read_text()


def test_the_readme_explain_example_is_what_the_command_prints(capsys, monkeypatch):
    from swapool.cli import main

    readme = (ROOT / "README.md").read_text()
    command = "$ swapool explain --set active_pool=other --set is_draft_worker=true --set spec_algorithm=EAGLE\n"
    shown = readme.split(command, 1)[1].split("```", 1)[0].splitlines()
    monkeypatch.chdir(ROOT)  # the README's paths are relative to the checkout
    assert main(command.split()[2:]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(shown) == len(printed) == 3
    for line, out in zip(shown, printed):
        assert out.startswith(line[:-3]) if line.endswith("...") else out == line


def test_a_finding_with_an_unregistered_code_cannot_be_made_and_a_code_is_registered_once():
    import pytest

    from swapool.table.codes import Code, register
    from swapool.table.diagnostics import error

    with pytest.raises(ValueError, match="not registered"):
        error("no-such-code", "message")
    register(CODES["gap"])  # the same code again: nothing changes
    with pytest.raises(ValueError, match="registered twice"):
        register(Code("gap", "another meaning", "error", "`x`", "y"))
    assert {"decision-kind", "unsafe-pool"} <= set(CODES)  # the SWA decision's own, registered by swapool.swa
