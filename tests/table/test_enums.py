"""An input's `enum:` binding: drift from the engine's enum, found both ways."""

import textwrap
import pytest
from swapool.cli import main
from swapool.table.enums import bound_members
from swapool.table.check import check_bytes
from swapool.table.enums import EnumPolicy
from ..helpers import mini, only


@pytest.fixture
def engine_enum(tmp_path, monkeypatch):
    """An importable module `fake_engine` with an Algorithm enum (members chosen by the test)."""
    def make(members: str, body: str = "") -> str:
        (tmp_path / "fake_engine.py").write_text(textwrap.dedent(f"""\
            import enum
            {body}
            Algorithm = enum.Enum("Algorithm", "{members}")
            """))
        monkeypatch.syspath_prepend(str(tmp_path))
        import sys
        sys.modules.pop("fake_engine", None)
        bound_members.cache_clear()
        return "fake_engine:Algorithm"
    return make



CASES = "cases:\n  - {given: {a: x}, expect: p}\n  - {given: {a: y}, expect: q}\n  - {given: {a: z}, expect: q}\n"



def bound_table(binding: str, cases: str = CASES) -> str:
    """A table whose input `a` is bound to `binding`, with a case for each value."""
    rules = "- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: [y, z]}, then: q}\n"
    return mini(rules, extra=cases).replace("a: {values: [x, y, z]}", f'a: {{values: [x, y, z], enum: "{binding}"}}') \
        .replace("  b: {type: bool}\n", "")



ALLOWED = ("fake_engine", "no_such_engine_pkg")



def run_check(text, allowed=ALLOWED):
    return check_bytes(text, "t.yaml", enums=EnumPolicy(do_import=True, allowed=allowed))



def test_enum_in_step_with_the_table_is_silent(engine_enum):
    c = run_check(bound_table(engine_enum("x y z")))
    assert c.ok and c.diagnostics == ()



def test_new_engine_member_is_a_gap_naming_it(engine_enum):
    c = run_check(bound_table(engine_enum("x y z NEW_MEMBER")))
    d = only(c, "enum-missing-member")
    assert d.got == "NEW_MEMBER" and d.severity.value == "error"
    assert not c.ok



def test_a_bound_value_no_case_names_is_a_warning_and_an_error_when_strict(engine_enum, write, capsys):
    text = bound_table(engine_enum("x y z"), cases=CASES.replace("  - {given: {a: z}, expect: q}\n", ""))
    d = only(run_check(text), "uncased-value")
    assert d.severity.value == "warning" and (d.got, d.facts.input, d.facts.homes) == (["z"], "a", [])
    assert d.help == "add a case with given: {a: z, ...}"  # paste-ready: the words matter here
    path = str(write(text))
    assert main(["validate", "--enum-module", "fake_engine", path]) == 0
    assert main(["validate", "--strict", "--enum-module", "fake_engine", path]) == 1
    assert "warning[uncased-value]" in capsys.readouterr().out



def test_a_case_that_leaves_the_input_out_does_not_count_but_a_case_over_a_set_does(engine_enum):
    binding = engine_enum("x y z")
    loose = run_check(bound_table(binding, cases="cases:\n  - {given: {}, expect: p}\n"))
    assert only(loose, "uncased-value").got == ["x", "y", "z"]
    with_sets = bound_table(binding, cases="cases:\n  - {given: {a: {in: [yz]}}, expect: q}\n"
                                            "  - {given: {a: x}, expect: p}\n") \
        .replace("a: {values: [x, y, z],", "a: {values: [x, y, z], sets: {yz: [y, z]},")
    assert "uncased-value" not in [d.code for d in run_check(with_sets).diagnostics]



def test_a_case_names_the_one_value_of_a_one_value_input(engine_enum):
    """Naming the only value covers the whole domain; the case still names it."""
    text = (f'format: 1\ndecision: demo\nhit_policy: unique\ninputs:\n  a: {{values: [x], enum: "{engine_enum("x")}"}}\n'
            "output: {values: [p]}\nrules:\n  - {id: rx, when: {a: x}, then: p}\n")
    named = run_check(text + "cases:\n  - {given: {a: x}, expect: p}\n")
    assert named.ok and "uncased-value" not in [d.code for d in named.diagnostics]
    left_out = run_check(text + "cases:\n  - {given: {}, expect: p}\n")
    assert only(left_out, "uncased-value").got == ["x"]



def test_value_that_is_not_a_member_is_a_warning(engine_enum):
    d = only(run_check(bound_table(engine_enum("x y"))), "enum-extra-value")
    assert d.severity.value == "warning" and (d.got, d.facts.input) == ("z", "a")



def test_unimportable_binding_is_a_note_not_a_failure():
    c = run_check(bound_table("no_such_engine_pkg.spec:Algorithm"))
    d = only(c, "enum-import")
    assert d.severity.value == "note" and d.facts.module == "no_such_engine_pkg" and c.ok



def test_binding_whose_import_fails_is_a_warning_with_the_reason(engine_enum):
    """Valid, but --strict fails: an installed engine that does not import checks no drift."""
    c = run_check(bound_table(engine_enum("x y z", body="raise RuntimeError('needs a GPU')")))
    d = only(c, "enum-import-failed")
    assert "needs a GPU" in d.facts.reason and d.severity.value == "warning" and c.ok



def test_binding_to_a_non_enum_is_a_warning(engine_enum):
    engine_enum("x y z")
    c = run_check(bound_table("fake_engine:enum"))
    assert "not an Enum" in only(c, "enum-import-failed").facts.reason



@pytest.mark.parametrize("where", ["values", "sets"])
def test_a_value_that_is_not_a_member_is_reported_where_it_is_written(engine_enum, where):
    text = bound_table(engine_enum("x y"))
    if where == "sets":
        text = text.replace("a: {values: [x, y, z],", "a: {sets: {xy: [x, y], more: [\n      z]},")
    d = only(run_check(text), "enum-extra-value")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "z]" in ln)
    assert (d.span.line, d.span.column) == (line, text.splitlines()[line - 1].index("z]") + 1)


def test_whether_an_engine_is_installed_is_asked_as_importlib_asks_it(monkeypatch):
    """`_installed` answers importlib.util.find_spec's question for a top-level name (without
    its imports), from every finder on sys.meta_path, and imports nothing."""
    import importlib.util
    import sys

    from swapool.table import enums

    class Finder:  # as an editable install's finder serves a package from anywhere
        def find_spec(self, name, path, target=None):
            return importlib.util.spec_from_loader(name, loader=None) if name == "served_by_a_finder" else None

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    monkeypatch.setitem(sys.modules, "blocked_module", None)
    for name in ("json", "served_by_a_finder", "no_such_module_here", "blocked_module", "swapool"):
        try:
            expected = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            expected = False
        assert enums._installed(name) is expected, name
    assert "served_by_a_finder" not in sys.modules
