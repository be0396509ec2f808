"""Stage 1, source: YAML bytes -> plain data that remembers the line:column of every value."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import os
import re
import stat
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

import yaml
from yaml.composer import ComposerError
from yaml.constructor import SafeConstructor
from yaml.events import (AliasEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent, ScalarEvent,
                         SequenceEndEvent, SequenceStartEvent, StreamEndEvent)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from .diagnostics import Diagnostic, Span, error

#: A table is a few kilobytes; anything far larger is a mistake or an attack.
MAX_BYTES = 1 << 20
#: Nodes produced after alias expansion (a "billion laughs" guard): at least this many,
#: and never more than the text has characters (without aliases every node needs one).
MAX_NODES = 200_000
MAX_DEPTH = 64

#: libyaml's parser when PyYAML was built with it (about 10x faster); the same events and marks.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: What libyaml and PyYAML's pure-Python parser read differently, refused with either so
#: that a table means the same whatever the PyYAML build: tabs, and a byte-order mark
#: past the first character (the decoder drops that one). The reader refuses the rest.
_TIGHT_COLON = frozenset(":" + c for c in ",[]{}")

_YAML = "tag:yaml.org,2002:"
#: The longest number a table may write: int and float construction costs more than linear time.
MAX_NUMBER_CHARS = 64
_PLAIN_TAGS = {_YAML + t for t in ("str", "int", "bool", "null", "float", "seq", "map")}
_STR = _YAML + "str"
_SEQ = _YAML + "seq"
_MAP = _YAML + "map"
_SCALAR_TAGS = {_YAML + t for t in ("str", "int", "bool", "null", "float")}
#: Builds the few scalars that are not plain strings (booleans, numbers, null).
_CONSTRUCTOR = SafeConstructor()

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
    diagnostics. The file is opened without blocking and then examined (no window between
    a check and the open for a pipe to be swapped in); FIFOs, devices and directories are
    refused unread, and a file that reports no size (empty, or a /proc file that may block
    on read) is taken as empty without reading it, so a path can never make a check block."""
    name = display if display is not None else str(path)
    if not os.fspath(path):
        return None, [error("io", Span("<empty path>", 1, 1), problem="empty-path")]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return None, [error("io", Span(name, 1, 1), problem="missing", file=name)]
    except IsADirectoryError:
        return None, [error("io", Span(name, 1, 1), problem="directory", file=name)]
    except OSError as exc:
        return None, [error("io", Span(name, 1, 1), problem="unreadable", file=name, reason=str(exc.strerror or exc))]
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return None, [error("io", Span(name, 1, 1), problem="directory", file=name)]
        if not stat.S_ISREG(info.st_mode):
            return None, [error("io", Span(name, 1, 1), problem="not-regular", file=name)]
        if info.st_size == 0:
            return b"", []
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, [error("io", Span(name, 1, 1), problem="unreadable", file=name, reason=str(exc.strerror or exc))]
    finally:
        os.close(fd)
    if len(raw) > MAX_BYTES:
        return None, [error("io", Span(name, 1, 1), problem="too-large", file=name, limit=MAX_BYTES)]
    return raw, []


