"""The engine's finding codes: for each, what it means, why it matters, an example, the
fix, and the words a finding of it is said in.

A finding is data (its code, span and facts); its words come from its code when it is
shown. A code's `words` is a plain function whose parameters are the facts it reads and
which returns the message and the help; a code with variants (a file can be missing or a
directory) has one function per member of its variant enum. A finding lacking a fact its
words read, or naming a variant its code does not have, cannot be made. An application
built on the engine defines its own codes the same way (`swapool.swa.codes`)."""

from __future__ import annotations

import enum

from .record import Record
from .text import article, describe_terms, format_value, quoted, shown_list

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    #: A finding's message, and the help (None: no advice for it).
    Words = tuple[str, str | None]
    Wording = Callable[..., Words]

#: Rule ids a sentence names before "and N more"; values before it, in two lengths.
SHOWN_RULES = 3
SHOWN_VALUES = 8
LISTED_VALUES = 12


class Code(Record):
    """One finding code, as `swapool codes NAME` shows it (one object per code: compared by
    identity)."""

    name: str
    summary: str
    severity: str  # as docs/codes.md states it (some depend on the table: "error (warning with ...)")
    example: str
    fix: str
    why: str
    words: Wording | dict[enum.Enum, Wording]

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    @property
    def variants(self) -> list[str]:
        return [str(v) for v in self.words] if isinstance(self.words, dict) else []

    def wording(self, variant: Any) -> Wording:
        """The function that words a finding of `variant` (None for a code without variants);
        ValueError for a variant the code does not have."""
        if not isinstance(self.words, dict):
            if variant is not None:
                raise ValueError(f"finding code {self.name!r} has no variants (got {variant!r})")
            return self.words
        kind = type(next(iter(self.words)))
        try:
            return self.words[kind(variant)]
        except ValueError:
            raise ValueError(f"finding code {self.name!r} has no variant {variant!r}") from None


#: The generic table the examples of examples.yaml are written against, by top-level key.
_EXAMPLE_TABLE = {"format": "format: 1\n", "decision": "decision: demo\n", "hit_policy": "hit_policy: unique\n",
                  "inputs": "inputs:\n  mode: {values: [fast, safe, exact]}\n",
                  "output": "output: {values: [cache, none]}\n"}


def examples() -> dict[str, dict[str, str]]:
    """code -> {"example": a table that has its finding, "fixed": the same fixed}, each as
    the top-level keys that differ from the generic table (examples.yaml)."""
    import pathlib

    import yaml

    return yaml.safe_load((pathlib.Path(__file__).parent / "examples.yaml").read_text(encoding="utf-8"))


def example_table(fragment: str) -> str:
    """An example's whole table: the generic table's keys it does not give, then its own."""
    given = {line.split(":")[0] for line in fragment.splitlines() if line[:1].isalpha()}
    return "".join(text for key, text in _EXAMPLE_TABLE.items() if key not in given) + fragment


def reads(wording: Wording) -> tuple[tuple[str, ...], frozenset[str]]:
    """The facts a wording reads, and those of them it cannot do without (no default)."""
    code = wording.__code__
    names = code.co_varnames[:code.co_argcount]
    return names, frozenset(names[:len(names) - len(wording.__defaults__ or ())])


class Variant(str, enum.Enum):
    """A code's variant: in a finding's facts (`problem`) and in JSON it is its name."""

    def __str__(self) -> str:
        return str(self.value)


def _v(value: Any) -> str:
    return format_value(value)


def _all(values: Any) -> str:
    return ", ".join(map(format_value, values))


def _ids(ids: Any) -> str:
    return shown_list(ids, SHOWN_RULES, quoted)


def _json(value: Any) -> str:
    import json  # only when a finding is shown: the happy path imports no more than it needs

    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def did_you_mean(suggestion: Any = None) -> str | None:
    return None if suggestion is None else f"did you mean '{format_value(suggestion)}'?"


def yaml_flow(rule: Mapping[str, Any], **missing: Any) -> str:
    """A rule given as table data, as one line of flow-style YAML to paste under `rules:`
    (PyYAML writes it, quoting what YAML would misread: `yes`, `-`, `1.0`); `missing`
    stands in for values the data leaves open (None)."""
    import yaml  # only when the words are shown

    data = {k: missing.get(k, v) if v is None else v for k, v in rule.items()}
    return yaml.safe_dump(data, default_flow_style=True, sort_keys=False, width=float("inf")).strip()


def adding_hint(name: str, sets: Any, value: Any) -> str:
    """How to add `value` to input `name`'s domain: with named sets, into the one it belongs to."""
    if sets:
        return f"append {_v(value)} to the one of {name}'s sets ({', '.join(sets)}) it belongs to"
    return f"add {_v(value)} to the values of {name} and name it in the rule that should decide it"


def _words(message: str, help: str | None = None) -> Wording:
    """The wording of a variant whose words read no fact."""
    return lambda: (message, help)


# -- io, YAML ------------------------------------------------------------------------------


