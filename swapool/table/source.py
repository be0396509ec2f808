"""Stage 1, source: YAML bytes -> plain data that remembers the line:column of every value."""

from __future__ import annotations

import bisect
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from typing import Any, Mapping

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .diagnostics import Diagnostic, Span, error

#: A table is a few kilobytes; anything far larger is a mistake or an attack.
MAX_BYTES = 1 << 20
#: Nodes produced after alias expansion (a "billion laughs" guard): at least this many,
#: and never more than the text has characters (without aliases every node needs one).
MAX_NODES = 200_000
MAX_DEPTH = 64

#: libyaml's parser when PyYAML was built with it (about 10x faster); same nodes and marks.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_YAML = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_YAML + t for t in ("str", "int", "bool", "null", "float", "seq", "map")}
_STR = _YAML + "str"

Path_ = tuple  # a path into the data: mapping keys and sequence indices


@dataclass(frozen=True)
class Document:
    """Plain data (dicts, lists, scalars) plus where every value and key starts. The
    parser's marks are kept as they are and become a `Span` only when a finding asks:
    a valid table never pays for the positions it does not report."""

    file: str
    data: Any
    marks: Mapping[Path_, Any]      # path -> the YAML start mark of the value there
    key_marks: Mapping[Path_, Any]  # path -> the start mark of the key that leads there
    digest: str
    lines: "_Lines"

    def span(self, path: Path_ = ()) -> Span:
        """The span of the value at `path`, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path not in self.marks and path:
            path = path[:-1]
        mark = self.marks.get(path)
        return self.lines.at(mark.index, mark.line, mark.column) if mark else Span(self.file, 1, 1)

    def key_span(self, path: Path_) -> Span:
        """The span of the mapping key that leads to `path` (falls back to the value)."""
        mark = self.key_marks.get(tuple(path))
        return self.lines.at(mark.index, mark.line, mark.column) if mark else self.span(path)


class _Reject(Exception):
    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic


def digest_of(raw: bytes) -> str:
    """The content digest that names a table in logs, caches and rank agreement."""
    return hashlib.sha256(raw).hexdigest()


def read_bytes(path: str | os.PathLike, display: str | None = None) -> tuple[bytes | None, list[Diagnostic]]:
    """The raw bytes of a regular table file (at most MAX_BYTES); I/O problems become `io`
    diagnostics. FIFOs, devices and directories are refused before they are opened, so a
    path can never make a check block."""
    name = display if display is not None else str(path)
    if not os.fspath(path):
        return None, [error("io", "an empty path names no table file", Span("<empty path>", 1, 1))]
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            return None, [error("io", f"{name} is a directory, expected a YAML table file", Span(name, 1, 1))]
        if not stat.S_ISREG(mode):
            return None, [error("io", f"{name} is not a regular file (a pipe or device?); expected a YAML "
                                "table file", Span(name, 1, 1))]
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None, [error("io", f"{name}: no such file", Span(name, 1, 1))]
    except OSError as exc:
        return None, [error("io", f"{name}: cannot read: {exc.strerror or exc}", Span(name, 1, 1))]
    if len(raw) > MAX_BYTES:
        return None, [error("io", f"{name} is larger than {MAX_BYTES} bytes; a policy table is a few kilobytes",
                            Span(name, 1, 1))]
    return raw, []


def parse_document(raw: bytes | str, file: str = "<string>", digest: str | None = None
                   ) -> tuple[Document | None, list[Diagnostic]]:
    """Parse one YAML document into a `Document`, or return why not (never raises).
    `digest` is `digest_of(raw)` when the caller has it already."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    digest = digest or digest_of(raw)
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None, [error("io", "the file is UTF-16; a policy table must be UTF-8", Span(file, 1, 1))]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [error("io", f"byte 0x{raw[exc.start]:02x} is not valid UTF-8; save the file as UTF-8",
                            Span(file, line, column))]
    where = _Lines(file, text)
    try:
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = where.at(mark.index, mark.line, mark.column) if mark else Span(file, 1, 1)
        problem = exc.problem or exc.context or "malformed YAML"
        if exc.context and exc.problem:
            problem = f"{exc.problem} ({exc.context})"
        at = text[mark.index:mark.index + 1] if mark else ""
        return None, [error("yaml-syntax", problem, span, help=_syntax_help(problem, at))]
    except yaml.reader.ReaderError as exc:
        span = where.at(exc.position)
        char = ord(exc.character) if isinstance(exc.character, str) else exc.character
        return None, [error("yaml-syntax", f"character #x{char:04x} is not allowed in YAML text",
                            span, help="remove the control character")]
    except yaml.YAMLError as exc:
        return None, [error("yaml-syntax", str(exc).splitlines()[0], Span(file, 1, 1))]
    except RecursionError:
        return None, [error("yaml-syntax", "nesting deeper than Python can parse", Span(file, 1, 1))]
    if root is None:
        return None, [error("schema", "the file holds no YAML document; expected a table mapping",
                            Span(file, 1, 1))]
    builder = _Builder(file, where, max(MAX_NODES, len(text)))
    try:
        data = builder.build(root, (), 0)
    except _Reject as rej:
        return None, [rej.diagnostic]
    return Document(file, data, builder.marks, builder.key_marks, digest, where), []


