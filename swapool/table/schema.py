"""Stage 2, schema: JSON Schema validation of a table document, every error located.

A valid document passes the compiled check (`generated/schema_check`, generated from the schema)
and jsonschema is never imported. Only a document that fails it is handed to jsonschema,
for every violation with its structured fields (`validator`, `validator_value`,
`instance`, `context`); messages are built from those, never from its prose.
"""

from __future__ import annotations

import functools

from .cells import ANY_CELL
from .lazy import lazy_module
from .diagnostics import Diagnostic, error, suggest
from .generated import schema_check
from .source import Document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    import jsonschema
    from .codes import document
else:  # imported when a finding of theirs is made: a valid table makes none
    document = lazy_module(f"{__package__}.codes.document")

_SAME: Any = object()  # a fact left as jsonschema gives it

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


class _Violation:
    """One jsonschema error as the facts a finding states: where, the keyword, what the
    schema expected and what the table has."""

    def __init__(self, doc: Document, err: jsonschema.ValidationError):
        self.doc, self.err = doc, err
        self.path = tuple(err.absolute_path)
        self.keyword = str(err.validator)
        self.schema: Any = err.schema  # jsonschema types these loosely (they may be "unset")
        self.expected: Any = err.validator_value
        self.got: Any = err.instance

    def finding(self, kind: type[document.SchemaFacts], *, at: Any = None, want: Any = _SAME, have: Any = _SAME,
                **facts: Any) -> Diagnostic:
        return error(kind(expected=self.expected if want is _SAME else want, got=self.got if have is _SAME else have,
                          keyword=self.keyword, **_place(self.doc, self.path), **facts), at or self.doc.span(self.path))


def _to_diagnostic(doc: Document, err: jsonschema.ValidationError) -> Diagnostic:
    """The finding of one jsonschema error: its keyword's reading, else `other`."""
    v = _Violation(doc, err)
    read = _BY_KEYWORD.get(v.keyword)
    return (read(v) if read else None) or v.finding(document.SchemaOther, detail=err.message)


def _unknown_key(v: _Violation) -> Diagnostic | None:
    if not isinstance(v.got, dict):
        return None
    allowed = list(v.schema.get("properties", {}))
    extra = [k for k in v.got if k not in allowed]
    if not (extra and allowed):
        return None
    typo = _typo(v.err)
    return v.finding(document.SchemaUnknownKey, at=v.doc.key_span(v.path + (extra[0],)), want=allowed, have=extra[0],
                     suggestion=typo[1] if typo and typo[0] == extra[0] else None)


def _missing_key(v: _Violation) -> Diagnostic | None:
    if not isinstance(v.got, dict):
        return None
    missing = [k for k in v.expected if k not in v.got]
    inside = next((k for k, value in v.got.items() if isinstance(value, dict) and missing[0] in value), None)
    if inside is None:
        return v.finding(document.SchemaMissingKey, want=missing, have=list(v.got))
    parent = v.doc.key_span(v.path + (inside,))  # `then:` indented under `when:`: named where it is written
    return v.finding(document.SchemaNestedKey, at=v.doc.key_span(v.path + (inside, missing[0])), want=missing,
                     have=list(v.got), inside=inside, column=parent.column if parent else None)


def _one_of(v: _Violation) -> Diagnostic | None:
    if len(v.path) != 2 or v.path[0] != "inputs":
        return None
    got = v.got
    return v.finding(document.SchemaDomain, want=list(_DOMAIN_KEYS),
                     have=list(got) if isinstance(got, dict) else _kind(got), input=v.path[1],
                     given=[k for k in _DOMAIN_KEYS if isinstance(got, dict) and k in got])


def _any_of(v: _Violation) -> Diagnostic | None:
    if v.path[-1:] == ("in",):
        return v.finding(document.SchemaSetName, want="set name", have=_kind(v.got), value=v.got)
    return _cell_error(v.doc, v.err, v.path)


def _pattern(v: _Violation) -> Diagnostic | None:
    if isinstance(v.got, str) and v.got.strip() != v.got:
        return v.finding(document.SchemaSpaced, want=v.got.strip())  # 'MEDUSA ' would never equal an engine's name
    return v.finding(document.SchemaPattern)


def _empty(v: _Violation) -> Diagnostic | None:
    return v.finding(document.SchemaEmpty, want=f"{v.keyword} {v.expected}")


#: How each JSON Schema keyword's error reads as a finding (None: as `other`).
_BY_KEYWORD: dict[str, Callable[[_Violation], Diagnostic | None]] = {
    "additionalProperties": _unknown_key,
    "required": _missing_key,
    "type": lambda v: v.finding(document.SchemaType, want=_yaml_type(v.expected), have=_kind(v.got), value=v.got),
    "oneOf": _one_of,
    "anyOf": _any_of,
    "propertyNames": lambda v: v.finding(document.SchemaIdentifier, want="identifier"),
    "pattern": _pattern,
    "const": lambda v: v.finding(document.SchemaConst),
    "enum": lambda v: v.finding(document.SchemaEnum, suggestion=suggest(v.got, v.expected)),
    "not": lambda v: v.finding(document.SchemaDashValue, want="a value name") if v.got == ANY_CELL else None,
    "minItems": _empty, "minProperties": _empty, "minLength": _empty,
}


def _cell_error(doc: Document, err: jsonschema.ValidationError, path: tuple) -> Diagnostic:
    """A cell matched none of its forms. The forms whose type the cell has fail deeper
    (a `{nott: ...}` mapping, a list holding a number): report that error (jsonschema's
    best match of them); a cell of no form's type gets the list of forms."""
    value = err.instance
    if isinstance(value, dict) and (len(value) != 1 or any(k not in _CELL_KEYS for k in value)):
        return _cell_keys_error(doc, value, path)
    if isinstance(value, dict):
        (key,) = value  # the branch of that key says what is wrong inside it
        inside = [e for e in err.context if list(e.relative_path)[:1] == [key] or
                  (e.validator == "required" and isinstance(e.instance, dict) and key in e.instance)]
        inside = [e for e in inside if e.relative_path] or inside
    else:
        inside = [e for e in err.context if e.relative_path or e.validator != "type"]
    if inside:
        from jsonschema.exceptions import best_match

        return _to_diagnostic(doc, best_match(inside))
    return error(document.SchemaCellForm(expected=["value", "list of values", "-", "{not: [values]}", "{in: set}"],
                                got=_kind(value), value=value, keyword="anyOf", **_place(doc, path)), doc.span(path))


def _cell_keys_error(doc: Document, value: dict, path: tuple) -> Diagnostic:
    """A mapping cell that is not one `not:` or `in:`: an unknown key, two keys, or none."""
    extra = [k for k in value if k not in _CELL_KEYS]
    at = extra[0] if extra else list(value)[-1] if value else None
    kind = document.SchemaCellKey if extra else document.SchemaCellKeys if value else document.SchemaCellEmpty
    return error(kind(expected=list(_CELL_KEYS), got=at, keyword="additionalProperties",
                      suggestion=suggest(at, list(_CELL_KEYS)) if extra else None, **_place(doc, path)),
                 doc.key_span(path + (at,)) if at else doc.span(path))


_CELL_KEYS = ("not", "in")
_DOMAIN_KEYS = ("type", "values", "sets", "from", "enum")
