"""The codes of imports: an input that takes its values from another table (`from: FILE`)."""

from __future__ import annotations

from . import Code, Facts, Severity, _all, did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from . import Words


IMPORT: Code = Code(
    name="import", severity=Severity.ERROR,
    summary="an input written `from: FILE` cannot take its values from there",
    example="`input 'mode' imports from base.yaml, which has no input 'mode'`",
    fix="name a table in the same folder that lists the input (not imported again)",
    why="an input's values come from another table; if that table cannot supply them, this one has no domain")


class ImportNoFolder(Facts, code=IMPORT, problem="no-folder"):
    input: str
    file: str

    def words(self) -> Words:
        return (
            f"input '{self.input}' imports from {self.file}, but this table was not read from a file, so there is no "
            "folder to "
            "find it in", "check the file itself, or give standard input the name of a file in the folder of the table "
                          "it imports from")


class ImportOutside(Facts, code=IMPORT, problem="outside"):
    input: str
    file: str

    def words(self) -> Words:
        return (
            f"input '{self.input}' imports from {self.file}, which leads out of the table's folder (a link to "
            "elsewhere); an "
            "import must be a file beside the table", "copy the table beside this one, or import from the file it "
                                                      "links to")


class ImportNoInput(Facts, code=IMPORT, problem="no-input"):
    got: Any
    file: str
    expected: Any
    suggestion: Any = None

    def words(self) -> Words:
        return (
            f"input '{self.got}' imports from {self.file}, which has no input '{self.got}' (its inputs: "
            f"{_all(self.expected)})",
            did_you_mean(self.suggestion))


class ImportImportedAgain(Facts, code=IMPORT, problem="imported-again"):
    input: str
    file: str
    again: str

    def words(self) -> Words:
        return (
            f"input '{self.input}' imports from {self.file}, where it is imported again (from {self.again}); import "
            "from the table that lists the values", None)


class ImportItself(Facts, code=IMPORT, problem="itself"):
    file: str

    def words(self) -> Words:
        return (f"a table cannot import from itself ({self.file})", None)


class ImportUnreadable(Facts, code=IMPORT, problem="unreadable"):
    file: str
    reason: str

    def words(self) -> Words:
        return (f"cannot import from {self.file}: {self.reason}", None)


class ImportTooLarge(Facts, code=IMPORT, problem="too-large"):
    file: str
    limit: int

    def words(self) -> Words:
        return (
            f"cannot import from {self.file}: the tables this one imports hold more than {self.limit} bytes together",
                None)


class ImportInvalid(Facts, code=IMPORT, problem="invalid"):
    shown: str
    count: int
    first: str
    first_line: int | None = None
    first_column: int | None = None

    def words(self) -> Words:
        at = f" at {self.first_line}:{self.first_column}" if self.first_line else ""
        return (f"{self.shown}, imported here, is not a valid table ({self.count} problem(s); the first is "
                f"{self.first}{at})",
                f"run: swapool validate {self.shown}")
