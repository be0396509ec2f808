"""Stage 1, source: YAML bytes -> plain data that remembers the line:column of every value."""

from __future__ import annotations

import bisect
import re

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import CollectionStartEvent, CollectionEndEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .record import Record
from .lazy import lazy_module
from .diagnostics import Diagnostic, Span, error
from .files import digest_of
from .text import plain_tag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from .codes import document, reading
else:  # imported when a finding of theirs is made: a valid table makes none
    document = lazy_module(f"{__package__}.codes.document")
    reading = lazy_module(f"{__package__}.codes.reading")

#: Values built after alias expansion (a "billion laughs" guard): at least this many,
#: and never more than the text has characters (without aliases every value needs one).
MAX_NODES = 200_000
MAX_DEPTH = 64
#: The longest number a table may write: int and float construction costs more than linear time.
MAX_NUMBER_CHARS = 64

#: libyaml's composer when PyYAML was built with it (about 10x faster); the same nodes and marks.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: A ':' right before a flow indicator: libyaml and PyYAML's pure-Python parser split it
#: differently, as they do tabs, a byte-order mark past the first character and a few more
#: constructs (`_Builder.dialect`); swapool refuses them with either, so that a table means
#: the same whatever the PyYAML build.
_TIGHT_COLON = frozenset(":" + c for c in ",[]{}")
#: The non-specific tag `!` (after an anchor, perhaps): a string, though the pure-Python
#: parser resolves an empty one to null.
_NON_SPECIFIC = r"(?:&\S+\s+)?!(?!\S)"
_ALIAS_OR_ANCHOR = r"[&*]([^\s,\[\]{}]+)"

#: The double-quoted escape that writes a lone surrogate (`\ud800`, `\U0000DFFF`). (Patterns
#: are compiled on first use, by re's cache: most are for errors, and a compile at import costs
#: a pre-commit hook ~0.2 ms each.)
_SURROGATE_ESCAPE = r"\\(?:u|U0000)[dD][89a-fA-F][0-9a-fA-F]{2}"

_YAML = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_YAML + t for t in ("str", "int", "bool", "null", "float", "seq", "map")}
_STR = _YAML + "str"
_SEQ = _YAML + "seq"
_MAP = _YAML + "map"
_SCALAR_TAGS = {_YAML + t for t in ("str", "int", "bool", "null", "float")}
#: Builds the few scalars that are not plain strings (booleans, numbers, null).
_CONSTRUCTOR = SafeConstructor()

Path_ = tuple  # a path into the data: mapping keys and sequence indices


