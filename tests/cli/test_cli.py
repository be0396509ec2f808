"""The command line: exit codes, output formats, explain, diff, help."""

import json
import subprocess
import sys

import pytest
import yaml

from swapool.cli import main

from ..helpers import NO_SUCH_VALUE, SHIPPED, line_of, mini, shipped_data

GOOD = mini("- {id: rx, when: {a: x, b: true}, then: p}\n- {id: rxf, when: {a: x, b: false}, then: q}\n"
            "- {id: rest, when: {a: [y, z]}, then: q}\n")
GAP = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y, b: true}, then: q}\n")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_shipped_table_is_valid(capsys):
    code, out, _ = run(capsys, "validate", str(SHIPPED))
    assert code == 0
    assert "valid (0 error(s)" in out.splitlines()[-1]


def test_findings_exit_1_with_file_line_col(capsys, write):
    p = write(GAP)
    code, out, _ = run(capsys, "validate", str(p))
    assert code == 1
    assert f"{p}:{line_of(GAP, 'rules:')}:1: error[gap]: no rule decides" in out
    assert "invalid (" in out.splitlines()[-1]


def test_missing_file_and_directory_exit_2(capsys, tmp_path):
    assert run(capsys, "validate", str(tmp_path / "nope.yaml"))[0] == 2
    assert run(capsys, "validate", str(tmp_path))[0] == 2


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["validate", "--format", "xml"])
    assert info.value.code == 2


def test_several_files_worst_code_wins(capsys, write):
    good, bad = write(GOOD, "good.yaml"), write(GAP, "bad.yaml")
    assert run(capsys, "validate", str(good))[0] == 0
    assert run(capsys, "validate", str(good), str(bad))[0] == 1


def test_strict_makes_warnings_fail(capsys, write):
    p = write(mini("- {id: rx, when: {a: x}, then: p}\n- {id: rest, when: {a: [y, z]}, then: q}\n"))
    assert run(capsys, "validate", str(p))[0] == 0  # unused-input is a warning
    assert run(capsys, "validate", "--strict", str(p))[0] == 1


def test_json_output_parses_with_the_documented_keys(capsys, write):
    p = write(GAP)
    code, out, _ = run(capsys, "validate", "--format", "json", str(p))
    data = json.loads(out)
    assert code == 1 and data["files"] == [str(p)]
    gap = next(d for d in data["diagnostics"] if d["code"] == "gap")
    assert set(gap) >= {"code", "severity", "message", "file", "line", "column", "rules", "witness"}
    assert gap["witness"] == {"a": "y", "b": False}


def _matches(cell, value, spec):
    """Whether `value` is in `cell`, read from the YAML as an author reads it."""
    if isinstance(cell, list):
        return value in cell
    if isinstance(cell, dict) and "in" in cell:
        names = [cell["in"]] if isinstance(cell["in"], str) else cell["in"]
        return any(value in spec["sets"][n] for n in names)
    if isinstance(cell, dict):
        return value not in cell["not"]
    return cell == "-" or cell == value


@pytest.mark.parametrize("rule_index", range(len(shipped_data()["rules"])))
def test_deleting_any_shipped_rule_prints_the_missing_combination(capsys, write, rule_index):
    data = shipped_data()
    removed = data["rules"].pop(rule_index)
    text = yaml.safe_dump(data, sort_keys=False)
    p = write(text)
    code, out, _ = run(capsys, "validate", "--no-enum-import", str(p))
    assert code == 1
    gaps = [line for line in out.splitlines() if "error[gap]: no rule decides" in line]
    assert gaps and all(line.startswith(f"{p}:{line_of(text, 'rules:')}:1:") for line in gaps), out
    _, out, _ = run(capsys, "validate", "--no-enum-import", "--format", "json", str(p))
    witnesses = [d["witness"] for d in json.loads(out)["diagnostics"] if d["code"] == "gap"]
    assert len(witnesses) == len(gaps)
    for w in witnesses:
        assert all(_matches(cell, w[name], data["inputs"][name]) for name, cell in removed["when"].items()), \
            (w, removed)


def test_explain_prints_decision_rule_and_why(capsys):
    code, out, _ = run(capsys, "explain", str(SHIPPED), "--set", "active_pool=other",
                       "--set", "is_draft_worker=true", "--set", "spec_algorithm=EAGLE",
                       "--set", "allocator_kvcache=swa")
    assert code == 0
    assert "decision: none" in out and "rule:     draft-owns-its-kv" in out and "why:" in out


def test_explain_json_and_errors(capsys):
    code, out, _ = run(capsys, "explain", str(SHIPPED), "--format", "json",
                       "--set", "active_pool=swa")
    assert code == 0 and json.loads(out)["output"] == "active"
    code, _, err = run(capsys, "explain", str(SHIPPED), "--set", f"spec_algorithm={NO_SUCH_VALUE}",
                       "--set", "active_pool=other", "--set", "is_draft_worker=true")
    assert code == 2 and NO_SUCH_VALUE in err
    code, _, err = run(capsys, "explain", str(SHIPPED), "--set", "is_draft_worker=maybe")
    assert code == 2 and "bool" in err


