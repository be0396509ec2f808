"""What commands print and return under odd input: escaped text, exit codes, closed
streams, empty paths, JSON without NaN."""

from __future__ import annotations
import os
import re
import subprocess
import sys
import textwrap
import pytest
from swapool import PolicyError, load_policy
from swapool.cli import main
from swapool.swa.policy import clear_cache
from .. import hostile_families as families
from ..helpers import SHIPPED, mini


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



def test_a_fact_given_twice_with_different_values_is_a_usage_error(capsys):
    assert main(["explain", str(SHIPPED), "--set", "active_pool=swa", "--set", "active_pool=other"]) == 2
    assert "gives active_pool twice" in capsys.readouterr().err



@pytest.mark.parametrize("command", [["show"], ["explain", "--set", "i0=v0"], ["diff", "SAME"]])
def test_a_table_past_the_analysis_budget_is_a_finding_for_every_command(write, capsys, command):
    path = str(write(families.random_cubes(12, 8, 300)))
    argv = [command[0], path] + [path if a == "SAME" else a for a in command[1:]]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "too irregular to analyse exactly" in err and "Traceback" not in err


def test_a_valid_tables_notes_are_counted_not_shown_unless_verbose(capsys, tmp_path):
    """A newcomer's first run on correct tables: no framed note inviting a 'fix'. The
    tables here are the shipped ones as they are at test time: notes or not, two lines."""
    from swapool.cli import main

    from ..helpers import SHIPPED

    assert main(["validate", str(SHIPPED)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) <= 2 and not any("note[" in line for line in out), out
    assert main(["validate", "--verbose", str(SHIPPED)]) == 0
    verbose = capsys.readouterr().out
    notes = verbose.count("note[")
    assert (f"{notes} note(s) not shown, --verbose shows them" in out[-1]) == (notes > 0)
    broken = tmp_path / "t.yaml"  # a table with errors: its notes are shown (here a wildcard's, at the input)
    broken.write_text("format: 1\ndecision: d\nhit_policy: first\ninputs:\n  a: {values: [x, y], wildcard: true}\n"
                      "output: {values: [p, q]}\nrules:\n  - {id: r, when: {a: x}, then: p}\n  - {id: s, then: p}\n"
                      "cases:\n  - {given: {a: x}, expect: q}\n")
    assert main(["validate", str(broken)]) == 1
    assert "note[unnamed-value]" in capsys.readouterr().out


CAUSE = ("format: 1\ndecision: d\nhit_policy: unique\ninputs:\n  a: {sets: {own: [x, y], reads: [z]}}\n"
         "output: {values: [p, q]}\nrules:\n  - {id: o, when: {a: {in: onw}}, then: p}\n"
         "  - {id: r, when: {a: {in: reads}}, then: q}\ncases:\n  - {given: {a: x}, expect: p}\n")


def test_the_cause_comes_first_and_what_follows_from_it_is_counted(capsys, write):
    """A misspelt set: the unknown-set error is the first finding, not a gap whose help adds
    a rule; the findings of the partial analysis are held back (--verbose shows them after
    it), and JSON keeps every one, each naming the error it follows from."""
    import json

    from swapool.cli import main

    path = str(write(CAUSE))
    assert main(["validate", path]) == 1
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if "]: " in line and line.startswith(path)]
    assert len(headers) == 1 and "error[unknown-set]" in headers[0] and "did you mean 'own'?" in out
    assert "3 more finding(s) (analysis-partial, case-failed, gap)" in out
    assert out.splitlines()[-1] == "1 file checked: invalid (3 error(s), 0 warning(s))"  # the verdict counts them all
    assert main(["validate", "--verbose", path]) == 1
    verbose = [line.split(": ")[1] for line in capsys.readouterr().out.splitlines() if line.startswith(path)]
    assert verbose[0].startswith("error[unknown-set]") and len(verbose) == 4
    assert main(["validate", "-q", path]) == 1  # -q: what fails, the held-back errors counted too
    assert "2 more finding(s) (case-failed, gap)" in capsys.readouterr().out
    assert main(["validate", "--format", "json", path]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    cause = next(d for d in found if d["code"] == "unknown-set")
    following = [d for d in found if d["facts"].get("partial")]
    assert {d["code"] for d in following} == {"case-failed", "gap"}
    assert all(d["facts"]["caused_by"] == [f"{path}:{cause['line']}:{cause['column']}"] for d in following)


ROOT = SHIPPED.parent.parent


def test_a_write_error_is_one_line_on_stderr_and_exit_74_not_a_traceback():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system to fill the output")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "swapool", "validate", str(SHIPPED)], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 74, done.stderr
    assert done.stderr.strip().splitlines()[-1] == ("swapool validate: cannot write the output (No space left on "
                                                    "device); exit 74") and "Traceback" not in done.stderr


def test_with_stderr_closed_stdout_holds_only_the_document():
    """With standard error closed Python has no sys.stderr, and print(file=None) writes to
    stdout: the reading note would land in the JSON."""
    command = (f"{sys.executable} -m swapool explain --format json --set active_pool=swa "
               "--set is_draft_worker=false --set spec_algorithm=NONE --set allocator_kvcache=swa 2>&-")
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120, cwd=ROOT)
    import json

    assert json.loads(done.stdout)["output"] == "active", done.stdout