class Document(Record):
    """Plain data (dicts, lists, scalars) plus PyYAML's node graph it was built from: a
    position is read from the nodes only when a finding asks for one, so a valid table
    never pays for the positions it does not report. A value repeated by an alias is
    located where the anchored value is written."""

    file: str
    data: Any
    root: Node
    digest: str
    lines: "_Lines"
    #: Each mapping node's keys, each with its key and value nodes, by id(node): the index the
    #: parse builds anyway to refuse a duplicate key, kept so that a path is a lookup a step.
    keyed: dict[int, dict[str, tuple[Node, Node]]]

    def span(self, path: Path_ = ()) -> Span:
        """The span of the value at `path`, or of its nearest ancestor that has one."""
        node, _ = self._descend(path)
        return self.lines.at_mark(node.start_mark)

    def key_span(self, path: Path_) -> Span:
        """The span of the mapping key that leads to `path` (falls back to the value)."""
        _, key = self._descend(path)
        return self.lines.at_mark(key.start_mark) if key is not None else self.span(path)

    def value_spans(self, path: Path_) -> dict[str, Span]:
        """The span of each value of the mapping at `path`, by key, found in one descent (a
        rule's cells: one descent a rule, not one a cell)."""
        node, _ = self._descend(path)
        if not isinstance(node, MappingNode):
            return {}
        return {key: self.lines.at_mark(v.start_mark) for key, (_, v) in self.keyed[id(node)].items()}

    def _descend(self, path: Path_) -> tuple[Node, Node | None]:
        """The node at `path` (or its deepest ancestor there) and the key node leading to it
        (None when the path does not end at a mapping value)."""
        node, key = self.root, None
        for step in path:
            if isinstance(node, SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
                node, key = node.value[step], None
                continue
            if isinstance(node, MappingNode):
                pair = self.keyed[id(node)].get(step)
                if pair is not None:
                    key, node = pair
                    continue
            return node, None
        return node, key


def parse_document(raw: bytes | str, file: str = "<string>", digest: str | None = None
                   ) -> tuple[Document | None, list[Diagnostic]]:
    """Parse one YAML document into a `Document`, or return why not (never raises).
    `digest` is `digest_of(raw)` when the caller has it already."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    kept = _kept
    if kept is not None and (raw, file) in kept:
        return kept[raw, file], []
    doc, found = _parse(raw, file, digest or digest_of(raw))
    if kept is not None and doc is not None:
        kept[raw, file] = doc
        if len(kept) > 4:
            del kept[next(iter(kept))]
    return doc, found


class parsed_once:
    """`with parsed_once():` a document read again inside it (same bytes, same name) is not
    parsed again: a check of a table reads it again as the import of a table beside it, and
    that table first to learn that it imports it. The edges that read tables so (a command, a
    server loading its two tables) say so; nothing is kept past the outermost one (a server
    holds no node graph), and a Document is never changed once built."""

    def __enter__(self) -> None:
        global _kept
        self.outer = _kept
        _kept = {} if _kept is None else _kept

    def __exit__(self, *exc: object) -> None:
        global _kept
        _kept = self.outer


#: The last few documents parsed inside `parsed_once`, by their bytes and name (None outside).
_kept: dict[tuple[bytes, str], Document] | None = None


def _parse(raw: bytes, file: str, digest: str) -> tuple[Document | None, list[Diagnostic]]:
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None, [error(reading.IoUtf16(), Span(file, 1, 1))]
    try:
        text = raw.decode("utf-8")
        if text.startswith("\ufeff"):  # a leading byte-order mark, as utf-8-sig reads it (without its import)
            text = text[1:]
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [error(reading.IoNotUtf8(byte=raw[exc.start]), Span(file, line, column))]
    where = _Lines(file, text)
    if "\t" in text or "\ufeff" in text:  # str's own search: ~100x a regex's on a table
        first = min(i for i in (text.find("\t"), text.find("\ufeff")) if i >= 0)
        tab = text[first] == "\t"
        return None, [error(reading.YamlSyntaxTab() if tab else reading.YamlSyntaxBom(), where.at(first))]
    try:
        root = _compose(text)
        if root is None:
            return None, [error(document.SchemaNoDocument(), Span(file, 1, 1))]
        builder = _Builder(where, max(MAX_NODES, len(text)))
        data = builder.value(root, 0, False)
    except _Reject as rej:
        return None, [rej.diagnostic]
    except (RecursionError, yaml.MarkedYAMLError) as exc:
        too_deep = isinstance(exc, RecursionError) or "maximum nesting depth" in str(exc.problem)
        if isinstance(exc, yaml.MarkedYAMLError) and not too_deep:
            return None, [_syntax_error(exc, where)]
        mark = _too_deep_at(text)
        span = where.at_mark(mark) if mark is not None else Span(file, 1, 1)
        return None, [error(reading.YamlSyntaxTooDeep(limit=MAX_DEPTH), span)]
    except yaml.reader.ReaderError as exc:
        char = ord(exc.character) if isinstance(exc.character, str) else exc.character
        return None, [error(reading.YamlSyntaxControlCharacter(char=char), where.at(exc.position))]
    except yaml.YAMLError as exc:
        return None, [error(reading.YamlSyntaxParser(parser=str(exc).splitlines()[0]), Span(file, 1, 1))]
    return Document(file, data, root, digest, where, builder.keyed), []


def _compose(text: str) -> Node | None:
    loader = _LOADER(text)  # PyYAML's own reader checks the characters here
    tags: dict[tuple, str] = {}
    resolve = loader.resolve

    def resolved(kind: type, value: str | None, implicit: Any) -> str:
        """A node's tag, each distinct scalar's found once: PyYAML tries its regular
        expressions on every plain scalar, and a table repeats its values in every rule."""
        key = (kind, value, implicit)
        tag = tags.get(key)
        if tag is None:
            tag = tags[key] = resolve(kind, value, implicit)
        return tag

    loader.resolve = resolved  # type: ignore[method-assign]
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _too_deep_at(text: str) -> Any:
    """Where the nesting first passes MAX_DEPTH, read from the parser's events (no
    recursion), or None when it never does."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return event.start_mark
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass
    return None


