"""The README documents every finding code, and the code emits only documented codes."""

import re
from pathlib import Path

from swapool.table.codes import CATALOGUE
import swapool.swa  # noqa: F401  registers the SWA codes
from swapool.table.codes import CATALOGUE as CODES

ROOT = Path(__file__).resolve().parent.parent


def test_every_code_has_a_readme_row_equal_to_the_catalogue():
    """The README's table of codes is the catalogue (swapool/table/codes.py), row by row."""
    section = (ROOT / "README.md").read_text().split("\n## Finding codes\n", 1)[1].split("\n## ", 1)[0]
    readme = section.splitlines()
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


def test_a_finding_with_an_unregistered_code_cannot_be_made_and_a_code_is_registered_once():
    import pytest

    from swapool.table.codes import Code, register
    from swapool.table.diagnostics import error

    with pytest.raises(ValueError, match="not registered"):
        error("no-such-code")
    with pytest.raises(ValueError, match="no variant 'lost'"):
        error("io", problem="lost", file="t.yaml")
    with pytest.raises(ValueError, match=r"needs the facts \['file'\]"):
        error("io", problem="missing")  # its words read the file's name
    assert error("io", problem="missing", file="t.yaml").message == "t.yaml: no such file"
    register(CODES["gap"])  # the same code again: nothing changes
    with pytest.raises(ValueError, match="registered twice"):
        register(Code("gap", "another meaning", "error", "`x`", "y"))
    assert {"decision-kind", "unsafe-pool"} <= set(CODES)  # the SWA decision's own, registered by swapool.swa


def readme_sessions() -> list[list[str]]:
    """Every code block of the README that shows `$ swapool ...` commands, as its lines."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return [b.splitlines() for b in blocks if any(line.startswith("$ swapool ") for line in b.splitlines())]


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


def test_readme_sessions_are_what_the_commands_print(tmp_path, monkeypatch, capsys):
    """Every `$ swapool ...` in the README, run in a checkout where the README's own
    one-edit diff is applied (old.yaml: the table before it), prints what the README shows,
    sglang absent as the README says."""
    import shutil
    import shlex

    from swapool.cli import main
    from swapool.table import enums

    shutil.copytree(ROOT / "policies", tmp_path / "policies")
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")
    table = tmp_path / "policies" / "swa.yaml"
    shutil.copy(table, tmp_path / "old.yaml")
    diff = re.search(r"```diff\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1).splitlines()
    text = table.read_text()
    for old, new in zip([d[1:] for d in diff if d.startswith("-")], [d[1:] for d in diff if d.startswith("+")]):
        assert old in text
        text = text.replace(old, new)
    table.write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(enums, "_installed", lambda top: False)
    sessions = readme_sessions()
    assert len(sessions) >= 3
    for lines in sessions:
        starts = [i for i, line in enumerate(lines) if line.startswith("$ swapool ")] + [len(lines)]
        for start, end in zip(starts, starts[1:]):
            command = shlex.split(lines[start][2:], comments=True)
            main(command[1:])
            printed = capsys.readouterr().out.splitlines()
            assert matches(lines[start + 1:end], printed), (lines[start], printed)