class Io(Variant):
    EMPTY_PATH = "empty-path"
    MISSING = "missing"
    DIRECTORY = "directory"
    UNREADABLE = "unreadable"
    NUL_BYTE = "nul-byte"
    NOT_REGULAR = "not-regular"
    TOO_LARGE = "too-large"
    CLOSED = "closed"
    UTF_16 = "utf-16"
    NOT_UTF_8 = "not-utf-8"


IO = Code(
    "io", "the file cannot be read (missing, a directory, too large, not UTF-8)", "error (exit 2)",
    "`t.yaml: no such file`", "check the path; files must be UTF-8 and under 1 MiB",
    "swapool judges only what it can read whole; a table it cannot read must not be mistaken for a valid one",
    {Io.EMPTY_PATH: _words("an empty path names no table file"),
     Io.MISSING: lambda file: (f"{file}: no such file", None),
     Io.DIRECTORY: lambda file: (f"{file} is a directory, expected a YAML table file", None),
     Io.UNREADABLE: lambda file, reason: (f"{file}: cannot read: {reason}", None),
     Io.NUL_BYTE: lambda file: (f"{file}: a path holds no NUL byte; no file has this name", None),
     Io.NOT_REGULAR: lambda file: (f"{file} is not a regular file (a pipe or device?); expected a YAML table file",
                                   "give its content on standard input (-) instead"),
     Io.TOO_LARGE: lambda file, limit: (f"{file} is larger than {limit} bytes; a policy table is a few kilobytes",
                                        None),
     Io.CLOSED: lambda file: (f"{file}: standard input is closed", None),
     Io.UTF_16: _words("the file is UTF-16; a policy table must be UTF-8"),
     Io.NOT_UTF_8: lambda byte: (f"byte 0x{byte:02x} is not valid UTF-8; save the file as UTF-8", None)})


class Yaml(Variant):
    TAB = "tab"
    BOM = "bom"
    PARSER = "parser"
    CONTROL_CHARACTER = "control-character"
    RECURSIVE_ALIAS = "recursive-alias"
    TIGHT_COLON = "tight-colon"
    FLOW_INDICATOR = "flow-indicator"
    BLOCK_COMMENT = "block-comment"
    TOO_DEEP = "too-deep"
    SURROGATE = "surrogate"


def _parser(parser: str, at: str = "", column: int | None = None, above: int | None = None,
            above_column: int | None = None) -> Words:
    if column is not None:
        return parser, (f"check the indentation: this line starts at column {column}, line {above} above it at column "
                        f"{above_column}; keys of one mapping start at one column, a nested mapping's further right")
    if at == "\t" or "'\\t'" in parser:
        return parser, "YAML indentation must use spaces, not tabs"
    if "found unexpected ':'" in parser:
        return parser, "quote a value that holds ':', and write ': ' (a colon and a space) after a key"
    if "sequence entries are not allowed" in parser:
        return parser, "a bare '-' is a list marker in block style; quote it ('-') for the 'any value' cell"
    return parser, None


YAML_SYNTAX = Code(
    "yaml-syntax", "the file is not well-formed YAML", "error",
    "`t.yaml:3:1: found character that cannot start any token`", "fix the YAML (spaces, not tabs; quote a bare `-`)",
    "a table that is not YAML has no meaning to check; swapool accepts only what libyaml and PyYAML's own parser "
    "read alike, so a verdict never depends on the machine",
    {Yaml.TAB: _words("a tab character", "swapool's YAML has no tabs (YAML parsers disagree about them); use spaces, "
                                         "and write \\t in a double-quoted string"),
     Yaml.BOM: _words("a byte-order mark (U+FEFF) inside the text", "remove it"),
     Yaml.PARSER: _parser,
     Yaml.CONTROL_CHARACTER: lambda char: (f"character #x{char:04x} is not allowed in YAML text",
                                           "remove the control character"),
     Yaml.RECURSIVE_ALIAS: lambda anchor: (f"alias *{anchor} is inside the value it names (a recursive alias)",
                                           "write the table out without anchors and aliases"),
     Yaml.TIGHT_COLON: _words("no space after the ':' inside [...] or {...}", "write ': ' (a colon and a space)"),
     Yaml.FLOW_INDICATOR: lambda char, value: (f"an unquoted value holding '{char}' inside [...] or {{...}}",
                                               f"quote it: '{_v(value)}'"),
     Yaml.BLOCK_COMMENT: _words("a comment right after a block scalar's '|' or '>'", "put a space before the '#'"),
     Yaml.TOO_DEEP: lambda limit: (f"nesting deeper than {limit} levels", None),
     Yaml.SURROGATE: _words("found invalid Unicode character escape code: a lone surrogate (U+D800 to U+DFFF), "
                            "which UTF-8 cannot hold", "write the character itself, or a pair as one \\U escape")})

