"""SARIF 2.1.0 and GitHub workflow-command renderings of diagnostics."""

from __future__ import annotations

import os
import pathlib
import urllib.parse
from typing import Sequence

from .._version import __version__
from ..swa.codes import CATALOGUE
from ..table.diagnostics import Diagnostic, Severity, Span, visible
from .jsonout import to_json
from .snippets import Sources

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(diagnostics: Sequence[Diagnostic], sources: Sources | None = None) -> str:
    rules = [{"id": name, "shortDescription": {"text": code.summary}, "fullDescription": {"text": code.why},
              "help": {"text": code.fix}} for name, code in CATALOGUE.items()]
    index = {name: i for i, name in enumerate(CATALOGUE)}
    results = []
    for d in diagnostics:
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": d.severity.value,  # SARIF's levels are swapool's severities: error, warning, note
            "message": {"text": d.message + (f"\nhelp: {d.help}" if d.help else "")},
        }
        if d.span:
            result["locations"] = [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(d.span.file)},
                "region": _region(d.span, sources),
            }}]
        if d.related:
            result["relatedLocations"] = [{
                "id": k, "message": {"text": other.label},
                "physicalLocation": {"artifactLocation": {"uri": _uri(other.span.file)},
                                     "region": _region(other.span, sources)},
            } for k, other in enumerate(d.related)]
        properties: dict[str, object] = {"facts": d.fact_values(), "rules": list(d.rules)}
        if d.witness:
            properties["witness"] = dict(d.witness)
        result["properties"] = properties
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "swapool", "version": __version__, "rules": rules}},
            "results": results,
        }],
    }
    return to_json(log, indent=2)


def _uri(file: str) -> str:
    """SARIF's `artifactLocation.uri` is a URI reference: a path under the working folder as
    a relative one, percent-encoded (`a b#c.yaml` -> `a%20b%23c.yaml`); any other as a file:
    URI; a name that is no file (`<stdin>`) percent-encoded as it is."""
    if file.startswith("<"):
        return urllib.parse.quote(file)
    here = os.path.abspath(file)
    relative = os.path.relpath(here)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return pathlib.Path(here).as_uri()
    return urllib.parse.quote(relative.replace(os.sep, "/"))


def _region(span: Span, sources: Sources | None) -> dict[str, int]:
    """SARIF's region: start, and the end column just past the span where the text is at hand."""
    region = {"startLine": span.line, "startColumn": span.column}
    end = sources.extent(span) if sources is not None else None
    if end is not None:
        region.update(endLine=end.line, endColumn=end.column)
    return region


def _escape_data(text: str) -> str:
    return visible(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics: Sequence[Diagnostic], sources: Sources | None = None) -> str:
    """`::error file=F,line=L,col=C,title=code::message` lines for GitHub Actions annotations."""
    lines = []
    for d in diagnostics:
        command = "notice" if d.severity is Severity.NOTE else d.severity.value  # GitHub's word for a note
        props = []
        if d.span:
            props += [f"file={_escape_property(d.span.file)}", f"line={d.span.line}", f"col={d.span.column}"]
            end = sources.extent(d.span) if sources is not None else None
            if end is not None:
                props += [f"endLine={end.line}", f"endColumn={end.column}"]
        props.append(f"title={_escape_property('swapool ' + d.code)}")
        lines.append(f"::{command} {','.join(props)}::{_escape_data(d.message)}")
    return "\n".join(lines)
