"""The codes of the table format: the schema, and the names a table declares and uses."""

from __future__ import annotations

from ..text import article, format_value, shown_list
from . import LISTED_VALUES, Code, Facts, Severity, _all, _json, _v, did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from . import Words


_ITEMS = {"rules": "rule", "invariants": "invariant", "cases": "case"}


def _where(path: Any, item: Any) -> str:
    """A place in the document as a person names it: rules and invariants by id (`item`),
    cases by number, the rest as a path."""
    path = tuple(path)
    if len(path) >= 2 and path[0] in _ITEMS and isinstance(path[1], int):
        kind = _ITEMS[path[0]]
        head = f"{kind} '{item}'" if isinstance(item, str) and path[0] != "cases" else f"{kind} {path[1] + 1}"
        rest = "/".join(str(p) for p in path[2:])
        return head + (f" ({rest})" if rest else "")
    return "/".join(str(p) for p in path) or "the document"


_CELL = "a mapping cell is {not: [values]} or {in: set}"


_VALUE_HINTS = {"yaml-bool": "YAML reads yes/no/on/off/true/false as booleans; quote the value",
                "bool": "this input has type bool: write true or false"}


SCHEMA: Code = Code(
    name="schema", severity=Severity.ERROR,
    summary="the document does not match the table format (its JSON Schema: `swapool schema`)",
    example="`unknown key 'than' in rule 'ry'; expected one of: id, when, then, why` (help: did you mean 'then'?)",
    fix="follow the format",
    why="the format is a contract (its JSON Schema); anything outside it has no defined meaning")


class SchemaFacts(Facts):
    """What every schema finding carries: the JSON Schema keyword, what it expected and got,
    and where (the path, and the id of the rule or invariant there)."""

    keyword: str = ""
    expected: Any = None
    got: Any = None
    path: Any = ()
    item: Any = None
    suggestion: Any = None


class SchemaUnknownKey(SchemaFacts, code=SCHEMA, problem="unknown-key"):
    def words(self) -> Words:
        return (
            f"unknown key '{_v(self.got)}' in {_where(self.path, self.item)}; expected one of: {_all(self.expected)}",
                did_you_mean(self.suggestion))


class SchemaMissingKey(SchemaFacts, code=SCHEMA, problem="missing-key"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)} is missing the required key '{_v(self.expected[0])}'", None)


class SchemaNestedKey(SchemaFacts, code=SCHEMA, problem="nested-key"):
    inside: Any
    column: int | None

    def words(self) -> Words:
        return (
            f"'{_v(self.expected[0])}' is written inside '{_v(self.inside)}', but it belongs to "
            f"{_where(self.path, self.item)} (which is missing it)",
            f"indent '{_v(self.expected[0])}' as '{_v(self.inside)}' is"
            + (f", at column {self.column}" if self.column else ""))


class SchemaType(SchemaFacts, code=SCHEMA, problem="type"):
    value: Any

    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: expected {article(self.expected)}, got {_v(self.got)} "
            f"{_json(self.value)}", None)


class SchemaDomain(SchemaFacts, code=SCHEMA, problem="domain"):
    input: str
    given: Any

    def words(self) -> Words:
        return (
            f"input '{_v(self.input)}' takes its values from one of 'type: bool', 'values: [...]' and/or 'sets: "
            f"{{...}}', or 'from: FILE' (no 'enum' with it); it has " + (', '.join(self.given) or 'none of them'), None)


class SchemaSetName(SchemaFacts, code=SCHEMA, problem="set-name"):
    value: Any

    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: expected a value set's name or a list of them, got {_v(self.got)} "
            f"{_json(self.value)}", None)