YAML_DUPLICATE_KEY = Code(
    "yaml-duplicate-key", "a mapping names the same key twice", "error",
    "`key 'then' appears twice in this mapping (first at line 7)`", "keep one",
    "YAML parsers keep one of the two silently; which one the author meant is a guess swapool will not make",
    lambda key, first_line: (f"key '{key}' appears twice in this mapping (first at line {first_line})",
                             "remove or rename one of them"))


class Tag(Variant):
    LONG_NUMBER = "long-number"
    BAD_VALUE = "bad-value"
    MISFIT = "misfit"
    TYPE = "type"


YAML_TAG = Code(
    "yaml-tag", "a YAML tag or type that a table cannot hold (python objects, dates, merges)", "error",
    "`a value of YAML type 'python/object/apply' cannot appear in a policy table`", "plain strings, lists and mappings only",
    "a table is data: a tag that builds objects, dates or merges would run code or change meaning outside the format",
    {Tag.LONG_NUMBER: lambda length, limit: (f"a number of {length} characters; a table's numbers have at most "
                                             f"{limit}", "quote it if it is a name"),
     Tag.BAD_VALUE: lambda value, kind: (f"'{value}' is not a valid {kind} (its tag says !!{kind})",
                                         "remove the tag or fix the value"),
     Tag.MISFIT: lambda kind, on: (f"the tag !!{kind} does not fit {on}", "remove the tag"),
     Tag.TYPE: lambda kind: (f"a value of YAML type '{kind}' cannot appear in a policy table",
                             "use plain strings, numbers, booleans, lists and mappings; quote the value if it "
                             "should be a string")})

YAML_ALIAS_BOMB = Code(
    "yaml-alias-bomb", "aliases expand past the node limit", "error",
    "`the document expands to more than 200000 nodes`", "write the table out without aliases",
    "a few aliases can expand to millions of nodes (the 'billion laughs'); the check must stay bounded",
    lambda limit: (f"the document expands to more than {limit} nodes (aliases?)",
                   "write the table out without anchors and aliases"))

YAML_KEY_TYPE = Code(
    "yaml-key-type", "a mapping key that is not a string", "error",
    "`mapping key true is not a string`", "quote `on`/`yes`/... keys",
    "YAML reads unquoted yes/no/on/off and numbers as non-strings; a key that is not a string cannot name anything",
    lambda key: ("mapping key " + ("null" if key is None else repr(key).lower() if isinstance(key, bool) else repr(key))
                 + " is not a string", "quote the key; YAML reads yes/no/on/off as booleans"))


# -- the format ----------------------------------------------------------------------------

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


class Schema(Variant):
    UNKNOWN_KEY = "unknown-key"
    MISSING_KEY = "missing-key"
    NESTED_KEY = "nested-key"
    TYPE = "type"
    DOMAIN = "domain"
    SET_NAME = "set-name"
    IDENTIFIER = "identifier"
    PATTERN = "pattern"
    SPACED = "spaced"
    CONST = "const"
    ENUM = "enum"
    DASH_VALUE = "dash-value"
    EMPTY = "empty"
    OTHER = "other"
    CELL_KEY = "cell-key"
    CELL_KEYS = "cell-keys"
    CELL_EMPTY = "cell-empty"
    CELL_FORM = "cell-form"
    NO_DOCUMENT = "no-document"


_CELL = "a mapping cell is {not: [values]} or {in: set}"

