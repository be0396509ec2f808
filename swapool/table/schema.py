"""Stage 2, schema: JSON Schema validation of a table document, every error located.

A valid document passes the compiled check (`generated/schema_check`, generated from the schema)
and jsonschema is never imported. Only a document that fails it is handed to jsonschema,
for every violation with its structured fields (`validator`, `validator_value`,
`instance`, `context`); messages are built from those, never from its prose.
"""

from __future__ import annotations

import functools

from .cells import ANY_CELL
from .codes import SCHEMA, Schema
from .diagnostics import Diagnostic, error, suggest
from .generated import schema_check
from .source import Document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import jsonschema

_YAML_TYPE = {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "integer",
              float: "number", type(None): "null"}

_JSON_TO_YAML = {"object": "mapping", "array": "list", "string": "string", "boolean": "boolean",
                 "integer": "integer", "number": "number", "null": "null"}


@functools.cache
def table_schema() -> dict[str, Any]:
    """The table format's JSON Schema (shipped as schemas/decision-table.schema.json)."""
    from .shipped import schema_path  # only to explain a failure: the happy path needs no file

    import json

    with schema_path().open(encoding="utf-8") as fh:
        return json.load(fh)


@functools.cache
def _validator() -> "jsonschema.Draft202012Validator":
    from jsonschema import Draft202012Validator

    schema = table_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def check_schema(doc: Document) -> list[Diagnostic]:
    """Every schema violation in `doc`, located at the offending value or key (unsorted;
    the check sorts once)."""
    try:
        schema_check.validate(doc.data)
        return []
    except schema_check.SchemaMismatch:
        pass
    errors = list(_validator().iter_errors(doc.data))
    typos: dict[tuple, set[str]] = {}  # per place, the allowed keys an unknown key there is a typo of
    for e in errors:
        typo = _typo(e)
        if typo is not None:
            typos.setdefault(tuple(e.absolute_path), set()).add(typo[1])
    found = (_to_diagnostic(doc, e) for e in errors if not _explained_by_a_typo(e, typos))
    return list({(d.span, d.message): d for d in found}.values())  # one jsonschema error may be reached twice


def _typo(err: "jsonschema.ValidationError") -> tuple[str, str] | None:
    """(unknown key, the allowed key it is a typo of) for an additionalProperties error."""
    schema: Any = err.schema
    if err.validator != "additionalProperties" or not isinstance(err.instance, dict):
        return None
    allowed = list(schema.get("properties", {}))
    for key in err.instance:
        if key not in allowed:
            near = suggest(key, [a for a in allowed if a not in err.instance])
            if near is not None:
                return key, near
    return None


def _explained_by_a_typo(err: "jsonschema.ValidationError", typos: dict[tuple, set[str]]) -> bool:
    """A missing required key that an unknown key at the same place is a typo of: one
    mistake, reported once (as the unknown key, with the suggestion)."""
    required: Any = err.validator_value
    if err.validator != "required" or not isinstance(err.instance, dict):
        return False
    missing = [k for k in required if k not in err.instance]
    return bool(missing) and set(missing) <= typos.get(tuple(err.absolute_path), set())


def _place(doc: Document, path: tuple) -> dict[str, Any]:
    """The facts that name a place: its path, and the id of the rule or invariant it is in."""
    item = None
    if len(path) >= 2 and path[0] in ("rules", "invariants") and isinstance(path[1], int):
        items = doc.data.get(path[0]) if isinstance(doc.data, dict) else None
        found = items[path[1]] if isinstance(items, list) and path[1] < len(items) else None
        item = found.get("id") if isinstance(found, dict) else None
    return {"path": list(path), "item": item if isinstance(item, str) else None}


def _kind(value: Any) -> str:
    return _YAML_TYPE.get(type(value), type(value).__name__)


def _yaml_type(json_type: Any) -> str:
    if isinstance(json_type, list):
        return " or ".join(_JSON_TO_YAML.get(str(t), str(t)) for t in json_type)
    return _JSON_TO_YAML.get(str(json_type), str(json_type))