class SchemaIdentifier(SchemaFacts, code=SCHEMA, problem="identifier"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: name {_json(self.got)} is not an identifier (letters, digits and '_', "
            "not starting with a digit)", None)


class SchemaPattern(SchemaFacts, code=SCHEMA, problem="pattern"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: {_json(self.got)} does not match the pattern {_v(self.expected)}", None)


class SchemaSpaced(SchemaFacts, code=SCHEMA, problem="spaced"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: {_json(self.got)} has whitespace around it, which no engine's name has",
            f"write it {_json(self.expected)}" if self.expected else "write the name, without the spaces")


class SchemaConst(SchemaFacts, code=SCHEMA, problem="const"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: expected {_json(self.expected)}, got {_json(self.got)}", None)


class SchemaEnum(SchemaFacts, code=SCHEMA, problem="enum"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: expected one of {_all(self.expected)}, got {_json(self.got)}",
                did_you_mean(self.suggestion))


class SchemaDashValue(SchemaFacts, code=SCHEMA, problem="dash-value"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: a value cannot be named '-': a cell reads '-' as any value", None)


class SchemaEmpty(SchemaFacts, code=SCHEMA, problem="empty"):
    def words(self) -> Words:
        return (f"{_where(self.path, self.item)}: must not be empty", None)


class SchemaOther(SchemaFacts, code=SCHEMA, problem="other"):
    detail: Any

    def words(self) -> Words:
        return (f"{_where(self.path, self.item)}: {_v(self.detail)}", None)


class SchemaCellKey(SchemaFacts, code=SCHEMA, problem="cell-key"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: {_CELL}; '{_v(self.got)}' is not a cell key",
                did_you_mean(self.suggestion))


class SchemaCellKeys(SchemaFacts, code=SCHEMA, problem="cell-keys"):
    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: {_CELL}; it holds one of the two keys, not both", None)


class SchemaCellEmpty(SchemaFacts, code=SCHEMA, problem="cell-empty"):
    def words(self) -> Words:
        return (f"{_where(self.path, self.item)}: {_CELL}; this one is empty", None)


class SchemaCellForm(SchemaFacts, code=SCHEMA, problem="cell-form"):
    value: Any
    keyword: str

    def words(self) -> Words:
        return (
            f"{_where(self.path, self.item)}: a cell is a value, a list of values, '-', {{not: [values]}} or {{in: "
            f"set}}; got {_v(self.got)} {_json(self.value)}", None)


class SchemaNoDocument(SchemaFacts, code=SCHEMA, problem="no-document"):
    def words(self) -> Words:
        return "the file holds no YAML document; expected a table mapping", None


UNKNOWN_INPUT: Code = Code(
    name="unknown-input", severity=Severity.ERROR,
    summary="a rule, case or invariant names an input the table does not declare",
    example="`'algo' is not an input of this table`",
    fix="use a declared input name",
    why="a cell for an input the table does not declare would decide on a fact that is never read")


class UnknownInput(Facts, code=UNKNOWN_INPUT):
    got: Any
    expected: Any
    suggestion: Any = None

    def words(self) -> Words:
        return (f"'{_v(self.got)}' is not an input of this table (inputs: {_all(self.expected)})",
                did_you_mean(self.suggestion))


UNKNOWN_VALUE: Code = Code(
    name="unknown-value", severity=Severity.ERROR,
    summary="a cell or case names a value outside the input's or output's domain",
    example="`'fsat' is not a value of input 'mode'` (help: did you mean 'fast'?)",
    fix="use a declared value (quote `yes`/`no`)",
    why="a value outside the input's domain is usually a misspelling; the rule would silently never match it")


class UnknownValueInput(Facts, code=UNKNOWN_VALUE, problem="input"):
    got: Any
    input: str
    expected: Any
    hint: str = ""
    suggestion: Any = None

    def words(self) -> Words:
        return (
            f"{format_value(self.got)!r} is not a value of input '{_v(self.input)}' (expected one of: "
            f"{shown_list(self.expected, LISTED_VALUES)})",
                _VALUE_HINTS.get(self.hint) or did_you_mean(self.suggestion))


class UnknownValueOutput(Facts, code=UNKNOWN_VALUE, problem="output"):
    got: Any
    expected: Any
    hint: str = ""
    suggestion: Any = None

    def words(self) -> Words:
        return (
            f"'{_v(self.got)}' is not an output value (expected one of: {_all(self.expected)})",
            _VALUE_HINTS.get(self.hint) or did_you_mean(self.suggestion))


UNKNOWN_SET: Code = Code(
    name="unknown-set", severity=Severity.ERROR,
    summary="an `{in: ...}` cell or case names a value set its input does not declare",
    example="`'quick' is not a value set of input 'mode'` (help: did you mean 'quickly'?)",
    fix="use a set declared under the input's `sets:`",
    why="a set name that is not declared matches nothing, so the rule means less than it says")


class UnknownSet(Facts, code=UNKNOWN_SET):
    got: Any
    input: str
    expected: Any
    suggestion: Any = None

    def words(self) -> Words:
        return (
            f"'{_v(self.got)}' is not a value set of input '{_v(self.input)}' "
            + (f"(its sets: {_all(self.expected)})" if self.expected else "(it declares no sets)"),
            did_you_mean(self.suggestion)
            or (None if self.expected else f"declare it under inputs: {_v(self.input)}: sets:"))


DUPLICATE_VALUE: Code = Code(
    name="duplicate-value", severity=Severity.ERROR,
    summary="an input or output lists the same value twice, or puts it in two of the sets that make up its values",
    example="`input 'mode' lists the value 'fast' twice`",
    fix="remove one",
    why="a value listed twice in one list is a slip; with sets it can also mean a value was put in two lists")


class DuplicateValueInput(Facts, code=DUPLICATE_VALUE, problem="input"):
    input: str
    got: Any

    def words(self) -> Words:
        return (f"input '{self.input}' lists the value '{_v(self.got)}' twice", None)


class DuplicateValueOutput(Facts, code=DUPLICATE_VALUE, problem="output"):
    got: Any

    def words(self) -> Words:
        return (f"output lists the value '{_v(self.got)}' twice", None)


class DuplicateValueSet(Facts, code=DUPLICATE_VALUE, problem="set"):
    set: str
    input: str
    got: Any

    def words(self) -> Words:
        return (f"value set '{self.set}' of input '{self.input}' lists the value '{_v(self.got)}' twice",
                None)


class DuplicateValueTwoSets(Facts, code=DUPLICATE_VALUE, problem="two-sets"):
    input: str
    got: Any
    set: str
    first_set: str

    def words(self) -> Words:
        return (
            f"'{_v(self.got)}' is in two value sets of input '{self.input}', '{self.first_set}' and '{self.set}'; "
            "without 'values:' the sets divide the input's values, each value into one set",
            f"keep '{_v(self.got)}' in the one set it belongs to (or list the input's values: to make the sets named "
            "groups that may share values)")


DUPLICATE_RULE_ID: Code = Code(
    name="duplicate-rule-id", severity=Severity.ERROR,
    summary="two rules share an id",
    example="`rule id 'x' is already used by the rule at line 51`",
    fix="rename",
    why="findings, diffs and server logs name rules by id; two rules with one id make every such line ambiguous")


class DuplicateRuleId(Facts, code=DUPLICATE_RULE_ID):
    got: Any
    first_line: int

    def words(self) -> Words:
        return (f"rule id '{_v(self.got)}' is already used by the rule at line {self.first_line}",
                "give every rule a distinct id")


RESERVED_NAME: Code = Code(
    name="reserved-name", severity=Severity.ERROR,
    summary="an input named like a key the format reserves ('output')",
    example="`an input cannot be named 'output'`",
    fix="rename the input",
    why="invariant conditions use the key 'output' for the decision; an input of that name could not be told apart")


class ReservedName(Facts, code=RESERVED_NAME):
    got: Any
    expected: Any

    def words(self) -> Words:
        return (f"an input cannot be named '{self.got}': invariant conditions use that key for the decision's output",
                "rename the input")
