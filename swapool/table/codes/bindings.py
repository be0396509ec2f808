"""The codes of enum bindings: an input bound to an engine's enum, checked against its members."""

from __future__ import annotations

from . import Code, Facts, Severity, _v, adding_hint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from . import Words


ENUM_IMPORT: Code = Code(
    name="enum-import", severity=Severity.NOTE,
    summary="an input's enum binding names a module that is not installed here",
    example="`'engine' is not installed here; drift from its members is not checked`",
    fix="install the engine to check",
    why="the drift check needs the engine's enum; where the engine is not installed it cannot run, and says so")


class EnumImport(Facts, code=ENUM_IMPORT):
    input: str
    enum: str
    module: str

    def words(self) -> Words:
        return (
            f"input '{self.input}' is bound to {self.enum}, but '{self.module}' is not installed here; drift from its "
            "members is not checked", "install the engine in this environment to check the binding")


ENUM_IMPORT_FAILED: Code = Code(
    name="enum-import-failed", severity=Severity.WARNING,
    summary="an input's enum binding names an installed module whose import fails",
    example="`... is bound to engine.modes:Mode, and 'engine' is installed, but the import failed (...)`",
    fix="fix the environment so the engine imports, or check without importing enums",
    why="the engine is installed but its enum did not import, so the drift check silently did not run; --strict fails "
        "on it")


class EnumImportFailed(Facts, code=ENUM_IMPORT_FAILED):
    input: str
    enum: str
    module: str
    reason: str

    def words(self) -> Words:
        return (
            f"input '{self.input}' is bound to {self.enum}, and '{self.module}' is installed, but the import failed "
            f"({self.reason}); drift "
            "is not checked", "fix the environment so that the engine imports (a strict check fails on this), or check "
                              "without importing enums")


ENUM_MISSING_MEMBER: Code = Code(
    name="enum-missing-member", severity=Severity.ERROR,
    summary="an enum member that is not in the input's values",
    example="`... has member EXACT, which is not a value of input 'mode'`",
    fix="add and decide it",
    why="the engine has a member the table does not know: at run time that value has no decision")


class EnumMissingMember(Facts, code=ENUM_MISSING_MEMBER):
    enum: str | None
    got: Any
    input: str
    sets: Any

    def words(self) -> Words:
        return (
            f"{self.enum} has member {_v(self.got)}, which is not a value of input '{self.input}': no rule decides it",
            adding_hint(self.input, self.sets, self.got))


ENUM_EXTRA_VALUE: Code = Code(
    name="enum-extra-value", severity=Severity.WARNING,
    summary="a value in the input's values that is not a member of its enum",
    example="`value fsat of input 'mode' is not a member of ...`",
    fix="remove it",
    why="a value the engine does not have is a misspelling, or a table ahead of the engine; either should be seen")


class EnumExtraValue(Facts, code=ENUM_EXTRA_VALUE):
    got: Any
    input: str
    enum: str | None
    expected: Any

    def words(self) -> Words:
        return (f"value {_v(self.got)} of input '{self.input}' is not a member of {self.enum}",
                "remove the value, or check the binding names the right enum")


ENUM_NOT_ALLOWED: Code = Code(
    name="enum-not-allowed", severity=Severity.WARNING,
    summary="an input's enum binding names a module outside the allowed prefixes, so it is not imported",
    example="`input 'mode' is bound to evil:A, but swapool imports enums only from engine`",
    fix="bind the engine's enum, or allow the module (`$SWAPOOL_ENUM_MODULES`) after reviewing it",
    why="importing a module runs its code; only modules the person running swapool allowed are imported, never ones a "
        "table names")


class EnumNotAllowed(Facts, code=ENUM_NOT_ALLOWED):
    input: str
    enum: str
    allowed: Any
    setting: str

    def words(self) -> Words:
        return (
            f"input '{self.input}' is bound to {self.enum}, but swapool imports enums only from "
            + (', '.join(self.allowed) or '(no module)') + "; drift is not checked",
            f"bind to the engine's own enum, or allow the module (${self.setting}) after reviewing it: importing a "
            "module runs its code")