def _syntax_error(exc: yaml.MarkedYAMLError, where: "_Lines") -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    span = where.at_mark(mark) if mark else Span(where.file, 1, 1)
    problem = exc.problem or exc.context or "malformed YAML"
    if exc.context and exc.problem:
        problem = f"{exc.problem} ({exc.context})"
    at = where.text[mark.index:mark.index + 1] if mark else ""
    if mark and problem.startswith(("found undefined alias", "found duplicate anchor")):
        # libyaml's composer leaves the name out; one wording whatever the build
        name = re.compile(_ALIAS_OR_ANCHOR).match(where.text, mark.index)
        problem = problem.split("'")[0].split(";")[0].rstrip() + (f" '{name.group(1)}'" if name else "")
    if mark and problem.startswith("found invalid Unicode character escape code") and \
            re.compile(_SURROGATE_ESCAPE).match(where.text, mark.index - 2):
        return error(reading.YamlSyntaxSurrogate(), span)  # as the pure-Python parser's is worded
    indents = _indents(where.text, mark.line) if mark and re.search(_INDENTATION, problem) else {}
    return error(reading.YamlSyntaxParser(parser=problem, at=at, **indents), span)


#: PyYAML's words for a block that ends or continues where the indentation says it does not.
_INDENTATION = r"expected key|expected '-' indicator|expected <block end>|mapping values are not allowed"


def _indents(text: str, line: int) -> dict[str, Any]:
    """Where the line of a block-structure error starts and where the nearest line above it
    with content starts (1-based), when they differ: what the help shows."""
    lines = editor_lines(text)
    if line >= len(lines):
        return {}
    here = lines[line]
    above = next((n for n in range(line - 1, -1, -1) if lines[n].strip() and not lines[n].lstrip().startswith("#")),
                 None)
    if above is None or not here.strip():
        return {}
    column = len(here) - len(here.lstrip(" ")) + 1
    above_column = len(lines[above]) - len(lines[above].lstrip(" ")) + 1
    if lines[above].lstrip().startswith("- "):  # a list item's keys start after its '- '
        above_column += 2
    return {} if column == above_column else {"column": column, "above": above + 1, "above_column": above_column}


def editor_lines(text: str) -> list[str]:
    """`text`'s lines as an editor numbers them (and as every span here counts them): broken
    at CR, LF and CRLF only, not at U+0085, U+2028 or U+2029 as `str.splitlines` does."""
    return re.split(_Lines._BREAKS, text)


