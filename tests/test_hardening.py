"""Hardening: bounded analysis on hostile families, the SWA contract in code, escaped
output, and the small holes (paths, exit codes, identifiers, positions)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from swapool import PolicyError, load_policy
from swapool.cli import main
from swapool.swa.policy import Policy, clear_cache
from swapool.table.analysis import analyse
from swapool.table.check import check_bytes, check_path
from swapool.table.enums import EnumPolicy
from swapool.table.partition import Budget

from . import hostile_families as families
from .helpers import SHIPPED, mini

NO_IMPORT = EnumPolicy(do_import=False)


def check(text: str):
    return check_bytes(text, "t.yaml", enums=NO_IMPORT)


def used(text: str) -> int:
    budget = Budget()
    table = check(text).table
    assert table is not None
    analyse(table, budget)
    return budget.used


# -- bounded analysis ---------------------------------------------------------------


def test_the_chain_family_is_valid_and_polynomial():
    """n bool inputs, rule i = {x_i: true}, then a catch-all: 2^n live-rule sets, but
    doubling n costs about 4x, not 2^n x."""
    assert check(families.chain(20)).ok
    small, large = used(families.chain(20)), used(families.chain(40))
    assert large < 6 * small, (small, large)


def test_a_deep_chain_needs_no_recursion():
    """600 levels of decisions: a recursive split would hit Python's recursion limit."""
    c = check(families.chain(600))
    assert c.ok, [str(d) for d in c.diagnostics[:3]]


def test_rules_without_structure_end_in_the_budget_error_not_a_runaway():
    c = check(families.random_cubes(12, 8, 300))
    d = next(d for d in c.diagnostics if d.code == "analysis-budget")
    assert d.is_error and d.span.line == families.random_cubes(12, 8, 300).splitlines().index("rules:") + 1
    assert (d.facts["problem"], d.facts["limit"]) == ("steps", 2_000_000)


def test_a_table_too_large_for_the_model_is_refused_before_it_is_built():
    c = check(families.chain(1500))
    assert [d.code for d in c.diagnostics] == ["analysis-budget"] and c.diagnostics[0].facts["problem"] == "cells"


def test_an_input_with_many_values_is_linear_and_its_finding_is_short():
    c = check(families.wide_input(50_000))
    d = next(d for d in c.diagnostics if d.code == "unnamed-value")
    assert "and 49,991 more" in d.message and len(d.message) < 300


def test_identical_rules_report_capped_partner_lists():
    c = check(families.identical_rules(2000))
    overlaps = [d for d in c.diagnostics if d.code == "overlap"]
    assert len(overlaps) == 1999
    assert overlaps[-1].message.startswith("rule 'r1999' overlaps 'r0', 'r1', 'r2' and 1,996 more")
    assert sum(len(str(d)) for d in c.diagnostics) < 600_000  # 16.7 MB before


def test_a_budget_error_is_a_load_error_too(write):
    clear_cache()
    with pytest.raises(PolicyError, match="analysis-budget"):
        load_policy(write(families.random_cubes(12, 8, 300)), import_enums=False)


# -- the SWA contract is code -----------------------------------------------------------


CORPUS = os.path.join(os.path.dirname(__file__), "corpus", "hostile")


def test_deleting_the_invariants_cannot_make_the_allocator_answer_unsafe(capsys):
    """The issue's attack: without invariants and with the FROZEN_KV_MTP rules merged,
    the table would hand back the allocator's non-SWA kvcache."""
    path = os.path.join(CORPUS, "unsafe-allocator-without-invariants.yaml")
    assert main(["validate", path]) == 1
    out = capsys.readouterr().out
    assert "error[unsafe-pool]: rule 'frozen-kv-mtp-reads-target' answers 'allocator' where " \
           "allocator_kvcache=other" in out
    clear_cache()
    with pytest.raises(PolicyError, match="unsafe-pool"):
        load_policy(path, import_enums=False)