def _to_diagnostic(doc: Document, err: jsonschema.ValidationError) -> Diagnostic:
    path = tuple(err.absolute_path)
    keyword = str(err.validator)
    schema: Any = err.schema  # jsonschema types these loosely (they may be "unset")
    expected: Any = err.validator_value
    got: Any = err.instance
    span = doc.span(path)

    def found(problem: Schema, *, at: Any = None, want: Any = expected, have: Any = got, **facts: Any) -> Diagnostic:
        return error(SCHEMA, at or span, problem=problem, expected=want, got=have, keyword=keyword,
                     **_place(doc, path), **facts)

    if keyword == "additionalProperties" and isinstance(got, dict):
        allowed = list(schema.get("properties", {}))
        extra = [k for k in got if k not in allowed]
        if extra and allowed:
            typo = _typo(err)
            return found(Schema.UNKNOWN_KEY, at=doc.key_span(path + (extra[0],)), want=allowed, have=extra[0],
                         suggestion=typo[1] if typo and typo[0] == extra[0] else None)
    if keyword == "required" and isinstance(got, dict):
        missing = [k for k in expected if k not in got]
        inside = next((k for k, v in got.items() if isinstance(v, dict) and missing[0] in v), None)
        if inside is not None:  # `then:` indented under `when:`: name it where it is written
            at = doc.key_span(path + (inside, missing[0]))
            parent = doc.key_span(path + (inside,))
            return found(Schema.NESTED_KEY, at=at, want=missing, have=list(got), inside=inside,
                         column=parent.column if parent else None)
        return found(Schema.MISSING_KEY, want=missing, have=list(got))
    if keyword == "type":
        return found(Schema.TYPE, want=_yaml_type(expected), have=_kind(got), value=got)
    if keyword == "oneOf" and len(path) == 2 and path[0] == "inputs":
        return found(Schema.DOMAIN, want=list(_DOMAIN_KEYS), have=list(got) if isinstance(got, dict) else _kind(got),
                     input=path[1], given=[k for k in _DOMAIN_KEYS if isinstance(got, dict) and k in got])
    if keyword == "anyOf" and path[-1:] == ("in",):
        return found(Schema.SET_NAME, want="set name", have=_kind(got), value=got)
    if keyword == "anyOf":
        return _cell_error(doc, err, path)
    if keyword == "propertyNames":
        return found(Schema.IDENTIFIER, want="identifier")
    if keyword == "pattern" and isinstance(got, str) and got.strip() != got:
        return found(Schema.SPACED, want=got.strip())  # 'MEDUSA ' would never equal an engine's name
    if keyword == "pattern":
        return found(Schema.PATTERN)
    if keyword == "const":
        return found(Schema.CONST)
    if keyword == "enum":
        return found(Schema.ENUM, suggestion=suggest(got, expected))
    if keyword == "not" and got == ANY_CELL:
        return found(Schema.DASH_VALUE, want="a value name")
    if keyword in ("minItems", "minProperties", "minLength"):
        return found(Schema.EMPTY, want=f"{keyword} {expected}")
    return found(Schema.OTHER, detail=err.message)


def _cell_error(doc: Document, err: jsonschema.ValidationError, path: tuple) -> Diagnostic:
    """A cell matched none of its forms. The forms whose type the cell has fail deeper
    (a `{nott: ...}` mapping, a list holding a number): report that error; a cell of
    no form's type gets the list of forms."""
    value = err.instance
    if isinstance(value, dict):
        extra = [k for k in value if k not in _CELL_KEYS]
        if extra or len(value) != 1:
            at = extra[0] if extra else list(value)[-1] if value else None
            problem = Schema.CELL_KEY if extra else Schema.CELL_KEYS if value else Schema.CELL_EMPTY
            return error(SCHEMA, doc.key_span(path + (at,)) if at else doc.span(path), problem=problem,
                         expected=list(_CELL_KEYS), got=at, keyword="additionalProperties",
                         suggestion=suggest(at, list(_CELL_KEYS)) if extra else None, **_place(doc, path))
        (key,) = value  # the branch of that key says what is wrong inside it
        inside = [e for e in err.context if list(e.relative_path)[:1] == [key] or
                  (e.validator == "required" and isinstance(e.instance, dict) and key in e.instance)]
        inside = [e for e in inside if e.relative_path] or inside
        if inside:
            return _to_diagnostic(doc, min(inside, key=lambda e: _CELL_PREFERENCE.get(str(e.validator), 9)))
    else:
        inside = [e for e in err.context if e.relative_path or e.validator != "type"]
        if inside:
            return _to_diagnostic(doc, min(inside, key=lambda e: _CELL_PREFERENCE.get(str(e.validator), 9)))
    return error(SCHEMA, doc.span(path), problem=Schema.CELL_FORM,
                 expected=["value", "list of values", "-", "{not: [values]}", "{in: set}"], got=_kind(value),
                 value=value, keyword="anyOf", **_place(doc, path))


_CELL_KEYS = ("not", "in")
_DOMAIN_KEYS = ("type", "values", "sets", "from", "enum")


_CELL_PREFERENCE = {"additionalProperties": 0, "type": 1, "required": 2}