SCHEMA = Code(
    "schema", "the document does not match the table format (its JSON Schema: `swapool schema`)", "error",
    "`unknown key 'than' in rule 'ry'; expected one of: id, when, then, why` (help: did you mean 'then'?)",
    "follow the format", "the format is a contract (its JSON Schema); anything outside it has no defined meaning",
    {Schema.UNKNOWN_KEY: lambda got, expected, path, item, suggestion=None: (
        f"unknown key '{_v(got)}' in {_where(path, item)}; expected one of: {_all(expected)}", did_you_mean(suggestion)),
     Schema.MISSING_KEY: lambda expected, path, item: (
         f"{_where(path, item)} is missing the required key '{_v(expected[0])}'", None),
     Schema.NESTED_KEY: lambda expected, inside, column, path, item: (
         f"'{_v(expected[0])}' is written inside '{_v(inside)}', but it belongs to {_where(path, item)} (which is "
         f"missing it)", f"indent '{_v(expected[0])}' as '{_v(inside)}' is" + (f", at column {column}" if column else "")),
     Schema.TYPE: lambda expected, got, value, path, item: (
         f"{_where(path, item)}: expected {article(expected)}, got {_v(got)} {_json(value)}", None),
     Schema.DOMAIN: lambda input, given: (
         f"input '{_v(input)}' takes its values from one of 'type: bool', 'values: [...]' and/or 'sets: {{...}}', "
         f"or 'from: FILE' (no 'enum' with it); it has " + (', '.join(given) or 'none of them'), None),
     Schema.SET_NAME: lambda got, value, path, item: (
         f"{_where(path, item)}: expected a value set's name or a list of them, got {_v(got)} {_json(value)}", None),
     Schema.IDENTIFIER: lambda got, path, item: (
         f"{_where(path, item)}: name {_json(got)} is not an identifier (letters, digits and '_', not starting with "
         "a digit)", None),
     Schema.PATTERN: lambda got, expected, path, item: (
         f"{_where(path, item)}: {_json(got)} does not match the pattern {_v(expected)}", None),
     Schema.SPACED: lambda got, expected, path, item: (
         f"{_where(path, item)}: {_json(got)} has whitespace around it, which no engine's name has",
         f"write it {_json(expected)}" if expected else "write the name, without the spaces"),
     Schema.CONST: lambda got, expected, path, item: (
         f"{_where(path, item)}: expected {_json(expected)}, got {_json(got)}", None),
     Schema.ENUM: lambda got, expected, path, item, suggestion=None: (
         f"{_where(path, item)}: expected one of {_all(expected)}, got {_json(got)}", did_you_mean(suggestion)),
     Schema.DASH_VALUE: lambda path, item: (
         f"{_where(path, item)}: a value cannot be named '-': a cell reads '-' as any value", None),
     Schema.EMPTY: lambda path, item: (f"{_where(path, item)}: must not be empty", None),
     Schema.OTHER: lambda detail, path, item: (f"{_where(path, item)}: {_v(detail)}", None),
     Schema.CELL_KEY: lambda got, path, item, suggestion=None: (
         f"{_where(path, item)}: {_CELL}; '{_v(got)}' is not a cell key", did_you_mean(suggestion)),
     Schema.CELL_KEYS: lambda path, item: (
         f"{_where(path, item)}: {_CELL}; it holds one of the two keys, not both", None),
     Schema.CELL_EMPTY: lambda path, item: (f"{_where(path, item)}: {_CELL}; this one is empty", None),
     Schema.CELL_FORM: lambda got, value, path, item: (
         f"{_where(path, item)}: a cell is a value, a list of values, '-', {{not: [values]}} or {{in: set}}; got "
         f"{_v(got)} {_json(value)}", None),
     Schema.NO_DOCUMENT: _words("the file holds no YAML document; expected a table mapping")})

UNKNOWN_INPUT = Code(
    "unknown-input", "a rule, case or invariant names an input the table does not declare", "error",
    "`'algo' is not an input of this table`", "use a declared input name",
    "a cell for an input the table does not declare would decide on a fact that is never read",
    lambda got, expected, suggestion=None: (f"'{_v(got)}' is not an input of this table (inputs: {_all(expected)})",
                                            did_you_mean(suggestion)))


class Domain(Variant):
    INPUT = "input"
    OUTPUT = "output"


_VALUE_HINTS = {"yaml-bool": "YAML reads yes/no/on/off/true/false as booleans; quote the value",
                "bool": "this input has type bool: write true or false"}

UNKNOWN_VALUE = Code(
    "unknown-value", "a cell or case names a value outside the input's or output's domain", "error",
    "`'fsat' is not a value of input 'mode'` (help: did you mean 'fast'?)", "use a declared value (quote `yes`/`no`)",
    "a value outside the input's domain is usually a misspelling; the rule would silently never match it",
    {Domain.INPUT: lambda got, input, expected, hint="", suggestion=None: (
        f"{format_value(got)!r} is not a value of input '{_v(input)}' (expected one of: "
        f"{shown_list(expected, LISTED_VALUES)})", _VALUE_HINTS.get(hint) or did_you_mean(suggestion)),
     Domain.OUTPUT: lambda got, expected, hint="", suggestion=None: (
         f"'{_v(got)}' is not an output value (expected one of: {_all(expected)})",
         _VALUE_HINTS.get(hint) or did_you_mean(suggestion))})

UNKNOWN_SET = Code(
    "unknown-set", "an `{in: ...}` cell or case names a value set its input does not declare", "error",
    "`'quick' is not a value set of input 'mode'` (help: did you mean 'quickly'?)",
    "use a set declared under the input's `sets:`",
    "a set name that is not declared matches nothing, so the rule means less than it says",
    lambda got, input, expected, suggestion=None: (
        f"'{_v(got)}' is not a value set of input '{_v(input)}' "
        + (f"(its sets: {_all(expected)})" if expected else "(it declares no sets)"),
        did_you_mean(suggestion) or (None if expected else f"declare it under inputs: {_v(input)}: sets:")))


class Import(Variant):
    NO_FOLDER = "no-folder"
    OUTSIDE = "outside"
    NO_INPUT = "no-input"
    IMPORTED_AGAIN = "imported-again"
    ITSELF = "itself"
    UNREADABLE = "unreadable"
    TOO_LARGE = "too-large"
    INVALID = "invalid"


def _invalid_import(shown: str, count: int, first: str, first_line: Any = None, first_column: Any = None) -> Words:
    at = f" at {first_line}:{first_column}" if first_line else ""
    return (f"{shown}, imported here, is not a valid table ({count} problem(s); the first is {first}{at})",
            f"run: swapool validate {shown}")