def test_the_resolver_refuses_an_unsafe_answer_even_without_the_contract():
    """The walk hands out only a pool it saw pass the SWA check on its path."""
    from .test_runtime import runner

    table = check(open(os.path.join(CORPUS, "unsafe-allocator-without-invariants.yaml")).read()).table
    assert table is not None  # the generic checks alone accept it
    policy = Policy(table, "unsafe.yaml")
    with pytest.raises(PolicyError, match="answered 'allocator', a pool that did not pass the SWA check"):
        policy.resolve(runner("other", True, "FROZEN_KV_MTP", "other"))


def test_the_shipped_tables_meet_the_contract():
    from swapool.swa.contract import CONTRACTS
    for name in ("swa.yaml", "swa_backends.yaml"):
        c = check_path(SHIPPED.parent / name, enums=NO_IMPORT, contracts=CONTRACTS)
        assert c.ok, [str(d) for d in c.diagnostics]


# -- output cannot be forged ------------------------------------------------------------------


FORGING = textwrap.dedent('''\
    format: 1
    decision: demo
    hit_policy: unique
    inputs:
      a: {values: ["x\\e]0;pwned\\a", "y\\nt.yaml:1:1: error[gap]: forged"]}
    output: {values: [p, q]}
    rules:
      - {id: r, when: {a: "x\\e]0;pwned\\a"}, then: p, why: "clears \\e[2J the screen"}
    ''')


def test_control_characters_from_a_table_are_shown_escaped_in_every_text_output(write, capsys):
    path = str(write(FORGING))
    main(["validate", path])
    main(["show", path])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\\x1b]0;pwned\\x07" in out
    assert not any(line.startswith("t.yaml:1:1") for line in out.splitlines())
    gutter = re.compile(r" *\d* \|")  # the source lines under a finding
    assert all(line.startswith((path, "  = ", "1 file")) or gutter.match(line) for line in out.splitlines()[:6])


