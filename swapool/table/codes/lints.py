"""The codes of the lints: cells and values written in a way that hides what they mean."""

from __future__ import annotations

from ..text import shown_list
from . import SHOWN_VALUES, Code, Facts, Severity, _ids, _v

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from . import Words


UNCASED_VALUE: Code = Code(
    name="uncased-value", severity=Severity.WARNING, detail="error with --strict",
    summary="a value of an engine-bound input (`enum:`) that no case names, by value or through its set",
    example="`no case exercises exact of input 'mode' (bound to the engine's Mode)`",
    fix="add a case naming the value, or a case over its set (`{in: quickly}`)",
    why="a value of an engine-bound input that no golden case exercises can change behaviour without any case noticing")


class UncasedValue(Facts, code=UNCASED_VALUE):
    got: Any
    input: str
    enum: str
    homes: Any
    expected: Any

    def words(self) -> Words:
        return (
            f"no case exercises {shown_list(self.got, SHOWN_VALUES)} of input '{self.input}' (bound to the engine's "
            f"{self.enum.split(':')[-1]})",
            f"add a case that names it, or its set: given: {{{self.input}: {{in: {self.homes[0]}}}}}, ..." if self.homes
            else f"add a case with given: {{{self.input}: {_v(self.got[0])}, ...}}")


VALUE_CASE: Code = Code(
    name="value-case", severity=Severity.WARNING, detail="error with --strict",
    summary="a value written in another case than the other values of its input",
    example="`'medusa' of input 'algo' is lower case, the other values are upper case`",
    fix="write it as the others are (`MEDUSA`), the engine's spelling",
    why="an engine spells its names one way; a value in another case never equals the name it sends, so no runner "
        "ever reaches the rules written for it")


class ValueCase(Facts, code=VALUE_CASE):
    got: Any
    input: str
    convention: str
    expected: Any

    def words(self) -> Words:
        return (
            f"'{_v(self.got)}' of input '{self.input}' is not {self.convention} case, the other values are",
            f"write it '{_v(self.expected)}', as the engine would spell it")


EMPTY_CELL: Code = Code(
    name="empty-cell", severity=Severity.ERROR,
    summary="a cell whose value set is empty, so its rule can never match",
    example="`rule 'r' can never match: its cell for 'a' matches no value`",
    fix="a `not` listing everything matches nothing",
    why="a cell that matches no value makes its rule dead, which is never what was written")


class EmptyCell(Facts, code=EMPTY_CELL):
    rule: str
    input: str

    def words(self) -> Words:
        return (f"rule '{self.rule}' can never match: its cell for '{self.input}' matches no value",
                "a {not: [...]} that lists every value, or an empty list, matches nothing")


FULL_DOMAIN_CELL: Code = Code(
    name="full-domain-cell", severity=Severity.WARNING,
    summary="a cell that lists the whole domain; write '-' instead",
    example="`rule 'r' lists every value of 'mode'`",
    fix="write `-`",
    why="listing every value reads as a restriction but is none; '-' says it, and stays right when a value is added")


class FullDomainCell(Facts, code=FULL_DOMAIN_CELL):
    rule: str
    input: str

    def words(self) -> Words:
        return (f"rule '{self.rule}' lists every value of '{self.input}'",
                "write '-' so that a value added later is not silently left out")


UNNAMED_VALUE: Code = Code(
    name="unnamed-value", severity=Severity.ERROR, detail="a note with `wildcard: true`, the author's opt-in; "
                                                          "`values` inputs only, a bool cannot grow",
    summary="an enumeration value that no rule names, decided only through '-' or 'not' cells",
    example="`no rule names exact of input 'mode'; only wildcards in ... decide it`",
    fix="name the value in the rule that should decide it",
    why="a value only wildcards decide gets whatever the catch-all says, including a value added later without review")


class UnnamedValue(Facts, code=UNNAMED_VALUE):
    got: Any
    input: str
    absorbers: Any
    wildcard: bool

    def words(self) -> Words:
        return (
            f"no rule names {shown_list(self.got, SHOWN_VALUES)} of input '{self.input}'; "
            + (f"only wildcards in {_ids(self.absorbers)} decide it" if self.absorbers else "nothing decides it"),
            "name the value in the rule that should decide it"
            + ("" if self.wildcard else ", or set 'wildcard: true' on the input to allow wildcards"))


UNUSED_INPUT: Code = Code(
    name="unused-input", severity=Severity.WARNING,
    summary="an input that no rule names: the decision never depends on it",
    example="`no rule names a value of input 'x'`",
    fix="remove the input",
    why="an input no rule reads makes the decision look like it depends on a fact it ignores")


class UnusedInput(Facts, code=UNUSED_INPUT):
    input: str

    def words(self) -> Words:
        return (f"no rule names a value of input '{self.input}': the decision never depends on it",
                "remove the input, or name its values in the rules that depend on it")