class _Lines:
    """Positions as an editor shows them. YAML also breaks lines at U+0085, U+2028 and
    U+2029, editors do not; only a text holding one of them needs its own line index."""

    _BREAKS = "\r\n|\r|\n"

    def __init__(self, file: str, text: str):
        self.file = file
        self.text = text
        self.yaml_agrees = not any(c in text for c in "\x85\u2028\u2029")
        self.starts: list[int] = []

    def at(self, index: int, line: int | None = None, column: int | None = None) -> Span:
        """The editor's line:column of character `index` (YAML's own `line`/`column`, when
        given, are used where they agree with an editor's)."""
        if self.yaml_agrees and line is not None and column is not None:
            return Span(self.file, line + 1, column + 1)
        if not self.starts:
            self.starts = [0] + [m.end() for m in re.finditer(self._BREAKS, self.text)]
        row = bisect.bisect_right(self.starts, index) - 1
        return Span(self.file, row + 1, index - self.starts[row] + 1)

    def at_mark(self, mark: Any) -> Span:
        return self.at(mark.index, mark.line, mark.column)


def _lone_surrogate(value: str) -> bool:
    """Whether `value` holds a lone surrogate (which UTF-8 cannot encode)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class _Reject(Exception):
    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic


class _Builder:
    """Plain data from PyYAML's node graph, with the limits composing does not have:
    values after alias expansion, nesting depth, tags, keys, number length, and the
    constructs the two parsers read differently."""

    def __init__(self, lines: _Lines, max_nodes: int):
        self.lines = lines
        self.text = lines.text
        self.max_nodes = max_nodes
        self.built = 0
        self.open: set[int] = set()  # ids of the collections being built: an alias of one is recursive
        #: Each anchored collection built (by id and flow context): (value, values in it, its
        #: height), so that an alias of it is counted against the limits without a second walk.
        self.anchored: dict[tuple[int, bool], tuple[Any, int, int]] = {}
        self.deepest = 0
        self.keyed: dict[int, dict[str, tuple[Node, Node]]] = {}  # each mapping's keys (Document.keyed)
        self.odd = "?" in self.text or any(pair in self.text for pair in _TIGHT_COLON)

    def span(self, node: Node) -> Span:
        return self.lines.at_mark(node.start_mark)

    def value(self, node: Node, depth: int, flow: bool) -> Any:
        self.built += 1
        if self.built > self.max_nodes:
            raise _Reject(error(reading.YamlAliasBomb(limit=self.max_nodes), self.span(node)))
        if depth > MAX_DEPTH:
            raise _Reject(error(reading.YamlSyntaxTooDeep(limit=MAX_DEPTH), self.span(node)))
        if isinstance(node, ScalarNode):
            return self.scalar(node, flow)
        flow = flow or bool(getattr(node, "flow_style", False))  # a collection node
        if not self.text.startswith("&", node.start_mark.index):
            return self.collection(node, depth, flow)
        known = self.anchored.get((id(node), flow))
        if known is not None and self.built + known[1] <= self.max_nodes and depth + known[2] <= MAX_DEPTH:
            self.built += known[1] - 1  # the values an alias repeats: a "billion laughs" is still refused
            return known[0]  # the same value: nothing reads a table's data but to build its model
        before, deepest, self.deepest = self.built - 1, self.deepest, depth
        built = self.collection(node, depth, flow)
        self.anchored[id(node), flow] = (built, self.built - before, self.deepest - depth)
        self.deepest = max(deepest, self.deepest)
        return built

    def collection(self, node: Node, depth: int, flow: bool) -> Any:
        self.deepest = max(self.deepest, depth + 1 if node.value else depth)  # a child is one deeper
        if id(node) in self.open:
            anchor = re.compile(_ALIAS_OR_ANCHOR).search(self.text, node.start_mark.index)
            recursive = reading.YamlSyntaxRecursiveAlias(anchor=anchor.group(1) if anchor else "?")
            raise _Reject(error(recursive, self.span(node)))
        self.open.add(id(node))
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                self.refuse_tag(node, "a list")
            built: Any = [self.value(item, depth + 1, flow) for item in node.value]
        else:
            if node.tag != _MAP:
                self.refuse_tag(node, "a mapping")
            built = {}
            keys = self.keyed[id(node)] = {}
            for key_node, value_node in node.value:
                key = self.value(key_node, depth + 1, flow)
                if not isinstance(key, str):
                    raise _Reject(error(reading.YamlKeyType(key=key), self.span(key_node)))
                if key in keys:
                    raise _Reject(error(reading.YamlDuplicateKey(key=key, first_line=self.span(keys[key][0]).line),
                                        self.span(key_node)))
                keys[key] = key_node, value_node
                built[key] = self.value(value_node, depth + 1, flow)
        self.open.discard(id(node))
        return built

    def scalar(self, node: ScalarNode, flow: bool) -> Any:
        if node.style or flow:
            self.dialect(node, flow)
        if node.style == '"' and _lone_surrogate(node.value):
            # libyaml refuses a \u escape to a lone surrogate while scanning; the pure parser decodes it
            escape = re.compile(_SURROGATE_ESCAPE).search(self.text, node.start_mark.index, node.end_mark.index)
            at = escape.start() + 2 if escape else node.start_mark.index
            raise _Reject(error(reading.YamlSyntaxSurrogate(), self.lines.at(at)))
        tag = node.tag
        if tag == _STR:
            return node.value
        if self.text[node.start_mark.index:node.start_mark.index + 1] in ("!", "&") and \
                re.compile(_NON_SPECIFIC).match(self.text, node.start_mark.index):
            return node.value
        if tag not in _SCALAR_TAGS:
            self.refuse_tag(node, "a scalar")
        kind = tag[len(_YAML):]
        if kind == "null" and plain_tag(node.value) != tag:  # PyYAML builds None from any value
            raise _Reject(error(reading.YamlTagBadValue(value=node.value, kind=kind), self.span(node)))
        if kind in ("int", "float") and len(node.value) > MAX_NUMBER_CHARS:  # bounded before it is built
            too_long = reading.YamlTagLongNumber(length=len(node.value), limit=MAX_NUMBER_CHARS)
            raise _Reject(error(too_long, self.span(node)))
        try:
            return SafeConstructor.yaml_constructors[tag](_CONSTRUCTOR, node)
        except (ValueError, KeyError, IndexError, TypeError, OverflowError, yaml.YAMLError):
            raise _Reject(error(reading.YamlTagBadValue(value=node.value, kind=kind), self.span(node))) from None

    def dialect(self, node: ScalarNode, flow: bool) -> None:
        """Refuse a scalar that libyaml and PyYAML's pure-Python parser read differently: a
        '|' or '>' header with a comment and no space before it (the pure parser refuses
        it), and inside [...] or {...} an unquoted value holding '?' or ':', or a key with
        no space after its ':' (the two split these differently)."""
        value, style, mark, end = node.value, node.style, node.start_mark, node.end_mark
        if style:
            if style in "|>":
                i = mark.index + 1
                while i < len(self.text) and self.text[i] in "+-0123456789":
                    i += 1
                if self.text[i:i + 1] == "#":
                    raise _Reject(error(reading.YamlSyntaxBlockComment(), self.span(node)))
            return
        if not flow:
            return
        if "?" in value or ":" in value:
            if ":" in value or self.odd:
                raise _Reject(error(reading.YamlSyntaxFlowIndicator(char="?" if "?" in value else ":", value=value),
                                    self.span(node)))
        elif self.odd and self.text[end.index:end.index + 2] in _TIGHT_COLON:
            raise _Reject(error(reading.YamlSyntaxTightColon(), self.lines.at_mark(end)))

    def refuse_tag(self, node: Node, on: str) -> None:
        tag = node.tag
        kind = tag[len(_YAML):] if tag.startswith(_YAML) else tag
        if tag in _PLAIN_TAGS:
            raise _Reject(error(reading.YamlTagMisfit(kind=kind, on=on), self.span(node)))
        raise _Reject(error(reading.YamlTagType(kind=kind), self.span(node)))