def _syntax_help(problem: str, at: str) -> str | None:
    if at == "\t" or "'\\t'" in problem:
        return "YAML indentation must use spaces, not tabs"
    if "sequence entries are not allowed" in problem:
        return "a bare '-' is a list marker in block style; quote it ('-') for the 'any value' cell"
    return None


class _Lines:
    """Positions as an editor shows them. YAML also breaks lines at U+0085, U+2028 and
    U+2029, editors do not; only a text holding one of them needs its own line index."""

    _ODD_BREAKS = re.compile("[\x85\u2028\u2029]")
    _BREAKS = re.compile("\r\n|\r|\n")

    def __init__(self, file: str, text: str):
        self.file = file
        self.text = text
        self.yaml_agrees = not self._ODD_BREAKS.search(text)
        self.starts: list[int] = []

    def at(self, index: int, line: int | None = None, column: int | None = None) -> Span:
        """The editor's line:column of character `index` (YAML's own `line`/`column`, when
        given, are used where they agree with an editor's)."""
        if self.yaml_agrees and line is not None and column is not None:
            return Span(self.file, line + 1, column + 1)
        if not self.starts:
            self.starts = [0] + [m.end() for m in self._BREAKS.finditer(self.text)]
        row = bisect.bisect_right(self.starts, index) - 1
        return Span(self.file, row + 1, index - self.starts[row] + 1)


class _Builder:
    def __init__(self, file: str, lines: _Lines, max_nodes: int):
        self.file = file
        self.max_nodes = max_nodes
        self.lines = lines
        self.marks: dict[Path_, Any] = {}
        self.key_marks: dict[Path_, Any] = {}
        self.nodes = 0
        self.constructor = SafeConstructor()

    def span(self, node: Node) -> Span:
        mark = node.start_mark
        return self.lines.at(mark.index, mark.line, mark.column)

    def build(self, node: Node, path: Path_, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _Reject(error("yaml-alias-bomb",
                                f"the document expands to more than {self.max_nodes} nodes (aliases?)",
                                self.span(node), help="write the table out without anchors and aliases"))
        if depth > MAX_DEPTH:
            raise _Reject(error("yaml-syntax", f"nesting deeper than {MAX_DEPTH} levels (or a recursive alias)",
                                self.span(node)))
        if node.tag not in _PLAIN_TAGS:
            kind = node.tag[len(_YAML):] if node.tag.startswith(_YAML) else node.tag
            raise _Reject(error("yaml-tag", f"a value of YAML type '{kind}' cannot appear in a policy table",
                                self.span(node),
                                help="use plain strings, numbers, booleans, lists and mappings; "
                                     "quote the value if it should be a string"))
        if path not in self.marks:
            self.marks[path] = node.start_mark
        if isinstance(node, ScalarNode):
            if node.tag == _STR:  # most scalars: the resolver already said it is a plain string
                return node.value
            return self.constructor.construct_object(node)
        if isinstance(node, SequenceNode):
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        assert isinstance(node, MappingNode)
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.build(key_node, path + ("<key>",), depth + 1)
            if not isinstance(key, str):
                shown = "null" if key is None else repr(key).lower() if isinstance(key, bool) else repr(key)
                raise _Reject(error("yaml-key-type", f"mapping key {shown} is not a string",
                                    self.span(key_node),
                                    help="quote the key; YAML reads yes/no/on/off as booleans"))
            if key in out:
                first = self.key_marks[path + (key,)]
                line = self.lines.at(first.index, first.line, first.column).line
                raise _Reject(error("yaml-duplicate-key",
                                    f"key '{key}' appears twice in this mapping (first at line {line})",
                                    self.span(key_node), help="remove or rename one of them"))
            self.key_marks[path + (key,)] = key_node.start_mark
            out[key] = self.build(value_node, path + (key,), depth + 1)
        return out
