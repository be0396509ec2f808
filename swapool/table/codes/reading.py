"""The codes of reading a table: the file, and its YAML."""

from __future__ import annotations

from . import Code, Facts, Severity, _v

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from . import Words


IO: Code = Code(
    name="io", severity=Severity.ERROR, detail="exit 2",
    summary="the file cannot be read (missing, a directory, too large, not UTF-8)",
    example="`t.yaml: no such file`",
    fix="check the path; files must be UTF-8 and under 1 MiB",
    why="swapool judges only what it can read whole; a table it cannot read must not be mistaken for a valid one")


class IoEmptyPath(Facts, code=IO, problem="empty-path"):
    def words(self) -> Words:
        return "an empty path names no table file", None


class IoMissing(Facts, code=IO, problem="missing"):
    file: str

    def words(self) -> Words:
        return (f"{self.file}: no such file", None)


class IoDirectory(Facts, code=IO, problem="directory"):
    file: str

    def words(self) -> Words:
        return (f"{self.file} is a directory, expected a YAML table file", None)


class IoUnreadable(Facts, code=IO, problem="unreadable"):
    file: str
    reason: str

    def words(self) -> Words:
        return (f"{self.file}: cannot read: {self.reason}", None)


class IoNulByte(Facts, code=IO, problem="nul-byte"):
    file: str

    def words(self) -> Words:
        return (f"{self.file}: a path holds no NUL byte; no file has this name", None)


class IoNotRegular(Facts, code=IO, problem="not-regular"):
    file: str

    def words(self) -> Words:
        return (f"{self.file} is not a regular file (a pipe or device?); expected a YAML table file",
                "give its content on standard input (-) instead")


class IoTooLarge(Facts, code=IO, problem="too-large"):
    file: str
    limit: int

    def words(self) -> Words:
        return (f"{self.file} is larger than {self.limit} bytes; a policy table is a few kilobytes",
                None)


class IoClosed(Facts, code=IO, problem="closed"):
    file: str

    def words(self) -> Words:
        return (f"{self.file}: standard input is closed", None)


class IoUtf16(Facts, code=IO, problem="utf-16"):
    def words(self) -> Words:
        return "the file is UTF-16; a policy table must be UTF-8", None


class IoNotUtf8(Facts, code=IO, problem="not-utf-8"):
    byte: int

    def words(self) -> Words:
        return (f"byte 0x{self.byte:02x} is not valid UTF-8; save the file as UTF-8", None)


YAML_SYNTAX: Code = Code(
    name="yaml-syntax", severity=Severity.ERROR,
    summary="the file is not well-formed YAML",
    example="`t.yaml:3:1: found character that cannot start any token`",
    fix="fix the YAML (spaces, not tabs; quote a bare `-`)",
    why="a table that is not YAML has no meaning to check; swapool accepts only what libyaml and PyYAML's own parser "
        "read alike, so a verdict never depends on the machine")


class YamlSyntaxTab(Facts, code=YAML_SYNTAX, problem="tab"):
    def words(self) -> Words:
        return ("a tab character", "swapool's YAML has no tabs (YAML parsers disagree about them); use spaces, "
                                   "and write \\t in a double-quoted string")


class YamlSyntaxBom(Facts, code=YAML_SYNTAX, problem="bom"):
    def words(self) -> Words:
        return "a byte-order mark (U+FEFF) inside the text", "remove it"


class YamlSyntaxParser(Facts, code=YAML_SYNTAX, problem="parser"):
    parser: str
    at: str = ""
    column: int | None = None
    above: Any = None
    above_column: Any = None

    def words(self) -> Words:
        if self.column is not None:
            return self.parser, (f"check the indentation: this line starts at column {self.column}, line {self.above} "
                                 "above it at column "
                            f"{self.above_column}; keys of one mapping start at one column, a nested mapping's "
                            "further right")
        if self.at == "\t" or "'\\t'" in self.parser:
            return self.parser, "YAML indentation must use spaces, not tabs"
        if "found unexpected ':'" in self.parser:
            return self.parser, "quote a value that holds ':', and write ': ' (a colon and a space) after a key"
        if "sequence entries are not allowed" in self.parser:
            return self.parser, "a bare '-' is a list marker in block style; quote it ('-') for the 'any value' cell"
        return self.parser, None


class YamlSyntaxControlCharacter(Facts, code=YAML_SYNTAX, problem="control-character"):
    char: Any

    def words(self) -> Words:
        return (f"character #x{self.char:04x} is not allowed in YAML text",
                "remove the control character")


class YamlSyntaxRecursiveAlias(Facts, code=YAML_SYNTAX, problem="recursive-alias"):
    anchor: str

    def words(self) -> Words:
        return (f"alias *{self.anchor} is inside the value it names (a recursive alias)",
                "write the table out without anchors and aliases")