IMPORT = Code(
    "import", "an input written `from: FILE` cannot take its values from there", "error",
    "`input 'mode' imports from base.yaml, which has no input 'mode'`",
    "name a table in the same folder that lists the input (not imported again)",
    "an input's values come from another table; if that table cannot supply them, this one has no domain",
    {Import.NO_FOLDER: lambda input, file: (
        f"input '{input}' imports from {file}, but this table was not read from a file, so there is no folder to "
        "find it in", "check the file itself, or give standard input the name of a file in the folder of the table "
                      "it imports from"),
     Import.OUTSIDE: lambda input, file: (
         f"input '{input}' imports from {file}, which leads out of the table's folder (a link to elsewhere); an "
         "import must be a file beside the table", "copy the table beside this one, or import from the file it "
                                                   "links to"),
     Import.NO_INPUT: lambda got, file, expected, suggestion=None: (
         f"input '{got}' imports from {file}, which has no input '{got}' (its inputs: {_all(expected)})",
         did_you_mean(suggestion)),
     Import.IMPORTED_AGAIN: lambda input, file, again: (
         f"input '{input}' imports from {file}, where it is imported again (from {again}); import from the table "
         "that lists the values", None),
     Import.ITSELF: lambda file: (f"a table cannot import from itself ({file})", None),
     Import.UNREADABLE: lambda file, reason: (f"cannot import from {file}: {reason}", None),
     Import.TOO_LARGE: lambda file, limit: (
         f"cannot import from {file}: the tables this one imports hold more than {limit} bytes together", None),
     Import.INVALID: _invalid_import})

UNCASED_VALUE = Code(
    "uncased-value", "a value of an engine-bound input (`enum:`) that no case names, by value or through its set",
    "warning (error with --strict)",
    "`no case exercises exact of input 'mode' (bound to the engine's Mode)`",
    "add a case naming the value, or a case over its set (`{in: quickly}`)",
    "a value of an engine-bound input that no golden case exercises can change behaviour without any case noticing",
    lambda got, input, enum, homes: (
        f"no case exercises {shown_list(got, SHOWN_VALUES)} of input '{input}' (bound to the engine's "
        f"{enum.split(':')[-1]})",
        f"add a case that names it, or its set: given: {{{input}: {{in: {homes[0]}}}}}, ..." if homes
        else f"add a case with given: {{{input}: {_v(got[0])}, ...}}"))


VALUE_CASE = Code(
    "value-case", "a value written in another case than the other values of its input", "warning (error with --strict)",
    "`'medusa' of input 'algo' is lower case, the other values are upper case`",
    "write it as the others are (`MEDUSA`), the engine's spelling",
    "an engine spells its names one way; a value in another case never equals the name it sends, so no runner "
    "ever reaches the rules written for it",
    lambda got, input, convention, expected: (
        f"'{_v(got)}' of input '{input}' is not {convention} case, the other values are",
        f"write it '{_v(expected)}', as the engine would spell it"))


class Listed(Variant):
    INPUT = "input"
    OUTPUT = "output"
    SET = "set"
    TWO_SETS = "two-sets"


DUPLICATE_VALUE = Code(
    "duplicate-value", "an input or output lists the same value twice, or puts it in two of the sets that make "
                       "up its values", "error",
    "`input 'mode' lists the value 'fast' twice`", "remove one",
    "a value listed twice in one list is a slip; with sets it can also mean a value was put in two lists",
    {Listed.INPUT: lambda input, got: (f"input '{input}' lists the value '{_v(got)}' twice", None),
     Listed.OUTPUT: lambda got: (f"output lists the value '{_v(got)}' twice", None),
     Listed.SET: lambda set, input, got: (f"value set '{set}' of input '{input}' lists the value '{_v(got)}' twice",
                                          None),
     Listed.TWO_SETS: lambda input, got, set, first_set: (
         f"'{_v(got)}' is in two value sets of input '{input}', '{first_set}' and '{set}'; without 'values:' the "
         "sets divide the input's values, each value into one set",
         f"keep '{_v(got)}' in the one set it belongs to (or list the input's values: to make the sets named "
         "groups that may share values)")})

DUPLICATE_RULE_ID = Code(
    "duplicate-rule-id", "two rules share an id", "error",
    "`rule id 'x' is already used by the rule at line 51`", "rename",
    "findings, diffs and server logs name rules by id; two rules with one id make every such line ambiguous",
    lambda got, first_line: (f"rule id '{_v(got)}' is already used by the rule at line {first_line}",
                             "give every rule a distinct id"))


# -- the analysis --------------------------------------------------------------------------

GAP = Code(
    "gap", "an input combination that no rule decides", "error",
    "`no rule decides mode=exact, draft=true`", "add the rule its help shows, with the output you choose, or widen a rule",
    "an input combination no rule decides has no answer at run time: the server would refuse it, or an engine would "
    "crash",
    lambda region, closing, outputs, forbidden=None: (
        f"no rule decides {describe_terms(region)}",
        (f"add - {yaml_flow(closing, then='TODO')} with TODO one of: {shown_list(outputs, LISTED_VALUES)} (or widen a "
         "rule's cell to cover it)" if outputs else
         "no output is allowed there: " + _forbidden(forbidden or {}) + "; fix an invariant, or the inputs' values")
        + (f"; ruled out: {_forbidden(forbidden)}" if outputs and forbidden else "")))


