"""One snapshot per registered finding code: how `swapool validate` shows it (the header
line, the source line with its caret, the help, the pointer to `swapool codes`). A change
of wording or of the span shows up here as a diff of the snapshot, not across the suite.

    SWAPOOL_UPDATE_SNAPSHOTS=1 python -m pytest tests/suites/test_code_snapshots.py   # rewrite them
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from swapool.cli import main
from swapool.swa.codes import CATALOGUE
from swapool.table.enums import bound_members

from .. import hostile_families as families

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
CORPUS = Path(__file__).parents[1] / "corpus" / "hostile"
ENGINE = "snapshot_engine"


def table(rules: str, *, inputs: str = "  mode: {values: [fast, safe, exact]}\n  draft: {type: bool}\n",
          hit_policy: str = "unique", extra: str = "") -> str:
    """A generic table (input `mode`, output `cache`) with the given rules block."""
    return (f"format: 1\ndecision: demo\nhit_policy: {hit_policy}\ninputs:\n{inputs}"
            f"output: {{values: [cache, none]}}\nrules:\n{textwrap.indent(textwrap.dedent(rules), '  ')}{extra}")


EVERY = "- {id: fast, when: {mode: fast}, then: cache}\n- {id: rest, when: {mode: [safe, exact]}, then: none}\n"
BOUND = f"  mode: {{values: [fast, safe, exact], enum: \"{ENGINE}:Mode\"}}\n"
CASES = "cases:\n" + "".join(f"  - {{given: {{mode: {m}}}, expect: {o}}}\n"
                             for m, o in (("fast", "cache"), ("safe", "none"), ("exact", "none")))

#: code -> (the table, other files beside it, the engine's members or None, extra validate arguments)
SAMPLES: dict[str, tuple[str, dict[str, str], str | None, list[str]]] = {
    "unknown-set": (table("- {id: q, when: {mode: {in: quick}}, then: cache}\n- {id: rest, when: {mode: {in: careful}}, "
                          "then: none}\n", inputs="  mode: {sets: {quickly: [fast], careful: [safe, exact]}}\n"), {}, None, []),
    "import": (table(EVERY, inputs="  mode: {from: base.yaml}\n"),
               {"base.yaml": table("- {id: r, then: none}\n", inputs="  level: {values: [low, high]}\n")}, None, []),
    "uncased-value": (table(EVERY, inputs=BOUND, extra=CASES.replace("  - {given: {mode: exact}, expect: none}\n", "")),
                      {}, "fast safe exact", []),
    "duplicate-value": (table(EVERY, inputs="  mode: {values: [fast, safe, exact, fast]}\n"), {}, None, []),
    "value-case": (table(EVERY.replace("[safe, exact]", "[safe, EXACT]"), inputs="  mode: {values: [fast, safe, EXACT]}\n"
                         "  draft: {type: bool}\n"), {}, None, []),
    "duplicate-rule-id": (table(EVERY.replace("id: rest", "id: fast")), {}, None, []),
    "overlap": (table(EVERY + "- {id: also-fast, when: {mode: fast}, then: none}\n"), {}, None, []),
    "unreachable-rule": (table("- {id: all, then: none}\n- {id: fast, when: {mode: fast}, then: cache}\n",
                               hit_policy="first"), {}, None, []),
    "redundant-rule": (table("- {id: fast, when: {mode: fast}, then: none}\n- {id: rest, then: none}\n",
                             hit_policy="first"), {}, None, []),
    "invariant": (table("- {id: cache-drafts, when: {draft: true}, then: cache}\n- {id: rest, when: {draft: false}, "
                        "then: none}\n", extra="invariants:\n  - {id: drafts-never-cache, if: {draft: true}, "
                        "then: {output: none}}\n"), {}, None, []),
    "case-failed": (table(EVERY, extra="cases:\n  - {given: {mode: fast}, expect: none}\n"), {}, None, []),
    "empty-cell": (table(EVERY + "- {id: never, when: {mode: {not: [fast, safe, exact]}}, then: none}\n"), {}, None, []),
    "full-domain-cell": (table("- {id: all, when: {mode: [fast, safe, exact]}, then: none}\n"), {}, None, []),
    "unnamed-value": (table("- {id: fast, when: {mode: fast}, then: cache}\n- {id: rest, when: {mode: {not: [fast]}}, "
                            "then: none}\n"), {}, None, []),
    "unused-input": (table(EVERY), {}, None, []),
    "analysis-partial": (table("- {id: fast, when: {mode: fsat}, then: cache}\n- {id: rest, when: {mode: [safe, exact]}, "
                               "then: none}\n"), {}, None, []),
    "mergeable-rules": (table("- {id: fast, when: {mode: fast, draft: true}, then: cache}\n"
                              "- {id: safe, when: {mode: safe, draft: true}, then: cache}\n"
                              "- {id: rest, when: {mode: exact}, then: none}\n- {id: idle, when: {mode: [fast, safe], "
                              "draft: false}, then: none}\n"), {}, None, []),
    "enum-import": (table(EVERY, inputs=BOUND.replace(ENGINE, "no_such_engine_pkg")), {}, None,
                    ["--enum-module", "no_such_engine_pkg"]),
    "enum-import-failed": (table(EVERY, inputs=BOUND), {}, "raise", []),
    "enum-missing-member": (table(EVERY, inputs=BOUND), {}, "fast safe exact turbo", []),
    "enum-extra-value": (table(EVERY, inputs=BOUND), {}, "fast safe", []),
    "enum-not-allowed": (table(EVERY, inputs=BOUND.replace(ENGINE, "evil")), {}, None, []),
    "analysis-budget": (families.random_cubes(12, 8, 300), {}, None, []),
}


def sample(code: str) -> tuple[bytes, dict[str, str], str | None, list[str]]:
    """A table that shows `code` (its bytes): one written here, or the hostile corpus file
    that shows it."""
    if code in SAMPLES:
        text, beside, members, args = SAMPLES[code]
        return text.encode(), beside, members, args
    expected = json.loads((CORPUS / "expected.json").read_text())
    name = min(f for f, want in expected.items() if want["code"] == code)
    return (CORPUS / name).read_bytes(), {}, None, []


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_each_code_renders_as_its_snapshot(code, tmp_path, monkeypatch, capsys):
    raw, beside, members, args = sample(code)
    (tmp_path / "t.yaml").write_bytes(raw)
    for name, other in beside.items():
        (tmp_path / name).write_text(other)
    if members is not None:
        engines = tmp_path / "engines"
        engines.mkdir()
        body = "raise RuntimeError('needs a GPU')" if members == "raise" else f"Mode = enum.Enum('Mode', '{members}')"
        (engines / f"{ENGINE}.py").write_text(f"import enum\n{body}\n")
        monkeypatch.syspath_prepend(str(engines))
        sys.modules.pop(ENGINE, None)
        args = ["--enum-module", ENGINE]
    bound_members.cache_clear()
    monkeypatch.chdir(tmp_path)
    main(["validate", "--verbose", *args, "t.yaml"])
    out = capsys.readouterr().out
    assert f"[{code}]:" in out, out
    blocks = out.split("\n")
    start = next(i for i, line in enumerate(blocks) if f"[{code}]:" in line)
    end = next(i for i in range(start + 1, len(blocks)) if blocks[i].startswith("  = see:"))
    shown = "\n".join(blocks[start:end + 1]) + "\n"
    snapshot = SNAPSHOTS / f"{code}.txt"
    if os.environ.get("SWAPOOL_UPDATE_SNAPSHOTS"):
        SNAPSHOTS.mkdir(exist_ok=True)
        snapshot.write_text(shown)
    assert shown == snapshot.read_text()
    assert blocks[end] == f"  = see: swapool codes {code}"
    severity = blocks[start].split(f"[{code}]:")[0].rsplit(" ", 1)[-1]
    assert CATALOGUE[code].severity_text.startswith(severity), (severity, CATALOGUE[code].severity_text)  # its word
    if code not in ("io", "analysis-budget", "yaml-alias-bomb"):  # no single token to point at
        assert any(line.lstrip(" |").startswith("^") or set(line.split("|")[-1].strip()) == {"^"}
                   for line in blocks[start:end]), shown

