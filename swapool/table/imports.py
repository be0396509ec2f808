"""Stage 3, imports: an input written `from: FILE` takes its values, sets and enum binding
from the input of the same name in a table beside this one, so that two tables never
list the same values twice (one edit adds a value to both).

Bounded on purpose: a file name only (no folders), resolved by its real path and refused
unless that path is in the table's own folder (a symlink cannot lead out of it); one level
(the imported input must be written out, not imported again); each distinct file is read
once, however many names reach it, and all imports together read at most MAX_BYTES. An
imported file's content is never quoted in a finding (it may not be a table at all): a
finding names its code and location there.
"""

from __future__ import annotations

import os

from .record import Record
from .lazy import lazy_module
from .diagnostics import Diagnostic, Related, Span, Suggestions, error
from .schema import check_schema
from .files import MAX_BYTES, digest_of, read_bytes
from .source import Document, parse_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping
    from .codes import imports
else:  # imported when a finding of theirs is made: a valid table makes none
    imports = lazy_module(f"{__package__}.codes.imports")


class Imports(Record):
    """The documents that `from:` inputs name, by input name, and what the load needs to know."""

    documents: Mapping[str, Document]
    files: tuple[tuple[str, str], ...]  # (path read, its digest), in the order first imported
    diagnostics: tuple[Diagnostic, ...]

    def digest(self, own: str) -> str:
        """The digest of the table with everything it imports: a change to either is a change."""
        if not self.files:
            return own
        return digest_of("\n".join([own] + [d for _, d in self.files]).encode())


NO_IMPORTS = Imports({}, (), ())


def resolve_imports(doc: Document, folder: str | os.PathLike | None) -> Imports:
    """Read the tables that the inputs of a schema-valid `doc` import from `folder` (the
    importing table's folder; None when the table has no file, e.g. a string)."""
    wanted = {name: spec["from"] for name, spec in doc.data["inputs"].items() if "from" in spec}
    if not wanted:
        return NO_IMPORTS
    found: list[Diagnostic] = []
    documents: dict[str, Document] = {}
    read: dict[str, Document | None] = {}  # by real path
    files: list[tuple[str, str]] = []
    budget = [MAX_BYTES]
    suggest = Suggestions().suggest
    for name, file in wanted.items():
        at = doc.span(("inputs", name, "from"))
        if folder is None:
            found.append(error(imports.ImportNoFolder(input=name, file=file), at))
            continue
        path = os.path.join(folder, file)
        real = os.path.realpath(path)
        if os.path.dirname(real) != os.path.realpath(folder):
            found.append(error(imports.ImportOutside(input=name, file=file), at))
            continue
        if real not in read:
            read[real] = _read(path, file, at, doc, found, budget)
            if read[real] is not None:
                files.append((real, read[real].digest))  # type: ignore[union-attr]  # (by real path: cwd may change)
        other = read[real]
        if other is None:
            continue
        inputs = other.data["inputs"]
        if name not in inputs:
            found.append(error(imports.ImportNoInput(file=file, expected=list(inputs), got=name,
                                                     suggestion=suggest(name, list(inputs))), at))
        elif "from" in inputs[name]:
            found.append(error(imports.ImportImportedAgain(input=name, file=file, again=inputs[name]["from"]), at,
                               related=(Related("the second import", None, other.span(("inputs", name, "from"))),)))
        else:
            documents[name] = other
    return Imports(documents, tuple(files), tuple(found))


def _read(path: str, file: str, at: Span, doc: Document, found: list[Diagnostic], budget: list[int]
          ) -> Document | None:
    shown = os.path.join(os.path.dirname(doc.file), file) if not doc.file.startswith("<") else path
    try:
        if os.path.realpath(doc.file) == os.path.realpath(path):
            found.append(error(imports.ImportItself(file=file), at))
            return None
    except OSError:
        pass
    raw, problems = read_bytes(path, shown)
    if raw is None:
        found.append(error(imports.ImportUnreadable(file=file, reason=problems[0].message), at))
        return None
    budget[0] -= len(raw)
    if budget[0] < 0:
        found.append(error(imports.ImportTooLarge(file=file, limit=MAX_BYTES), at))
        return None
    other, problems = parse_document(raw, shown)
    if other is not None:
        problems = check_schema(other)
    if other is None or problems:
        first = problems[0]
        found.append(error(imports.ImportInvalid(shown=shown, count=len(problems), first=first.code,
                                         first_line=first.span.line if first.span else None,
                                         first_column=first.span.column if first.span else None), at,
                           related=(Related("that problem", None, first.span),) if first.span else ()))
        return None
    return other