def _forbidden(forbidden: Mapping[str, str]) -> str:
    return ", ".join(f"'{_v(o)}' ({why})" for o, why in forbidden.items())


class Overlap(Variant):
    CONFLICT = "conflict"
    SHARED = "shared"


def _shared(rule: str, then: str, partners: list, partner_outputs: list, total: int, same: bool,
            region: Any) -> Words:
    if same:
        named = f"rule '{rule}' overlaps " + shown_list(partners, SHOWN_RULES, quoted, total=total) + " (same output)"
    else:
        named = f"rule '{rule}' ('{then}') overlaps " + shown_list(
            [f"'{p}' ('{o}')" for p, o in zip(partners, partner_outputs)], SHOWN_RULES, str, total=total)
    return named + f": both decide {describe_terms(region)}", _OVERLAP_HELP


_OVERLAP_HELP = ("narrow one of the rules so it leaves out what both decide (a value in two of an input's sets: keep it "
                 "in one)")

OVERLAP = Code(
    "overlap", "under hit_policy unique, an input combination that two rules decide; under any, one two rules decide "
               "differently", "error",
    "`rules 'a' and 'b' conflict: both decide ..., 'a' as 'none' and 'b' as 'cache'`",
    "narrow one rule so the cells are disjoint; a hit policy that lets order decide is a choice of its own, not a fix",
    "two rules that both match and decide differently leave the answer to their order, which nobody reviewed",
    {Overlap.CONFLICT: lambda first, rule, region, first_then, then: (
        f"rules '{first}' and '{rule}' conflict: both decide {describe_terms(region)}, '{first}' as '{first_then}' "
        f"and '{rule}' as '{then}'", _OVERLAP_HELP),
     Overlap.SHARED: _shared})


class Hiding(Variant):
    FIRST = "first"
    PRIORITY = "priority"


def _unreachable(why: str, help: str) -> Wording:
    one, many = why.split("|")

    def words(rule: str, hiders: list) -> Words:
        said = one if len(hiders) == 1 else many
        return f"rule '{rule}' can never fire: {said.format(_ids(hiders))} every input it matches", help
    return words


UNREACHABLE_RULE = Code(
    "unreachable-rule", "under hit_policy first or priority, a rule that rules ranked before it hide everywhere", "error",
    "`rule 'c' can never fire: earlier rules 'a', 'b' decide every input it matches`",
    "remove it, or move it up (first) or change its output (priority)",
    "a rule that others always pre-empt never decides anything; its presence misleads a reader about what the table "
    "does",
    {Hiding.FIRST: _unreachable("earlier rule {} decides|earlier rules {} decide",
                                "remove the rule, or move it above the rules that hide it"),
     Hiding.PRIORITY: _unreachable("rule {}, of higher or equal priority, decides|rules {}, of higher or equal "
                                   "priority, decide", "remove the rule; its output is listed after theirs in "
                                                       "output: values")})


class Redundant(Variant):
    LATER = "later"
    OTHERS = "others"


REDUNDANT_RULE = Code(
    "redundant-rule", "under hit_policy first, any or priority, a rule whose removal changes no decision; removing "
                      "every one named keeps every decision", "warning",
    "`rule 'c' is redundant: later rules decide every input it decides the same way`", "remove it",
    "a rule whose inputs other rules decide the same way can be removed without changing any decision; the rules "
    "named are judged one after another, so removing all of them is safe too",
    {Redundant.LATER: lambda rule, then: (
        f"rule '{rule}' is redundant: later rules decide every input it decides the same way ('{then}')",
        "remove the rule, or narrow the later rules if it should matter"),
     Redundant.OTHERS: lambda rule, then: (
         f"rule '{rule}' is redundant: other rules decide every input it decides the same way ('{then}')",
         "remove the rule, or narrow the other rules if it should matter")})


def _left_out(rules_left_out: list, cases_left_out: list, invariants_left_out: list) -> Words:
    parts = []
    for kind, items, show in (("rules", rules_left_out, quoted), ("cases", cases_left_out, str),
                              ("invariants", invariants_left_out, quoted)):
        if items:
            noun = kind if len(items) > 1 else kind[:-1]
            parts.append(f"{noun} {shown_list(items, LISTED_VALUES, show)}")
    return (f"the analysis left out {', '.join(parts)} (which failed to build); the findings about the rest are "
            "partial", None)


ANALYSIS_PARTIAL = Code(
    "analysis-partial", "some rules, cases or invariants failed to build; the findings about the rest (marked "
                        "partial) are still given", "note",
    "`the analysis left out rule 'r1' (which failed to build); the findings about the rest are partial`",
    "fix the errors above; the partial findings may change once every rule builds",
    "one misspelt value should not hide a gap or an overlap elsewhere; but a gap may be one the broken rule would "
    "close, so those findings are marked partial", _left_out)