class YamlSyntaxTightColon(Facts, code=YAML_SYNTAX, problem="tight-colon"):
    def words(self) -> Words:
        return "no space after the ':' inside [...] or {...}", "write ': ' (a colon and a space)"


class YamlSyntaxFlowIndicator(Facts, code=YAML_SYNTAX, problem="flow-indicator"):
    char: Any
    value: Any

    def words(self) -> Words:
        return (f"an unquoted value holding '{self.char}' inside [...] or {{...}}",
                f"quote it: '{_v(self.value)}'")


class YamlSyntaxBlockComment(Facts, code=YAML_SYNTAX, problem="block-comment"):
    def words(self) -> Words:
        return "a comment right after a block scalar's '|' or '>'", "put a space before the '#'"


class YamlSyntaxTooDeep(Facts, code=YAML_SYNTAX, problem="too-deep"):
    limit: int

    def words(self) -> Words:
        return (f"nesting deeper than {self.limit} levels", None)


class YamlSyntaxSurrogate(Facts, code=YAML_SYNTAX, problem="surrogate"):
    def words(self) -> Words:
        return ("found invalid Unicode character escape code: a lone surrogate (U+D800 to U+DFFF), which UTF-8 cannot "
                "hold", "write the character itself, or a pair as one \\U escape")


YAML_DUPLICATE_KEY: Code = Code(
    name="yaml-duplicate-key", severity=Severity.ERROR,
    summary="a mapping names the same key twice",
    example="`key 'then' appears twice in this mapping (first at line 7)`",
    fix="keep one",
    why="YAML parsers keep one of the two silently; which one the author meant is a guess swapool will not make")


class YamlDuplicateKey(Facts, code=YAML_DUPLICATE_KEY):
    key: Any
    first_line: int

    def words(self) -> Words:
        return (f"key '{self.key}' appears twice in this mapping (first at line {self.first_line})",
                "remove or rename one of them")


YAML_TAG: Code = Code(
    name="yaml-tag", severity=Severity.ERROR,
    summary="a YAML tag or type that a table cannot hold (python objects, dates, merges)",
    example="`a value of YAML type 'python/object/apply' cannot appear in a policy table`",
    fix="plain strings, lists and mappings only",
    why="a table is data: a tag that builds objects, dates or merges would run code or change meaning outside the "
        "format")


class YamlTagLongNumber(Facts, code=YAML_TAG, problem="long-number"):
    length: int
    limit: int

    def words(self) -> Words:
        return (f"a number of {self.length} characters; a table's numbers have at most "
                f"{self.limit}", "quote it if it is a name")


class YamlTagBadValue(Facts, code=YAML_TAG, problem="bad-value"):
    value: Any
    kind: str

    def words(self) -> Words:
        return (f"'{self.value}' is not a valid {self.kind} (its tag says !!{self.kind})",
                "remove the tag or fix the value")


class YamlTagMisfit(Facts, code=YAML_TAG, problem="misfit"):
    kind: str
    on: str

    def words(self) -> Words:
        return (f"the tag !!{self.kind} does not fit {self.on}", "remove the tag")


class YamlTagType(Facts, code=YAML_TAG, problem="type"):
    kind: str

    def words(self) -> Words:
        return (f"a value of YAML type '{self.kind}' cannot appear in a policy table",
                "use plain strings, numbers, booleans, lists and mappings; quote the value if it should be a string")


YAML_ALIAS_BOMB: Code = Code(
    name="yaml-alias-bomb", severity=Severity.ERROR,
    summary="aliases expand past the node limit",
    example="`the document expands to more than 200000 nodes`",
    fix="write the table out without aliases",
    why="a few aliases can expand to millions of nodes (the 'billion laughs'); the check must stay bounded")


class YamlAliasBomb(Facts, code=YAML_ALIAS_BOMB):
    limit: int

    def words(self) -> Words:
        return (f"the document expands to more than {self.limit} nodes (aliases?)",
                "write the table out without anchors and aliases")


YAML_KEY_TYPE: Code = Code(
    name="yaml-key-type", severity=Severity.ERROR,
    summary="a mapping key that is not a string",
    example="`mapping key true is not a string`",
    fix="quote `on`/`yes`/... keys",
    why="YAML reads unquoted yes/no/on/off and numbers as non-strings; a key that is not a string cannot name anything")


class YamlKeyType(Facts, code=YAML_KEY_TYPE):
    key: Any

    def words(self) -> Words:
        key = self.key
        shown = "null" if key is None else repr(key).lower() if isinstance(key, bool) else repr(key)
        return f"mapping key {shown} is not a string", "quote the key; YAML reads yes/no/on/off as booleans"