def test_explain_escapes_the_why_it_prints(write, capsys):
    table = FORGING.replace(', "y\\nt.yaml:1:1: error[gap]: forged"', ", y") + "  - {id: ry, when: {a: y}, then: q}\n"
    path = str(write(table))
    assert main(["explain", path, "--set", "a=x\x1b]0;pwned\x07"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "why:      clears \\x1b[2J the screen" in out


# -- small holes ----------------------------------------------------------------------------------


def test_a_fifo_is_refused_without_blocking(tmp_path):
    """Run in a child with a deadline: a regression must fail, not hang the suite."""
    fifo = tmp_path / "table.yaml"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "swapool", "validate", str(fifo)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "not a regular file" in done.stdout
    code = "import swapool\ntry:\n    swapool.load_policy()\nexcept swapool.PolicyError as e:\n    print(e)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, SWAPOOL_POLICY=str(fifo)))
    assert "not a regular file" in done.stdout, done.stderr


def test_a_pipe_swapped_in_after_a_check_cannot_block_the_read(tmp_path):
    """The file is opened without blocking, then examined: a FIFO that a stat() would have
    called a regular file (the race) is still refused. In a child with a deadline."""
    fifo = tmp_path / "table.yaml"
    os.mkfifo(fifo)
    code = ("import os, stat, sys\nfrom swapool.table import source\nreal = os.stat\n"
            "class Regular:\n    st_mode = stat.S_IFREG | 0o644\n    st_size = 10\n"
            "source.os.stat = lambda p, *a, **k: Regular() if str(p) == sys.argv[1] else real(p, *a, **k)\n"
            "print(source.read_bytes(sys.argv[1])[1][0].facts['problem'])")
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "not-regular", done.stderr


def test_a_file_that_reports_no_size_is_not_read():
    """A /proc file says size 0 and some block when read (/proc/kmsg): taken as empty, unread."""
    from swapool.table.source import read_bytes

    assert read_bytes("/proc/self/status") == (b"", [])


def test_empty_paths_are_errors_not_the_shipped_table(capsys, monkeypatch):
    assert main(["explain", "", "--set", "active_pool=swa"]) == 2
    assert "empty path" in capsys.readouterr().err
    assert main(["show", ""]) == 2
    assert main(["validate", ""]) == 2
    clear_cache()
    monkeypatch.setenv("SWAPOOL_POLICY", "")
    with pytest.raises(PolicyError, match=r"\$SWAPOOL_POLICY is set but empty"):
        load_policy()


def test_quiet_strict_shows_the_warnings_that_fail_it(write, capsys):
    warned = mini("- {id: r, when: {a: [x, y, z]}, then: p}\n")  # full-domain-cell and unused-input warnings
    path = str(write(warned))
    assert main(["validate", "-q", path]) == 0
    assert capsys.readouterr().out == ""
    assert main(["validate", "--strict", "-q", path]) == 1
    out = capsys.readouterr().out
    assert "warning[full-domain-cell]" in out and "warning[unused-input]" in out and "failed (--strict" in out


def test_show_exit_codes_follow_the_readme(write, capsys, tmp_path):
    gap = str(write(mini("- {id: rx, when: {a: x}, then: p}\n"), "gap.yaml"))
    assert main(["show", gap]) == 1
    broken = str(write(mini("- {id: rx, when: {a: w}, then: p}\n"), "broken.yaml"))
    assert main(["show", broken]) == 1
    assert main(["show", str(tmp_path / "missing.yaml")]) == 2
    capsys.readouterr()


def test_a_non_utf8_file_name_prints_under_a_strict_utf8_stdout(tmp_path):
    name = os.fsencode(tmp_path) + b"/\xff.yaml"
    with open(name, "wb") as fh:
        fh.write(mini("- {id: rx, when: {a: x}, then: p}\n").encode())
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict")
    done = subprocess.run([os.fsencode(sys.executable), b"-m", b"swapool", b"validate", name],
                          capture_output=True, env=env)
    assert done.returncode == 1, done.stderr
    assert b"Traceback" not in done.stderr and b"\\udcff.yaml" in done.stdout


def test_identifiers_refuse_a_trailing_newline():
    c = check(mini("- {id: \"rx\\n\", when: {a: x}, then: p}\n- {id: r, when: {a: [y, z]}, then: q}\n"))
    assert [(d.code, d.got) for d in c.diagnostics] == [("schema", "rx\n")]
    assert "\\n" in str(c.diagnostics[0])  # shown as an escape, never as a line break


def test_an_input_named_output_is_refused():
    c = check(mini("- {id: r, then: p}\n").replace("  b: {type: bool}\n", "  output: {type: bool}\n"))
    assert "reserved-name" in [d.code for d in c.diagnostics]


def test_positions_are_the_editors_when_a_comment_holds_a_line_separator():
    """YAML counts U+0085 and U+2028 as line breaks; editors do not."""
    body = mini("- {id: rx, when: {a: w}, then: p}\n")
    for odd in ("\u0085", "\u2028", "\u2029"):
        text = body.replace("format: 1\n", f"format: 1\n# a comment with {odd}\n", 1)
        d = check(text).diagnostics[0]
        want = text.split("\n").index("  - {id: rx, when: {a: w}, then: p}") + 1
        assert (d.code, d.span.line) == ("unknown-value", want), (repr(odd), str(d))


def test_rules_with_equal_remaining_cells_do_not_multiply_the_dag():
    """rule i = {x_i: true, y: a}, then a catch-all: 2^n sets of alive rules, but rules
    whose cells below are equal decide alike, so the DAG stays polynomial."""
    assert used(families.guarded_chain(24)) < 200_000


def test_a_reader_that_closes_the_pipe_early_does_not_change_the_verdict(tmp_path):
    """`swapool validate dir/ | head`: the findings are still exit 1, and no traceback."""
    for i in range(300):
        (tmp_path / f"t{i}.yaml").write_text("format: 1\ndecision: demo\nhit_policy: unique\ninputs:\n"
                                             "  a: {values: [x, y]}\noutput: {values: [p]}\nrules:\n"
                                             "  - {id: r, when: {a: x}, then: p}\n")
    done = subprocess.run(["bash", "-c", f'"{sys.executable}" -m swapool validate "{tmp_path}" | head -c 10 '
                                         '>/dev/null; echo "exit ${PIPESTATUS[0]}"'],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "exit 1" and "Traceback" not in done.stderr, done.stderr


def test_json_output_never_holds_bare_nan_or_infinity(write, capsys):
    import json

    table = write("format: 1\ndecision: demo\nhit_policy: unique\ninputs:\n  a: {values: [.nan, .inf]}\n"
                  "output: {values: [p]}\nrules:\n  - {id: r, when: {a: .inf}, then: p}\n")
    main(["validate", "--format", "json", str(table)])
    out = capsys.readouterr().out
    json.loads(out, parse_constant=lambda name: pytest.fail(f"bare {name} in JSON output"))


def test_standard_input_closed_is_an_io_error_not_a_traceback():
    done = subprocess.run([sys.executable, "-m", "swapool", "validate", "-"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60, preexec_fn=lambda: os.close(0))
    assert done.returncode == 2 and "standard input is closed" in done.stdout, done.stderr


@pytest.mark.parametrize("text, says", [('a: !!int ""\n', {"problem": "bad-value", "value": "", "kind": "int"}),
                                        ("a: " + "9" * 5000 + "\n", {"problem": "long-number", "length": 5000,
                                                                       "limit": 64})])
def test_scalars_that_break_or_slow_the_constructor_are_located_errors(text, says):
    from swapool.table.source import parse_document

    doc, problems = parse_document(text, "t.yaml")
    assert doc is None and [p.code for p in problems] == ["yaml-tag"] and problems[0].facts == says


def test_a_fact_given_twice_with_different_values_is_a_usage_error(capsys):
    assert main(["explain", str(SHIPPED), "--set", "active_pool=swa", "--set", "active_pool=other"]) == 2
    assert "gives active_pool twice" in capsys.readouterr().err


def test_the_reader_s_work_per_anchor_is_the_anchored_value_not_the_document(monkeypatch):
    """Counted, not timed: how many values the reader builds for 4,000 anchors and their aliases."""
    from swapool.table import source

    built = []
    real_value = source._Builder.value

    def value(self, node, depth, flow):
        built.append(node)
        return real_value(self, node, depth, flow)
    monkeypatch.setattr(source._Builder, "value", value)
    text = families.many_anchors(4000)
    doc, problems = source.parse_document(text, "t.yaml")
    assert doc is not None and not problems
    assert len(built) <= len(text) and len(built) <= 10 * 4000, len(built)


@pytest.mark.parametrize("command", [["show"], ["explain", "--set", "i0=v0"], ["diff", "SAME"]])
def test_a_table_past_the_analysis_budget_is_a_finding_for_every_command(write, capsys, command):
    path = str(write(families.random_cubes(12, 8, 300)))
    argv = [command[0], path] + [path if a == "SAME" else a for a in command[1:]]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "too irregular to analyse exactly" in err and "Traceback" not in err


def test_a_valid_table_deeper_than_the_recursion_limit_is_explained_and_drawn(write, capsys):
    """990 inputs read one after another: the diagram is built and drawn without recursion."""
    assert sys.getrecursionlimit() < 990 + 100
    path = str(write(families.chain(990)))
    facts = [f"--set=x{i}=false" for i in range(990)]
    assert main(["explain", path, *facts]) == 0
    assert "rule:     rest" in capsys.readouterr().out
    assert main(["show", "--format", "dot", path]) == 0
    assert capsys.readouterr().out.startswith("digraph")


class _PosesAsStr:
    """Claims to be a str through `__class__` and equals every string."""

    @property  # type: ignore[misc]
    def __class__(self):
        return str

    def __hash__(self):
        return hash("EAGLE")

    def __eq__(self, other):
        return True


class _ReprRaises:
    def __repr__(self):
        raise RuntimeError("repr exploded")


@pytest.mark.parametrize("fact", [_PosesAsStr(), _ReprRaises()], ids=["poses-as-str", "repr-raises"])
def test_a_hostile_fact_object_is_refused_as_out_of_domain(fact):
    from .test_runtime import runner

    policy = load_policy(SHIPPED, import_enums=False)
    with pytest.raises(PolicyError, match="spec_algorithm=.* is not in the domain"):
        policy.decide(active_pool="other", is_draft_worker=True, spec_algorithm=fact, allocator_kvcache="swa")
    with pytest.raises(PolicyError, match="spec_algorithm=.* is not in the domain"):
        policy.resolve(runner("other", True, fact, "swa"))


@pytest.mark.parametrize("a, out", [("{values: [x, '-', z]}", "[p, q]"), ("{values: [x, y]}", "[p, '-']"),
                                    ("{sets: {odd: [x, '-']}}", "[p, q]")])
def test_the_any_cell_cannot_be_declared_as_a_value(a, out):
    """'-' in a cell always means any value, so a value named '-' could never be chosen alone."""
    checked = check(f"format: 1\ndecision: demo\nhit_policy: first\ninputs:\n  a: {a}\n"
                    f"output: {{values: {out}}}\nrules:\n- {{id: r, when: {{a: '-'}}, then: p}}\n")
    errors = [d for d in checked.diagnostics if d.severity.name == "ERROR"]
    assert checked.table is None and errors, [str(d) for d in checked.diagnostics]
    assert all(d.got == "-" for d in errors), [str(d) for d in errors]


def test_pairing_missing_keys_with_their_typos_is_linear_in_the_errors(monkeypatch):
    """Counted, not timed: how often an error's place is read while pairing a missing `id`
    with the unknown `idd` beside it, for 400 rules (quadratic was ~ 400 x 800)."""
    import jsonschema

    reads = [0]
    real = jsonschema.ValidationError.absolute_path

    def counted(self):
        reads[0] += 1
        return real.fget(self)
    monkeypatch.setattr(jsonschema.ValidationError, "absolute_path", property(counted))
    checked = check(families.misspelt_keys(400))
    assert [d.code for d in checked.diagnostics] == ["schema"] * 400
    assert all(d.facts["suggestion"] == "id" for d in checked.diagnostics)
    assert reads[0] <= 10 * 800, reads[0]


def test_did_you_mean_works_on_a_budget_per_check(monkeypatch):
    """Counted: the choices difflib compares words with, for 300 misspelt values over a
    200-value domain (without a budget: 60,000); a repeated misspelling is remembered."""
    import difflib

    compared = [0]
    real = difflib.get_close_matches

    def counted(word, possibilities, *args, **kwargs):
        compared[0] += len(possibilities)
        return real(word, possibilities, *args, **kwargs)
    monkeypatch.setattr(difflib, "get_close_matches", counted)
    checked = check(families.misspelt_values(300, 200))
    assert [d.code for d in checked.diagnostics] == ["unknown-value"] * 300
    assert compared[0] <= 10_000, compared[0]
    assert checked.diagnostics[0].facts["suggestion"] == "value0"
    compared[0] = 0
    checked = check(families.misspelt_values(300, 1))
    assert compared[0] == 1 and all(d.facts["suggestion"] == "value0" for d in checked.diagnostics)


def test_a_misspelt_fact_is_named_as_such_before_the_advice_to_add_it():
    policy = load_policy(SHIPPED, import_enums=False)
    facts = dict(active_pool="other", is_draft_worker=True, allocator_kvcache="swa")
    with pytest.raises(PolicyError, match="Did you mean 'EAGLE'[?] If it is a new value: append it"):
        policy.decide(spec_algorithm="EAGEL", **facts)
    with pytest.raises(PolicyError) as refused:
        policy.decide(spec_algorithm="MEDUSA", **facts)
    assert "Did you mean" not in str(refused.value) and "Append it to" in str(refused.value)


def test_many_rules_that_are_all_redundant_together_cost_one_check_not_one_each():
    """600 rules, each redundant, all removable at once: named in one joint check. Taken one
    at a time with the needed rules worked out again after each, they ran out of budget."""
    c = check(families.chain(600).replace("- {id: rest, then: q}", "- {id: rest, then: p}"))
    assert [d.code for d in c.diagnostics].count("redundant-rule") == 600
    assert "analysis-budget" not in [d.code for d in c.diagnostics]