MERGEABLE_RULES = Code(
    "mergeable-rules", "rules that differ in one cell only and decide alike: one rule can replace them, deciding "
                       "every input as before", "note",
    "`rules 'fast', 'safe' can be one rule: they differ only in 'mode' and decide alike ('cache')`",
    "replace them with the merged rule it shows",
    "fewer rules say the same; a note, not a warning, because rules kept apart (with a why each) can be deliberate, "
    "and a strict check must not fail a correct table",
    lambda ids, input, then, merged: (
        f"rules {_ids(ids)} can be one rule: they differ only in '{input}' and decide alike ('{then}')",
        f"replace them with - {yaml_flow(merged)}"))


def _requirement(required: Mapping[str, Any]) -> str:
    """What an invariant's `then` asks for: `output` (the outputs it allows, when not all)
    and the region its inputs must lie in."""
    parts = []
    outputs = required.get("output")
    if outputs is not None:
        parts.append("output " + " or ".join(quoted(o) for o in outputs))
    region = {k: v for k, v in required.items() if k != "output"}
    if region:
        parts.append(describe_terms(region))
    return " and ".join(parts) or "nothing"


INVARIANT = Code(
    "invariant", "an input the table decides against one of its invariants", "error",
    "`rule 'cache-drafts' breaks invariant 'drafts-never-cache'`", "fix the rule (or the invariant)",
    "an invariant states what must hold whatever the rules say; a broken one is the bug the table exists to prevent",
    lambda rule, invariant, region, then, expected, why=None: (
        f"rule '{rule}' breaks invariant '{invariant}': where {describe_terms(region)} it decides '{then}', but the "
        f"invariant requires {_requirement(expected)}" + (f" ({' '.join(why.split())})" if why else ""),
        "narrow the rule, or fix the invariant if the rule is right"))

CASE_FAILED = Code(
    "case-failed", "a golden case whose expected output differs from the table's decision", "error",
    "`case 4 expects 'none', but rule 'cache-drafts' decides 'cache'`", "fix the rule (or the case)",
    "a golden case is the specification by example; a table that disagrees with one has changed behaviour someone "
    "pinned down",
    lambda case, expected, got, rule, invariant=None: (
        f"case {case} expects '{_v(expected)}', but "
        + (f"rule '{rule}' decides '{_v(got)}'" if rule is not None else "no rule decides it"),
        f"the case is wrong: invariant '{invariant}' forbids '{_v(expected)}' there; expect what the invariant allows"
        if invariant else "fix the rule if the case is right; fix the case if the rule is" if rule is not None
        else "no rule decides its input: add the rule the gap finding's help shows (or fix the case)"))

EMPTY_CELL = Code(
    "empty-cell", "a cell whose value set is empty, so its rule can never match", "error",
    "`rule 'r' can never match: its cell for 'a' matches no value`", "a `not` listing everything matches nothing",
    "a cell that matches no value makes its rule dead, which is never what was written",
    lambda rule, input: (f"rule '{rule}' can never match: its cell for '{input}' matches no value",
                         "a {not: [...]} that lists every value, or an empty list, matches nothing"))

FULL_DOMAIN_CELL = Code(
    "full-domain-cell", "a cell that lists the whole domain; write '-' instead", "warning",
    "`rule 'r' lists every value of 'mode'`", "write `-`",
    "listing every value reads as a restriction but is none; '-' says it, and stays right when a value is added",
    lambda rule, input: (f"rule '{rule}' lists every value of '{input}'",
                         "write '-' so that a value added later is not silently left out"))

UNNAMED_VALUE = Code(
    "unnamed-value", "an enumeration value that no rule names, decided only through '-' or 'not' cells",
    "error (a note with `wildcard: true`, the author's opt-in); `values` inputs only, a bool cannot grow",
    "`no rule names exact of input 'mode'; only wildcards in ... decide it`", "name the value in the rule that should "
                                                                                "decide it",
    "a value only wildcards decide gets whatever the catch-all says, including a value added later without review",
    lambda got, input, absorbers, wildcard: (
        f"no rule names {shown_list(got, SHOWN_VALUES)} of input '{input}'; "
        + (f"only wildcards in {_ids(absorbers)} decide it" if absorbers else "nothing decides it"),
        "name the value in the rule that should decide it"
        + ("" if wildcard else ", or set 'wildcard: true' on the input to allow wildcards")))

UNUSED_INPUT = Code(
    "unused-input", "an input that no rule names: the decision never depends on it", "warning",
    "`no rule names a value of input 'x'`", "remove the input",
    "an input no rule reads makes the decision look like it depends on a fact it ignores",
    lambda input: (f"no rule names a value of input '{input}': the decision never depends on it",
                   "remove the input, or name its values in the rules that depend on it"))


# -- enum bindings -------------------------------------------------------------------------

