"""The import contract: the folders are the architecture (DESIGN.md section 2).

swapool.table (the generic engine) imports nothing else of swapool; swapool.swa imports
the engine but not the CLI; only swa/kv, swa/attention and swa/integrations import torch
or flashinfer, anywhere in a module (function bodies included)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "swapool"
TORCH_ALLOWED = ("swapool.swa.kv", "swapool.swa.attention", "swapool.swa.integrations")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Absolute names of every module `path` imports, at any depth of its code."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base)
                target = f"{prefix}.{node.module}" if node.module else prefix
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_the_tree_has_the_three_parts():
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} >= {"table", "swa", "cli"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_import_contract(path: Path):
    name = module_name(path)
    found = imports(path)
    own = {m for m in found if m == "swapool" or m.startswith("swapool.")}
    if name.startswith("swapool.table"):
        assert all(m.startswith("swapool.table") for m in own), f"{name} imports {own}: the engine is generic"
    if name.startswith("swapool.swa"):
        assert not any(m.startswith("swapool.cli") for m in own), f"{name} imports the CLI"
    heavy = {m for m in found if m.split(".")[0] in ("torch", "flashinfer")}
    if not name.startswith(TORCH_ALLOWED):
        assert not heavy, f"{name} imports {heavy}; only {', '.join(TORCH_ALLOWED)} may"


def test_the_contract_check_sees_relative_and_nested_imports(monkeypatch):
    """The checker itself can fail: a lazy, relative import of the application is caught."""
    fake = PACKAGE / "table" / "model.py"
    source = "def f():\n    from ..swa import policy\n    import torch\n"
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    found = imports(fake)
    assert "swapool.swa.policy" in found and "torch" in found


def test_validate_and_import_swapool_load_neither_torch_nor_the_runtime():
    """validate needs the engine and the SWA contract, nothing that runs in a server."""
    code = ("import sys, swapool; from swapool.cli import main; rc = main(['validate', '-q', 'policies/swa.yaml']); "
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'flashinfer') "
            "or m.startswith(('swapool.swa.policy', 'swapool.swa.kv', "
            "'swapool.swa.attention', 'swapool.swa.integrations'))); print(heavy); sys.exit(rc or bool(heavy))")
    done = subprocess.run([sys.executable, "-c", code], cwd=PACKAGE.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_validate_on_the_happy_path_imports_only_what_it_needs():
    """A pre-commit hook pays every import: the schema file, JSON, pathlib, shutil (argparse's
    terminal width), decimal (unused by the compiled schema) and jsonschema are for other
    paths (a failure to explain, --format json, directories, help), as are the other
    commands, the source snippets of a finding and the compiled diagram; typing, dataclasses
    (inspect) and hashlib (OpenSSL) cost a few ms each and a clean check needs none of them,
    nor the codes of findings a valid table never has (reading, format, imports, the SWA contract's)."""
    code = ("import sys; from swapool.cli import main; "
            "rc = main(['validate', '-q', '--no-enum-import', 'policies/swa.yaml']); "
            "extra = sorted(m for m in ('json', 'pathlib', 'shutil', 'decimal', 'jsonschema', 'swapool.cli.plan', "
            "'swapool.cli.show', 'swapool.cli.doctor', 'swapool.cli.snippets', 'swapool.table.diagram', 'typing', "
            "'dataclasses', 'inspect', 'hashlib', 'swapool.table.codes.reading', 'swapool.table.codes.document', "
            "'swapool.table.codes.imports', 'swapool.swa.codes') if m in sys.modules); "
            "print(extra); sys.exit(rc or bool(extra))")
    done = subprocess.run([sys.executable, "-c", code], cwd=PACKAGE.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


#: Words of the SWA decision and of its engine (sglang) that the generic engine must not use.
SWA_WORDS = re.compile(r"sglang|spec_algorithm|active_pool|allocator|is_draft_worker|EAGLE|FROZEN_KV|owns_its_kv|"
                       r"swa_kv_pool|decision-kind|unsafe-pool|\bSWA\b|swa\.yaml|--no-enum-import|--enum-module")


@pytest.mark.parametrize("path", [p for p in MODULES if module_name(p).startswith("swapool.table")
                                  and "generated" not in p.parts], ids=lambda p: module_name(p))
def test_the_engine_names_nothing_of_the_swa_decision(path: Path):
    """Generic in fact, not only in imports: no SWA input, code, engine or CLI flag is named
    in swapool/table."""
    found = sorted({m.group() for m in SWA_WORDS.finditer(path.read_text(encoding="utf-8"))})
    assert not found, f"{module_name(path)} names {found}"


def test_the_engine_has_a_public_face():
    import swapool.table as engine

    assert all(getattr(engine, name) is not None for name in engine.__all__)
    assert engine.check_bytes.__module__ == "swapool.table.check"


#: Modules whose job is words: the registries of codes and the text helpers they use.
WORDING = ("swapool.table.codes", "swapool.swa.codes", "swapool.table.text")
#: Facts a finding may give as a string constant: its variant and data values, never a sentence.
PLAIN_FACTS = {"problem", "expected", "got", "hint", "keyword"}


def prose_in_findings(source: str) -> list[str]:
    """Every place a finding is made with words: an f-string, a joined string, or a
    string constant outside `PLAIN_FACTS`, among the facts of an error()/warning()/note()
    call or after them."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("error", "warning", "note")):
            continue
        facts = node.args[0] if node.args and isinstance(node.args[0], ast.Call) else None
        given = [("", arg) for arg in node.args[1:]] + [(k.arg or "", k.value) for k in node.keywords]
        given += [(k.arg or "", k.value) for k in facts.keywords] if facts else []  # error(Gap(region=...), span)
        for name, value in given:
            for part in ast.walk(value):
                wordy = isinstance(part, ast.JoinedStr) or (
                    isinstance(part, ast.BinOp) and any(isinstance(s, (ast.JoinedStr, ast.Constant))
                                                        and isinstance(getattr(s, "value", None), str)
                                                        for s in (part.left, part.right)))
                if not wordy and isinstance(part, ast.Constant) and isinstance(part.value, str) and part is value:
                    wordy = name not in PLAIN_FACTS
                if wordy:
                    found.append(f"line {node.lineno}: {name or 'argument'}")
                    break
    return found


@pytest.mark.parametrize("path", [p for p in MODULES if module_name(p) not in WORDING], ids=lambda p: module_name(p))
def test_findings_are_made_as_data_and_worded_by_the_registry(path: Path):
    """A finding carries facts; its words live in its code's registry entry, one place per
    code. A sentence written where a finding is made would be a second place."""
    assert not prose_in_findings(path.read_text(encoding="utf-8")), module_name(path)


def test_the_prose_check_sees_a_sentence_where_a_finding_is_made():
    assert prose_in_findings('error(Gap(region=r), span)') == []
    assert prose_in_findings('error(Gap(region=r), f"no rule decides {r}", span)') == ["line 1: argument"]
    assert prose_in_findings('warning(Gap(region=r), span, help="add a rule")') == ["line 1: help"]
    assert prose_in_findings('note(Gap(region=r, problem="x" + y), span)') == ["line 1: problem"]
    assert prose_in_findings('error(Gap(why="no rule decides it"), span)') == ["line 1: why"]


def test_no_module_is_longer_than_450_lines():
    """A module past 450 lines holds more than one job (the simplification issue's limit);
    generated code aside."""
    long = {module_name(p): n for p in MODULES if "generated" not in p.parts
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > 450}
    assert not long, long


def test_no_function_is_more_complex_than_twenty():
    """Cyclomatic complexity as radon counts it (the simplification issue's limit): a function
    past 20 branches does several jobs; each gets a function of its own. Generated code aside."""
    from radon.complexity import cc_visit

    def functions(blocks):  # every function: top level, methods, and closures within them
        for block in blocks:
            if not hasattr(block, "methods"):
                yield block
            yield from functions(getattr(block, "methods", []) + getattr(block, "closures", []))

    over = [f"{module_name(path)}.{block.fullname}: {block.complexity}"
            for path in sorted(PACKAGE.rglob("*.py")) if "generated" not in path.parts
            for block in functions(cc_visit(path.read_text(encoding="utf-8"))) if block.complexity > 20]
    assert not over, over


def test_no_import_circle_between_modules():
    """Each module's imports, at any depth of its code (a function's and TYPE_CHECKING's
    included), form no circle: every module can be read, and loaded, after those it uses
    (the simplification issue's rule; a light entry point that imports a heavy module on
    first use takes what both need from a third)."""
    from graphlib import CycleError, TopologicalSorter

    names = {module_name(p): p for p in MODULES}
    graph = {name: {m for m in imports(path) if m in names and m != name} for name, path in names.items()}
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        pytest.fail(f"import circle: {' -> '.join(exc.args[1])}")