def parse_document(raw: bytes | str, file: str = "<string>", digest: str | None = None
                   ) -> tuple[Document | None, list[Diagnostic]]:
    """Parse one YAML document into a `Document`, or return why not (never raises).
    `digest` is `digest_of(raw)` when the caller has it already."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    digest = digest or digest_of(raw)
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None, [error("io", Span(file, 1, 1), problem="utf-16")]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [error("io", Span(file, line, column), problem="not-utf-8", byte=raw[exc.start])]
    where = _Lines(file, text)
    if "\t" in text or "\ufeff" in text:  # str's own search: ~100x a regex's on a table
        first = min(i for i in (text.find("\t"), text.find("\ufeff")) if i >= 0)
        tab = text[first] == "\t"
        return None, [error("yaml-syntax", where.at(first), problem="tab" if tab else "bom")]
    loader = None
    reader = _Reader(where, max(MAX_NODES, len(text)))
    try:
        loader = _LOADER(text)  # PyYAML's own reader checks the characters here
        found = reader.read(loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = where.at(mark.index, mark.line, mark.column) if mark else Span(file, 1, 1)
        problem = exc.problem or exc.context or "malformed YAML"
        if exc.context and exc.problem:
            problem = f"{exc.problem} ({exc.context})"
        at = text[mark.index:mark.index + 1] if mark else ""
        return None, [error("yaml-syntax", span, problem="parser", parser=problem, at=at)]
    except yaml.reader.ReaderError as exc:
        span = where.at(exc.position)
        char = ord(exc.character) if isinstance(exc.character, str) else exc.character
        return None, [error("yaml-syntax", span, problem="control-character", char=char)]
    except yaml.YAMLError as exc:
        return None, [error("yaml-syntax", Span(file, 1, 1), problem="parser", parser=str(exc).splitlines()[0])]
    except _Reject as rej:
        return None, [rej.diagnostic]
    finally:
        if loader is not None:
            loader.dispose()
    if not found:
        return None, [error("schema", Span(file, 1, 1), problem="no-document")]
    return Document(file, reader.data, reader.marks, reader.key_marks, digest, where), []


def editor_lines(text: str) -> list[str]:
    """`text`'s lines as an editor numbers them (and as every span here counts them): broken
    at CR, LF and CRLF only, not at U+0085, U+2028 or U+2029 as `str.splitlines` does."""
    return _Lines._BREAKS.split(text)


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


class _Open:
    """A sequence or mapping whose end event has not come yet."""

    __slots__ = ("value", "path", "mark", "key", "height", "anchor", "flow")

    def __init__(self, value: Any, path: Path_, mark: Any, flow: bool = False):
        self.value = value
        self.flow = flow  # written in [...] or {...}
        self.path = path
        self.mark = mark
        self.key: Any = _NO_KEY  # a mapping's key whose value comes next
        self.height = 0  # levels of nesting below it so far
        self.anchor: tuple[str, int, int, int] | None = None  # name, nodes, marks, key marks before it


class _Anchored(NamedTuple):
    """A finished anchored value: what an alias of it repeats."""

    value: Any
    path: Path_
    nodes: int  # nodes it expands to
    height: int
    marks: tuple  # (path, mark) of every value inside it
    key_marks: tuple


_NO_KEY = object()
_KEY = ("<key>",)  # the path step to a mapping's keys
_RECURSIVE = object()


def _added_since(entries: dict[Path_, Any], count: int) -> tuple[tuple[Path_, Any], ...]:
    """The entries inserted after the first `count`, read from the end: the work is the
    anchored value's own size, not the document's (8,000 anchors once cost 38 s)."""
    added = list(itertools.islice(reversed(entries.items()), len(entries) - count))
    added.reverse()
    return tuple(added)


class _Reader:
    """Plain data and the marks of every value from the parser's events, in one pass
    with no node objects: the same tags, aliases and errors as composing the document,
    plus the limits (nodes after alias expansion, nesting depth, tags, keys)."""

    def __init__(self, lines: _Lines, max_nodes: int):
        self.lines = lines
        self.max_nodes = max_nodes
        self.marks: dict[Path_, Any] = {}
        self.key_marks: dict[Path_, Any] = {}
        self.data: Any = None
        self.anchored_at: dict[str, Any] = {}

    def span(self, mark: Any) -> Span:
        return self.lines.at(mark.index, mark.line, mark.column)

    def read(self, loader: Any) -> bool:
        """Read the one document; False when the stream holds none."""
        get_event, resolve = loader.get_event, loader.resolve
        text = self.lines.text
        odd = "?" in text or any(pair in text for pair in _TIGHT_COLON)
        marks, key_marks = self.marks, self.key_marks
        anchors: dict[str, Any] = {}
        stack: list[_Open] = []
        nodes = 0
        document = None
        max_nodes = self.max_nodes
        top: _Open | None
        plain_tags: dict[str, str] = {}  # a plain scalar's tag depends on its text alone
        while True:
            event = get_event()
            kind = type(event)
            if kind is ScalarEvent and stack and event.tag is None and event.anchor is None:
                # most of a table: a string in a list or mapping, handled without a call
                nodes += 1
                mark = event.start_mark
                if nodes > max_nodes:
                    self.bomb(mark)
                if len(stack) > MAX_DEPTH:
                    self.too_deep(mark)
                value = event.value
                top = stack[-1]
                if event.style or top.flow:
                    self.dialect(event, top, odd)
                if event.implicit[0]:
                    tag = plain_tags.get(value)
                    if tag is None:
                        tag = plain_tags[value] = resolve(ScalarNode, value, event.implicit)
                    if tag != _STR:
                        value = self.scalar(tag, value, mark, event.end_mark)
                if not top.height:
                    top.height = 1
                container = top.value
                if container.__class__ is list:
                    marks[top.path + (len(container),)] = mark
                    container.append(value)
                elif top.key is _NO_KEY:
                    marks.setdefault(top.path + _KEY, mark)
                    if value.__class__ is str and value not in container:
                        key_marks[top.path + (value,)] = mark
                        top.key = value
                    else:
                        self.key(top, value, mark)
                else:
                    marks[top.path + (top.key,)] = mark
                    container[top.key] = value
                    top.key = _NO_KEY
                continue
            if kind is ScalarEvent or kind is SequenceStartEvent or kind is MappingStartEvent:
                nodes += 1
                top = stack[-1] if stack else None
                path = _child_path(top)
                mark = event.start_mark
                if nodes > max_nodes:
                    self.bomb(mark)
                if len(stack) > MAX_DEPTH:
                    self.too_deep(mark)
                if path not in marks:
                    marks[path] = mark
                anchor = event.anchor
                if anchor is not None:
                    self.claim(anchors, anchor, mark)
                tag = event.tag
                if kind is ScalarEvent:
                    value = event.value
                    if top is not None and (event.style or top.flow):
                        self.dialect(event, top, odd)
                    if tag == "!":  # the non-specific tag: a string, whatever the parser's implicit flags
                        tag = _STR
                    elif tag is None:
                        tag = resolve(ScalarNode, value, event.implicit)
                    if tag != _STR:
                        value = self.scalar(tag, value, mark, event.end_mark)
                    if anchor is not None:
                        anchors[anchor] = _Anchored(value, path, 1, 0, (), ())
                    self.place(top, value, mark, 0)
                    continue
                node_kind = SequenceNode if kind is SequenceStartEvent else MappingNode
                if tag is None or tag == "!":
                    tag = resolve(node_kind, None, event.implicit)
                if tag != (_SEQ if node_kind is SequenceNode else _MAP):
                    self.refuse_tag(tag, mark, "a list" if node_kind is SequenceNode else "a mapping")
                opened = _Open([] if node_kind is SequenceNode else {}, path, mark,
                               bool(event.flow_style) or (top is not None and top.flow))
                if anchor is not None:
                    opened.anchor = (anchor, nodes, len(marks), len(self.key_marks))
                stack.append(opened)
            elif kind is SequenceEndEvent or kind is MappingEndEvent:
                done = stack.pop()
                if done.anchor is not None:
                    name, first_node, marks_from, keys_from = done.anchor
                    anchors[name] = _Anchored(done.value, done.path, nodes - first_node + 1, done.height,
                                              _added_since(marks, marks_from),
                                              _added_since(self.key_marks, keys_from))
                self.place(stack[-1] if stack else None, done.value, done.mark, done.height)
            elif kind is AliasEvent:
                top = stack[-1] if stack else None
                mark = event.start_mark
                target = anchors.get(event.anchor)
                if target is None:
                    raise ComposerError(None, None, f"found undefined alias '{event.anchor}'", mark)
                if target is _RECURSIVE:
                    raise _Reject(error("yaml-syntax", self.span(mark), problem="recursive-alias", anchor=event.anchor))
                nodes += target.nodes
                if nodes > max_nodes:
                    self.bomb(mark)
                if len(stack) + target.height > MAX_DEPTH:
                    self.too_deep(mark)
                self.repeat(target, _child_path(top), mark)
                self.place(top, target.value, mark, target.height)
            elif kind is DocumentStartEvent:
                if document is not None:
                    raise ComposerError("expected a single document in the stream", document,
                                        "but found another document", event.start_mark)
                document = event.start_mark
            elif kind is StreamEndEvent:
                return document is not None

    def dialect(self, event: Any, top: _Open, odd: bool) -> None:
        """Refuse a scalar that libyaml and PyYAML's pure-Python parser read differently.
        `odd`: the text holds a '?' or a ':' right before a flow indicator, the rarer cases
        that cost the scalar's end mark."""
        value, style = event.value, event.style
        if style:
            if style in "|>":
                self.block_header(event.start_mark)
        elif ":" in value or (odd and ("?" in value or self.lines.text[
                event.end_mark.index:event.end_mark.index + 2] in _TIGHT_COLON)):
            self.flow_plain(value, event.start_mark, event.end_mark)

    def flow_plain(self, value: str, mark: Any, end: Any) -> None:
        """An unquoted value inside [...] or {...} holding '?' or ':', or a key with no
        space after its ':': libyaml and PyYAML's pure-Python parser split these differently."""
        if "?" not in value and ":" not in value:
            raise _Reject(error("yaml-syntax", self.span(end), problem="tight-colon"))
        raise _Reject(error("yaml-syntax", self.span(mark), problem="flow-indicator", char="?" if "?" in value else ":",
                            value=value))

    def block_header(self, mark: Any) -> None:
        """A '|' or '>' header with a comment and no space before it: PyYAML's pure-Python
        parser refuses it, libyaml reads it."""
        text, i = self.lines.text, mark.index + 1
        while i < len(text) and text[i] in "+-0123456789":
            i += 1
        if text[i:i + 1] == "#":
            raise _Reject(error("yaml-syntax", self.span(mark), problem="block-comment"))

    def claim(self, anchors: dict[str, Any], anchor: str, mark: Any) -> None:
        if anchor in anchors:
            raise ComposerError(f"found duplicate anchor '{anchor}'; first occurrence",
                                self.anchored_at[anchor], "second occurrence", mark)
        anchors[anchor] = _RECURSIVE
        self.anchored_at[anchor] = mark

    def repeat(self, target: _Anchored, path: Path_, mark: Any) -> None:
        """Give the alias's copy the anchored value's inner marks, the alias's own mark at its root."""
        marks, key_marks, cut = self.marks, self.key_marks, len(target.path)
        if path not in marks:
            marks[path] = mark
        for inner, inner_mark in target.marks:
            marks.setdefault(path + inner[cut:], inner_mark)
        for inner, inner_mark in target.key_marks:
            key_marks[path + inner[cut:]] = inner_mark

    def place(self, top: _Open | None, value: Any, mark: Any, height: int) -> None:
        """Put a finished value where it belongs: the document, a list, a mapping's key or value."""
        if top is None:
            self.data = value
            return
        if top.height <= height:
            top.height = height + 1
        container = top.value
        if type(container) is list:
            container.append(value)
        elif top.key is _NO_KEY:
            self.key(top, value, mark)
        else:
            container[top.key] = value
            top.key = _NO_KEY

    def key(self, top: _Open, key: Any, mark: Any) -> None:
        if not isinstance(key, str):
            raise _Reject(error("yaml-key-type", self.span(mark), key=key))
        path = top.path + (key,)
        if key in top.value:
            line = self.span(self.key_marks[path]).line
            raise _Reject(error("yaml-duplicate-key", self.span(mark), key=key, first_line=line))
        self.key_marks[path] = mark
        top.key = key

    def scalar(self, tag: str, value: str, mark: Any, end_mark: Any) -> Any:
        if tag not in _SCALAR_TAGS:
            self.refuse_tag(tag, mark, "a scalar")
        kind = tag[len(_YAML):]
        if kind in ("int", "float") and len(value) > MAX_NUMBER_CHARS:  # bounded before it is built
            raise _Reject(error("yaml-tag", self.span(mark), problem="long-number", length=len(value),
                                limit=MAX_NUMBER_CHARS))
        try:
            return SafeConstructor.yaml_constructors[tag](_CONSTRUCTOR, ScalarNode(tag, value, mark, end_mark))
        except (ValueError, KeyError, IndexError, TypeError, OverflowError, yaml.YAMLError):
            raise _Reject(error("yaml-tag", self.span(mark), problem="bad-value", value=value, kind=kind)) from None

    def refuse_tag(self, tag: str, mark: Any, on: str) -> None:
        kind = tag[len(_YAML):] if tag.startswith(_YAML) else tag
        if tag in _PLAIN_TAGS:
            raise _Reject(error("yaml-tag", self.span(mark), problem="misfit", kind=kind, on=on))
        raise _Reject(error("yaml-tag", self.span(mark), problem="type", kind=kind))

    def too_deep(self, mark: Any) -> None:
        raise _Reject(error("yaml-syntax", self.span(mark), problem="too-deep", limit=MAX_DEPTH))

    def bomb(self, mark: Any) -> None:
        raise _Reject(error("yaml-alias-bomb", self.span(mark), limit=self.max_nodes))


def _child_path(top: _Open | None) -> Path_:
    """The path of the next value inside `top` (the document's root when None)."""
    if top is None:
        return ()
    if type(top.value) is list:
        return top.path + (len(top.value),)
    return top.path + (_KEY if top.key is _NO_KEY else (top.key,))