ENUM_IMPORT = Code(
    "enum-import", "an input's enum binding names a module that is not installed here", "note",
    "`'engine' is not installed here; drift from its members is not checked`", "install the engine to check",
    "the drift check needs the engine's enum; where the engine is not installed it cannot run, and says so",
    lambda input, enum, module: (
        f"input '{input}' is bound to {enum}, but '{module}' is not installed here; drift from its members is not "
        "checked", "install the engine in this environment to check the binding"))

ENUM_IMPORT_FAILED = Code(
    "enum-import-failed", "an input's enum binding names an installed module whose import fails", "warning",
    "`... is bound to engine.modes:Mode, and 'engine' is installed, but the import failed (...)`",
    "fix the environment so the engine imports, or check without importing enums",
    "the engine is installed but its enum did not import, so the drift check silently did not run; --strict fails on "
    "it",
    lambda input, enum, module, reason: (
        f"input '{input}' is bound to {enum}, and '{module}' is installed, but the import failed ({reason}); drift "
        "is not checked", "fix the environment so that the engine imports (a strict check fails on this), or check "
                          "without importing enums"))

ENUM_MISSING_MEMBER = Code(
    "enum-missing-member", "an enum member that is not in the input's values", "error",
    "`... has member EXACT, which is not a value of input 'mode'`", "add and decide it",
    "the engine has a member the table does not know: at run time that value has no decision",
    lambda enum, got, input, sets: (
        f"{enum} has member {_v(got)}, which is not a value of input '{input}': no rule decides it",
        adding_hint(input, sets, got)))

ENUM_EXTRA_VALUE = Code(
    "enum-extra-value", "a value in the input's values that is not a member of its enum", "warning",
    "`value fsat of input 'mode' is not a member of ...`", "remove it",
    "a value the engine does not have is a misspelling, or a table ahead of the engine; either should be seen",
    lambda got, input, enum: (f"value {_v(got)} of input '{input}' is not a member of {enum}",
                              "remove the value, or check the binding names the right enum"))

ENUM_NOT_ALLOWED = Code(
    "enum-not-allowed", "an input's enum binding names a module outside the allowed prefixes, so it is not imported",
    "warning", "`input 'mode' is bound to evil:A, but swapool imports enums only from engine`",
    "bind the engine's enum, or allow the module (`$SWAPOOL_ENUM_MODULES`) after reviewing it",
    "importing a module runs its code; only modules the person running swapool allowed are imported, never ones a "
    "table names",
    lambda input, enum, allowed, setting: (
        f"input '{input}' is bound to {enum}, but swapool imports enums only from "
        + (', '.join(allowed) or '(no module)') + "; drift is not checked",
        f"bind to the engine's own enum, or allow the module (${setting}) after reviewing it: importing a module runs "
        "its code"))


class Over(Variant):
    STEPS = "steps"
    CELLS = "cells"


ANALYSIS_BUDGET = Code(
    "analysis-budget", "the analysis needed more steps than its budget allows (the table is checked no further)",
    "error", "`the analysis stopped while splitting the input space (2,000,000 steps)`",
    "split the table, or order rules as a decision tree",
    "exact gap and overlap analysis is coNP-hard in general; past its budget swapool stops rather than run away",
    {Over.STEPS: lambda what, limit: (
        f"the analysis stopped while {what} ({limit:,} steps); the table is too irregular to check exactly",
        "split the table, or make its rules follow the input order (as a decision tree does)"),
     Over.CELLS: lambda inputs, rows, cells, limit: (
         f"the table has {inputs:,} inputs and {rows:,} rules, cases and invariant conditions: {cells:,} cells, more "
         f"than the {limit:,} swapool checks", "split the table; a decision table is a few dozen rows")})

RESERVED_NAME = Code(
    "reserved-name", "an input named like a key the format reserves ('output')", "error",
    "`an input cannot be named 'output'`", "rename the input",
    "invariant conditions use the key 'output' for the decision; an input of that name could not be told apart",
    lambda got: (f"an input cannot be named '{got}': invariant conditions use that key for the decision's output",
                 "rename the input"))

#: The engine's codes, in the order `swapool codes` lists them.
CODES = (IO, YAML_SYNTAX, YAML_DUPLICATE_KEY, YAML_TAG, YAML_ALIAS_BOMB, YAML_KEY_TYPE, SCHEMA, UNKNOWN_INPUT,
         UNKNOWN_VALUE, UNKNOWN_SET, IMPORT, UNCASED_VALUE, VALUE_CASE, DUPLICATE_VALUE, DUPLICATE_RULE_ID, GAP, OVERLAP,
         UNREACHABLE_RULE, REDUNDANT_RULE, ANALYSIS_PARTIAL, MERGEABLE_RULES, INVARIANT, CASE_FAILED, EMPTY_CELL,
         FULL_DOMAIN_CELL, UNNAMED_VALUE, UNUSED_INPUT, ENUM_IMPORT, ENUM_IMPORT_FAILED, ENUM_MISSING_MEMBER,
         ENUM_EXTRA_VALUE, ENUM_NOT_ALLOWED, ANALYSIS_BUDGET, RESERVED_NAME)