def test_the_kill_rate_is_never_rounded_up_to_all():
    from swapool.cli.mutate import _rate

    assert (_rate(2999, 3000), _rate(3000, 3000), _rate(0, 3), _rate(1, 3)) == ("99.9%", "100.0%", "0.0%", "33.3%")


def test_a_closing_rule_s_id_is_new_in_the_table(write, capsys):
    path = write(mini("- {id: close-gap-1, when: {a: x}, then: p}\n- {id: close-gap-3, when: {a: y, b: true}, then: p}\n"))
    assert main(["validate", "--format", "json", str(path)]) == 1
    import json

    closing = [d["facts"]["closing"]["id"] for d in json.loads(capsys.readouterr().out)["diagnostics"]
               if d["code"] == "gap"]
    assert closing and not {"close-gap-1", "close-gap-3"} & set(closing)


def test_diff_text_tells_a_bool_from_the_string_that_reads_like_one(write, capsys):
    head = "format: 1\ndecision: demo\nhit_policy: unique\ninputs:\n"
    old = write(head + "  b: {type: bool}\noutput: {values: [p, q]}\nrules:\n"
                "  - {id: r1, when: {b: true}, then: p}\n  - {id: r2, when: {b: false}, then: q}\n", "old.yaml")
    new = write(head + "  b: {values: ['true', 'false']}\noutput: {values: [p, q]}\nrules:\n"
                "  - {id: r1, when: {b: 'true'}, then: q}\n  - {id: r2, when: {b: 'false'}, then: p}\n", "new.yaml")
    assert main(["diff", str(old), str(new)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert 'b="true": (not in the table\'s domain) -> q (r1)' in lines
    assert "b=true: p (r1) -> (not in the table's domain)" in lines


def test_explain_and_diff_answer_mid_edit_without_the_rule_that_failed_to_build(write, capsys):
    """The README's promise: a table with a misspelt value in one rule is still answered
    (exit 1, a note on stderr), not refused as unreadable."""
    text = SHIPPED.read_text()
    at = text.index("then: active")
    mid = write(text[:at] + "then: activ" + text[at + len("then: active"):], "swa.yaml")
    facts = ["--set", "active_pool=other", "--set", "is_draft_worker=true", "--set", "spec_algorithm=EAGLE",
             "--set", "allocator_kvcache=swa", "--no-enum-import"]
    assert main(["explain", str(mid), *facts]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("decision: none\nrule:     draft-owns-its-kv") and "failed to build are left out" in err
    assert main(["diff", "--no-enum-import", str(SHIPPED), str(mid)]) == 1
    out, err = capsys.readouterr()
    assert "active_pool=swa: active (active-pool-is-swa) -> (no rule decides it)" in out.splitlines(), out
    assert "could not be read" not in err


def test_text_output_is_bounded_by_the_input_and_json_keeps_every_finding(write, capsys):
    """3,000 rules that one rule hides: each is an unreachable-rule error; text shows the
    first few of the code and counts the rest, JSON lists all."""
    rules = "\n".join(f"  - {{id: r{i}, when: {{}}, then: p}}" for i in range(3000))
    path = write("format: 1\ndecision: demo\nhit_policy: first\ninputs:\n  a: {values: [x, y]}\n"
                 "output: {values: [p]}\nrules:\n" + rules + "\n")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert len(out) < 10_000, len(out)
    assert out.count("error[unreachable-rule]") == 5
    assert (f"{path}: 2994 more unreachable-rule finding(s) like those above (rule(s) r6, r7, r8, r9, r10 and "
            "2,989 more): --format json lists every one") in out.splitlines()
    assert out.splitlines()[-1] == f"1 file checked: invalid (2999 error(s), 1 warning(s))"
    assert main(["validate", "--format", "json", str(path)]) == 1
    import json

    assert sum(d["code"] == "unreachable-rule" for d in json.loads(capsys.readouterr().out)["diagnostics"]) == 2999


def test_text_output_reads_each_tables_verdict_once_not_once_a_finding(write, capsys, monkeypatch):
    """`Checked.ok` looks at every finding; read once a finding, 10,000 warnings cost 10^8
    steps (25 s for one table of 20,000 values in a case of their own)."""
    from swapool.table.check import Checked

    reads = [0]
    verdict = Checked.ok.fget

    def counted(self):
        reads[0] += 1
        return verdict(self)
    monkeypatch.setattr(Checked, "ok", property(counted))
    values = ", ".join([f"V{i}" for i in range(300)] + [f"v{i}x" for i in range(299)])
    path = write("format: 1\ndecision: demo\nhit_policy: first\ninputs:\n"
                 f"  a: {{values: [{values}], wildcard: true}}\noutput: {{values: [p, q]}}\n"
                 "rules:\n  - {id: first, when: {a: V0}, then: p}\n  - {id: rest, then: q}\n")
    assert main(["validate", "--no-enum-import", str(path)]) == 0
    assert "294 more value-case finding(s)" in capsys.readouterr().out
    assert reads[0] <= 5, reads[0]


def test_at_most_a_hundred_findings_are_shown_in_text_in_all(tmp_path, capsys):
    for i in range(60):  # 60 files, each with a gap and an overlap
        (tmp_path / f"t{i:02}.yaml").write_text(
            "format: 1\ndecision: demo\nhit_policy: unique\ninputs:\n  a: {values: [x, y, z]}\n"
            "output: {values: [p, q]}\nrules:\n  - {id: r1, when: {a: x}, then: p}\n"
            "  - {id: r2, when: {a: x}, then: q}\n")
    main(["validate", str(tmp_path)])
    lines = capsys.readouterr().out.splitlines()
    headers = [line for line in lines if "error[" in line or "warning[" in line or "note[" in line]
    assert len(headers) == 100
    assert any(re.fullmatch(r"\d+ more finding\(s\) not shown \([a-z, -]+\): --format json lists every one", line)
               for line in lines), lines[-5:]


def test_explain_on_a_gap_of_a_table_mid_edit_is_a_finding_and_a_wrong_fact_a_usage_error(write, capsys):
    """Exit codes from what went wrong, not from the words of the message."""
    gap = write(mini("- {id: rx, when: {a: x}, then: p}\n"))  # a in y, z decided by no rule
    assert main(["explain", str(gap), "--set", "a=y", "--set", "b=true"]) == 1
    assert "no rule decides" in capsys.readouterr().err
    assert main(["explain", str(gap), "--set", "a=w", "--set", "b=true"]) == 2
    capsys.readouterr()
