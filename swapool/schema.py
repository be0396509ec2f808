"""JSON Schema validation of a table document, every error mapped to line:column."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

from .diagnostics import Diagnostic, error
from .resources import schema_path
from .source import Document

_YAML_TYPE = {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "integer",
              float: "number", type(None): "null"}


_JSON_TO_YAML = {"object": "mapping", "array": "list", "string": "string", "boolean": "boolean",
                 "integer": "integer", "number": "number", "null": "null"}


@functools.cache
def table_schema() -> dict[str, Any]:
    """The table format's JSON Schema (shipped as schemas/swa-policy.schema.json)."""
    with schema_path().open(encoding="utf-8") as fh:
        return json.load(fh)


@functools.cache
def _validator() -> Draft202012Validator:
    schema = table_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def check_schema(doc: Document) -> list[Diagnostic]:
    """Every schema violation in `doc`, located at the offending value or key."""
    found = [_to_diagnostic(doc, e) for e in _validator().iter_errors(doc.data)]
    return sorted(set(found), key=Diagnostic.sort_key)


def _kind(value: Any) -> str:
    return _YAML_TYPE.get(type(value), type(value).__name__)


def _to_diagnostic(doc: Document, err: jsonschema.ValidationError) -> Diagnostic:
    path = tuple(err.absolute_path)
    where = "/".join(str(p) for p in path) or "the document"
    keyword = err.validator
    schema: Any = err.schema  # jsonschema types these loosely (they may be "unset")
    expected: Any = err.validator_value
    if keyword == "additionalProperties" and isinstance(err.instance, dict):
        allowed = schema.get("properties", {})
        extra = [k for k in err.instance if k not in allowed]
        if extra and allowed:
            return error("schema", f"unknown key '{extra[0]}' in {where}; expected one of: "
                         + ", ".join(allowed), doc.key_span(path + (extra[0],)))
    if keyword == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return error("schema", f"{where} is missing the required key '{missing}'", doc.span(path))
    if keyword == "type":
        if isinstance(expected, list):
            expected = " or ".join(str(_JSON_TO_YAML.get(t, t)) for t in expected)
        else:
            expected = _JSON_TO_YAML.get(expected, expected)
        return error("schema", f"{where}: expected {_article(str(expected))}, got {_kind(err.instance)} "
                     f"{_show(err.instance)}", doc.span(path))
    if keyword == "oneOf" and path and len(path) == 2 and path[0] == "inputs":
        return error("schema", f"input '{path[1]}' needs exactly one of 'values: [...]' or 'type: bool'",
                     doc.span(path))
    if keyword == "anyOf":
        return error("schema", f"{where}: a cell is a value, a list of values, '-' or "
                     f"{{not: [values]}}; got {_kind(err.instance)} {_show(err.instance)}", doc.span(path))
    if keyword == "propertyNames":
        return error("schema", f"{where}: name {_show(err.instance)} is not an identifier "
                     "(letters, digits and '_', not starting with a digit)", doc.span(path))
    if keyword == "pattern":
        return error("schema", f"{where}: {_show(err.instance)} does not match the pattern "
                     f"{expected}", doc.span(path))
    if keyword == "const":
        return error("schema", f"{where}: expected {_show(expected)}, got "
                     f"{_show(err.instance)}", doc.span(path))
    if keyword == "enum":
        return error("schema", f"{where}: expected one of {', '.join(map(str, expected))}, "
                     f"got {_show(err.instance)}", doc.span(path))
    return error("schema", f"{where}: {err.message}", doc.span(path))


def _article(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _show(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
