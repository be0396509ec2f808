"""The source under a finding, as rustc and ruff show it: the line, and a caret under the span.

A finding carries where its span starts; where it ends is the end of the YAML token that
starts there (a quoted or plain scalar, a key, a bracketed flow collection on one line),
read here, at the edge, from the file the finding names. The checks never pay for it.
"""

from __future__ import annotations

import os
import unicodedata
from typing import NamedTuple

from ..table.diagnostics import Span, visible
from ..table.files import read_bytes
from ..table.source import editor_lines

#: Where a plain scalar ends inside [...] or {...}, and anywhere.
_FLOW_END = ",]}"


class Extent(NamedTuple):
    """A span's end: the line, and the column just past its last character (1-based)."""

    line: int
    column: int


class Sources:
    """The texts of the files findings name, each read once (through the same reader as a
    check: regular files only, under the size limit). A file that cannot be read has no
    snippet, and neither has `unread`: a name standing for standard input, whose text is
    not the file of that name."""

    def __init__(self, unread: frozenset[str] = frozenset()) -> None:
        self._lines: dict[str, list[str] | None] = {name: None for name in unread}

    def line(self, span: Span) -> str | None:
        lines = self._lines.get(span.file, ...)
        if lines is ...:
            lines = self._lines[span.file] = _read_lines(span.file)
        if lines is None or not 1 <= span.line <= len(lines):
            return None
        return lines[span.line - 1]

    def extent(self, span: Span) -> Extent | None:
        text = self.line(span)
        if text is None or not 1 <= span.column <= len(text) + 1:
            return None
        return Extent(span.line, token_end(text, span.column - 1) + 1)


def _read_lines(file: str) -> list[str] | None:
    if not file or file.startswith("<") or not os.path.isfile(file):
        return None
    raw, _ = read_bytes(file)
    if raw is None:
        return None
    try:
        return editor_lines(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return None


def token_end(line: str, start: int) -> int:
    """The index just past the YAML token that starts at `line[start]` (0-based); at least
    one character."""
    if start >= len(line):
        return start + 1
    if line[start] in "'\"":
        return _quoted_end(line, start)
    if line[start] in "[{":
        return _flow_end(line, start)
    i = start
    while i < len(line):
        ch = line[i]
        if ch in _FLOW_END or (ch == ":" and line[i + 1:i + 2] in ("", " ")) or (ch == "#" and line[i - 1] == " "):
            break
        i += 1
    end = len(line[start:i].rstrip()) + start
    return max(end, start + 1)


def _quoted_end(line: str, start: int) -> int:
    """Past the closing quote of the string opened at `start` ('' escapes ' in single
    quotes, a backslash the next character in double quotes); the line's end if none."""
    first = line[start]
    i = start + 1
    while i < len(line):
        if line[i] == "\\" and first == '"':
            i += 2
            continue
        if line[i] == first:
            if first == "'" and line[i + 1:i + 2] == "'":
                i += 2
                continue
            return i + 1
        i += 1
    return len(line)


def _flow_end(line: str, start: int) -> int:
    """Past the bracket that closes the [...] or {...} opened at `start` (brackets inside
    quoted strings do not count); one character if it does not close on this line."""
    depth, quote, escaped = 0, None, False
    for i in range(start, len(line)):
        ch = line[i]
        if escaped:  # the character after a backslash in a double-quoted string ends nothing
            escaped = False
        elif quote:
            escaped = quote == '"' and ch == "\\"
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return start + 1


def snippet(span: Span, sources: Sources, tint: str = "") -> list[str]:
    """The gutter, the source line and the caret line for `span`, or nothing when the
    file's text is not at hand. `tint`: an ANSI colour for the carets."""
    text = sources.line(span)
    extent = sources.extent(span)
    if text is None or extent is None:
        return []
    number = str(span.line)
    pad = " " * len(number)
    shown = visible(text)
    # escapes widen what comes before the span; the caret must stay under it
    start = len(visible(text[:span.column - 1]))  # in characters of `shown`
    length = max(1, len(visible(text[span.column - 1:extent.column - 1])))
    if len(shown) > SNIPPET_WIDTH:  # a long line is cut around the span, the cuts marked
        lo = max(0, min(start - CONTEXT, len(shown) - SNIPPET_WIDTH))
        hi = min(len(shown), max(start + length + CONTEXT, lo + SNIPPET_WIDTH))
        length = min(length, hi - start)
        shown = ("..." if lo else "") + shown[lo:hi] + ("..." if hi < len(shown) else "")
        start += (3 if lo else 0) - lo
    # on a terminal: a wide character takes two columns, a combining mark none (as rustc's emitter counts)
    before, width = columns(shown[:start]), max(1, columns(shown[start:start + length]))
    carets = f"{tint}{'^' * width}\x1b[0m" if tint else "^" * width
    return [f"{pad} |", f"{number} | {shown}", f"{pad} | {' ' * before}{carets}"]


#: A source line longer than this is shown cut around the span, with this much on either side.
SNIPPET_WIDTH, CONTEXT = 100, 24


def columns(text: str) -> int:
    """How many terminal columns `text` takes: East Asian wide and full-width characters two,
    combining marks none, everything else one."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)