def test_schema_and_codes_commands(capsys):
    code, out, _ = run(capsys, "schema")
    assert code == 0 and json.loads(out)["title"]
    code, out, _ = run(capsys, "codes")
    assert code == 0 and "gap" in out and "overlap" in out


@pytest.mark.parametrize("argv", [["--help"], ["validate", "--help"], ["explain", "--help"],
                                  ["diff", "--help"], ["show", "--help"], ["mutate", "--help"]])
def test_help_exits_0_and_mentions_exit_codes_or_examples(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "usage:" in out


def test_module_entry_point_runs_without_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"rules: [\n")
    proc = subprocess.run([sys.executable, "-m", "swapool", "validate", str(bad)], capture_output=True,
                          text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert f"{bad}:2:1: error[yaml-syntax]" in proc.stdout


def test_show_partitions_the_input_space_by_deciding_rule(capsys):
    from swapool.table.analysis import Analysis
    from swapool.table.decided import decided_regions
    from swapool.table.partition import Budget
    from swapool.table.check import check_path
    from swapool.table.enums import EnumPolicy

    from ..oracle import Brute, cube_points

    table = check_path(SHIPPED, enums=EnumPolicy(do_import=False)).table
    seen = {}
    for ri, regions in decided_regions(Analysis(table, Budget())):
        for reg in regions:
            for p in cube_points(reg):
                assert p not in seen
                seen[p] = ri
    assert seen == Brute(table).decisions
    code, out, _ = run(capsys, "show", str(SHIPPED))
    assert code == 0 and len(out.splitlines()) == len(table.rules)
    assert "draft-owns-its-kv" in out and "spec_algorithm in [NONE, EAGLE" in out


def test_show_lists_what_a_first_hit_rule_really_decides_and_gaps_last(capsys, write):
    p = write(mini("- {id: xt, when: {a: x, b: true}, then: p}\n- {id: xs, when: {a: [x, y]}, then: q}\n",
                   hit_policy="first"))
    code, out, _ = run(capsys, "show", "--format", "json", str(p))
    rows = json.loads(out)["decisions"]
    assert code == 1
    assert [(r["rule"], r["region"]) for r in rows] == [
        ("xt", "a=x, b=true"), ("xs", "a=x, b=false"), ("xs", "a=y"), (None, "a=z")]


def test_check_file_returns_the_findings_as_values(write):
    import swapool
    ok = swapool.check_file(SHIPPED, import_enums=False)
    assert ok.ok and ok.table is not None and ok.table.decision == "swa_kv_pool"
    bad = swapool.check_file(write("format: 1\n"))
    assert not bad.ok and bad.diagnostics[0].code == "schema" and bad.diagnostics[0].span.line == 1
    assert "check_file" in swapool.__all__ and "Checked" in swapool.__all__


def test_codes_explains_one_code_from_the_catalogue(capsys):
    from swapool.swa.codes import CATALOGUE
    assert main(["codes", "unsafe-pool"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("unsafe-pool (error)") and CATALOGUE["unsafe-pool"].fix in out
    flat = " ".join(out.split())  # wrapped to 88 columns
    assert all(f"{label}: {text}" in flat for label, text in (("what", CATALOGUE["unsafe-pool"].summary),
                                                             ("why", CATALOGUE["unsafe-pool"].why)))
    assert all(c.why for c in CATALOGUE.values())  # every code says why it matters
    assert main(["codes", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(CATALOGUE)
    assert main(["codes", "gapp"]) == 2 and "did you mean 'gap'" in capsys.readouterr().err


def test_the_package_is_typed_licensed_and_has_one_version():
    import importlib.metadata
    from pathlib import Path

    import swapool
    meta = importlib.metadata.metadata("swapool")
    assert meta["Version"] == swapool.__version__
    assert "Typing :: Typed" in meta.get_all("Classifier")
    assert (Path(swapool.__file__).parent / "py.typed").is_file()
    assert (Path(swapool.__file__).parent.parent / "LICENSE").read_text().lstrip().startswith("Apache License")


def test_validate_reads_standard_input_named_by_stdin_filename(monkeypatch, capsys):
    import io
    text = mini("- {id: rx, when: {a: x}, then: p}\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["validate", "--stdin-filename", "policies/edited.yaml", "-"]) == 1
    out = capsys.readouterr().out
    assert f"policies/edited.yaml:{line_of(text, 'rules:')}:1: error[gap]" in out


def test_validate_walks_directories_for_yaml_files(tmp_path, capsys):
    (tmp_path / "a.yaml").write_text(SHIPPED.read_text())
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yml").write_text(mini("- {id: rx, when: {a: x}, then: p}\n"))
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.yaml").write_text("not: a table\n")
    (tmp_path / "notes.txt").write_text("ignored\n")
    assert main(["validate", "--no-enum-import", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "2 files checked" in out and "b.yml" in out and "c.yaml" not in out


def test_every_command_reads_tables_the_same_way(capsys):
    """PATH positional (or -), and the same reading flags, on every command that reads a table."""
    for command in ("validate", "explain", "diff", "show", "mutate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        for flag in ("--no-enum-import", "--enum-module", "--stdin-filename"):
            assert flag in text, (command, flag)
    assert main(["explain", str(SHIPPED), "--set", "active_pool=swa"]) == 0
    assert "decision: active" in capsys.readouterr().out


def test_io_errors_carry_their_file_in_json_and_a_location_in_sarif(tmp_path, capsys):
    missing = str(tmp_path / "missing.yaml")
    assert main(["validate", "--format", "json", missing]) == 2
    (d,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert (d["code"], d["file"], d["line"]) == ("io", missing, 1)
    assert main(["validate", "--format", "sarif", missing]) == 2
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (tmp_path / "missing.yaml").as_uri()


def test_show_never_drops_a_rule(write, capsys):
    """A rule that an earlier overlapping rule hides everywhere still gets a row."""
    path = str(write(mini("- {id: rx, when: {a: [x, y]}, then: p}\n- {id: hidden, when: {a: x}, then: q}\n"
                          "- {id: rz, when: {a: z}, then: q}\n")))
    assert main(["show", path]) == 1
    out = capsys.readouterr().out
    assert any(line.startswith("hidden") and "(nowhere" in line for line in out.splitlines())
    assert main(["show", "--format", "json", path]) == 1
    rows = json.loads(capsys.readouterr().out)["decisions"]
    assert {r["rule"] for r in rows} == {"rx", "hidden", "rz"}


def test_no_path_checks_the_checkout_table_from_any_folder_inside_it(tmp_path, monkeypatch, capsys):
    """Inside policies/ (or deeper) with the checkout's swa.yaml broken, `validate` and
    `explain` read that file, not the installed one."""
    policies = tmp_path / "policies"
    (policies / "deeper").mkdir(parents=True)
    (policies / "swa.yaml").write_text(mini("- {id: r, when: {a: -, b: -}, then: p}\n", hit_policy="firts"))
    for folder in (tmp_path, policies, policies / "deeper"):
        monkeypatch.chdir(folder)
        assert main(["validate", "--no-enum-import"]) == 1
        assert "firts" in capsys.readouterr().out


def test_no_path_outside_a_checkout_says_it_uses_the_installed_table(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "-q", "--no-enum-import"]) == 0
    assert f"swapool: reading {SHIPPED} (the installed table)" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["validate"], ["explain", "--set", "a=x", "--set", "b=true"], ["show"], ["mutate"]])
def test_without_a_path_every_command_follows_one_rule_and_says_which_table(argv, tmp_path, monkeypatch, capsys):
    """$SWAPOOL_POLICY, then policies/swa.yaml here or above, then the installed table."""
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "swa.yaml").write_text(mini("- {id: r, when: {a: -, b: -}, then: p}\n", hit_policy="firts"))
    named = tmp_path / "named.yaml"
    named.write_text(mini("- {id: all, when: {a: -, b: -}, then: q}\n", hit_policy="first"))
    monkeypatch.chdir(tmp_path / "policies")
    monkeypatch.setenv("SWAPOOL_POLICY", str(named))
    assert main([argv[0], "--no-enum-import", *argv[1:]]) in (0, 1)  # mutate: survivors, not the broken table
    captured = capsys.readouterr()
    assert f"swapool: reading {named} ($SWAPOOL_POLICY)" in captured.err and "firts" not in captured.out + captured.err
    monkeypatch.delenv("SWAPOOL_POLICY")
    main([argv[0], "--no-enum-import", *argv[1:]])
    captured = capsys.readouterr()
    assert "swapool: reading swa.yaml (policies/swa.yaml in this folder or the nearest above)" in captured.err
    assert "firts" in captured.out + captured.err


def test_an_empty_swapool_policy_is_a_usage_error_not_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SWAPOOL_POLICY", "")
    with pytest.raises(SystemExit) as exited:
        main(["validate"])
    assert exited.value.code == 2 and "$SWAPOOL_POLICY is set but empty" in capsys.readouterr().err


@pytest.mark.parametrize("relative", [False, True])
def test_validate_parses_each_file_once(capsys, tmp_path, monkeypatch, relative):
    """Checking swa.yaml checks swa_backends.yaml too (it imports swa.yaml): each file is read
    three times over (to find the importer, as itself, as an import) but parsed once, whether
    named by a relative path (as pre-commit passes it) or an absolute one."""
    import shutil

    from swapool.table import source

    for name in ("swa.yaml", "swa_backends.yaml"):
        shutil.copy(SHIPPED.parent / name, tmp_path / name)
    monkeypatch.chdir(tmp_path.parent)
    composed = []
    compose = source._compose
    monkeypatch.setattr(source, "_compose", lambda text: composed.append(text) or compose(text))
    code, out, _ = run(capsys, "validate", str(tmp_path.relative_to(tmp_path.parent) / "swa.yaml") if relative
                       else str(tmp_path / "swa.yaml"))
    assert code == 0 and "2 files checked: valid" in out
    assert len(composed) == 2 and len(set(composed)) == 2
